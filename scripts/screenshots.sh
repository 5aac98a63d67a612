#!/usr/bin/env bash
# Takes the README's screenshots of the console under Xvfb: a real countersignd and paysim are
# started on loopback, populated through the API with a few scenarios (tests/ui/
# screenshot_scenarios.cpp), and the console saves docs/screenshot-queue.png,
# docs/screenshot-review.png and docs/screenshot-diff.png with its --screenshot option; the same
# program then shows the approve dialog of a refund proposed with the agent's reasons
# (docs/screenshot-approve-reasons.png), the approve dialog of a refund over half of a charge
# already partly refunded, with the charge's story, budget and warnings
# (docs/screenshot-approve-budget.png), a bulk approval after a partial failure
# (docs/screenshot-bulk.png) and the charge view of a charge with a refund made outside
# Countersign and two actions (docs/screenshot-charge-view.png) and saves them. tests/ui/screenshot_notifications.cpp saves
# docs/screenshot-notifications.png (a notice, the title's and the tray's counts); tests/ui/screenshot_settlement.cpp
# docs/screenshot-settlement-review.png (a refund that failed after it was accepted). Then the console runs in demo mode (--demo --scenario N --screenshot) for docs/screenshot-demo-scenario1.png,
# docs/screenshot-demo-scenario2.png, docs/screenshot-demo-scenario9.png and docs/screenshot-demo-scenario10.png: scenarios 1, 2, 9
# and 10 played to their end, narration visible (10 ends on the refund that failed: its settlement and follow-up);
# and docs/screenshot-demo-traffic.png: the demo console a few seconds after start, the agents' proposals in the queue;
# docs/screenshot-german.png: the review picture again with LANG=de_DE.UTF-8.
# Usage: scripts/screenshots.sh [build dir]   (default: $COUNTERSIGN_BUILD_DIR or ./build)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-${COUNTERSIGN_BUILD_DIR:-"$top/build"}}

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$top" -B "$build_dir" -G Ninja >/dev/null
fi
cmake --build "$build_dir" --target screenshot_scenarios screenshot_notifications screenshot_export screenshot_settlement tst_layout countersign countersignd paysim

command -v xvfb-run >/dev/null || { echo "screenshots: xvfb-run is missing (bash scripts/install-deps.sh)" >&2; exit 1; }
# A fixed light palette and fonts: the pictures do not depend on the desktop they are taken on.
export QT_QPA_PLATFORMTHEME=
unset QT_QPA_PLATFORM
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/tests/ui/screenshot_scenarios" \
  --console "$build_dir/app/countersign/countersign" \
  --out "$top/docs" --window-size 1440x900
# Notifications: a notice, the title's and the tray's counts (tests/ui/screenshot_notifications.cpp).
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/tests/ui/screenshot_notifications" --out "$top/docs/screenshot-notifications.png" --window-size 1440x900
# File → Export: the progress dialog over the console, 1,200 refunds (tests/ui/screenshot_export.cpp).
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/tests/ui/screenshot_export" --out "$top/docs/screenshot-export.png" --window-size 1440x900
# Two refunds for one action (issue 33), as a supervisor gets there: a real backend, the console at
# 1366x768 driven with the keyboard (scripts/screenshot-two-refunds.sh).
bash "$top/scripts/screenshot-two-refunds.sh" "$build_dir" "$top/docs/screenshot-two-refunds.png"
# A refund that failed after it was accepted (issue 18), from the wire format (tests/ui/screenshot_settlement.cpp).
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/tests/ui/screenshot_settlement" "$top/docs/screenshot-settlement-review.png"
for n in 1 2 9 10; do
  xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
    "$build_dir/app/countersign/countersign" --demo --scenario "$n" --filter all --window-size 1440x900 \
    --screenshot "$top/docs/screenshot-demo-scenario$n.png"
done
# The demo console a few seconds after start, the agent traffic's first proposals in the queue
# (docs/screenshot-demo-traffic.png); its own settings file, so that Demo → Agent traffic is on.
traffic_settings=$(mktemp -d)
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/app/countersign/countersign" --demo --window-size 1440x900 --settings "$traffic_settings/console.ini" \
  --screenshot "$top/docs/screenshot-demo-traffic.png"
rm -rf "$traffic_settings"
# The main window in German, chosen by the system locale (docs/TRANSLATING.md): the same scenarios,
# the console run with LANG=de_DE.UTF-8; the review picture is kept as docs/screenshot-german.png.
german=$(mktemp -d)
LANG=de_DE.UTF-8 LC_ALL= LC_MESSAGES= LANGUAGE= xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
  "$build_dir/tests/ui/screenshot_scenarios" \
  --console "$build_dir/app/countersign/countersign" \
  --out "$german" --window-size 1440x900
cp "$german/screenshot-review.png" "$top/docs/screenshot-german.png"
rm -rf "$german"
# Every dialog and the main window at 1366x768 with the worst realistic content (every warning at
# once, the longest reasons, 30 look-ups), as tests/ui/tst_layout checks them: docs/screenshot-*-1366.png.
layout_shots=$(mktemp -d)
TST_LAYOUT_SHOTS="$layout_shots" "$build_dir/tests/ui/tst_layout" >/dev/null
for shot in "$layout_shots"/*-en-1366x768.png; do
  name=$(basename "$shot" -en-1366x768.png)
  cp "$shot" "$top/docs/screenshot-$name-1366.png"
done
cp "$layout_shots/en-1366x768-window-requires_review-0.png" "$top/docs/screenshot-main-1366.png"
cp "$layout_shots/en-1366x768-window-requires_review-1.png" "$top/docs/screenshot-evidence-1366.png"
rm -rf "$layout_shots"
ls -l "$top"/docs/screenshot-*.png
