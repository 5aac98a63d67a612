#!/usr/bin/env bash
# Installs, builds and runs Countersign on its embedded default: the console in demo mode
# (`countersign --demo`), which starts countersignd (SQLite in a temporary folder) and paysim as
# child processes on loopback, seeds charges and signs in as the approver. Closing the console
# stops them. Extra arguments go to the console (e.g. --window-size 1440x900).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

bash scripts/build.sh
build_dir=${COUNTERSIGN_BUILD_DIR:-"$top/build"}
console="$build_dir/app/countersign/countersign"

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  command -v xvfb-run >/dev/null || { echo "run: no display and no xvfb-run (bash scripts/install-deps.sh)" >&2; exit 1; }
  echo "Countersign: no display found; running the demo console under xvfb-run (the window is invisible here;"
  echo "on a desktop you would see it). Close it with Ctrl+C."
  exec xvfb-run -a "$console" --demo "$@"
fi
echo "Countersign: opening the demo console (closing it stops the embedded backend and paysim)."
exec "$console" --demo "$@"
