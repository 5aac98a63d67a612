#!/usr/bin/env bash
# Takes docs/screenshot-two-refunds.png (issue 33) the way a supervisor gets there: a real paysim
# and countersignd on loopback (SQLite in a temporary folder); a refund is approved and COMPLETED;
# paysim then holds a second refund carrying the same action's id (what a resend the provider took
# as new leaves behind); a supervisor's look-up shows both. The console then runs as that
# supervisor under Xvfb at 1366x768 and is driven with the keyboard (xdotool): Ctrl+7 (the "Two
# refunds" filter), the first row; the screen is grabbed with ImageMagick's import.
#   scripts/screenshot-two-refunds.sh [BUILD_DIR] [OUT.png] [LANG]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${COUNTERSIGN_BUILD_DIR:-$top/build}}
out=${2:-$top/docs/screenshot-two-refunds.png}
lang=${3:-en}
for tool in curl jq xdotool import Xvfb; do
  command -v "$tool" >/dev/null || { echo "screenshot-two-refunds: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
countersignd="$build/app/countersignd/countersignd"
paysim="$build/app/paysim/paysim"
console="$build/app/countersign/countersign"

work=$(mktemp -d /tmp/cs-shot33-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

start_service() { # NAME CMD...: sets $url from its first stdout line
  local name=$1; shift
  "$@" >"$work/$name.out" 2>"$work/$name.log" &
  pids+=($!)
  url=""
  for _ in $(seq 300); do
    url=$(head -n 1 "$work/$name.out" 2>/dev/null || true)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  echo "screenshot-two-refunds: $name did not start" >&2; cat "$work/$name.log" >&2; exit 1
}
api() { # METHOD PATH TOKEN [BODY [IF-MATCH]]
  local args=(-sS -f -X "$1" -H "Authorization: Bearer $3" -H 'Expect:')
  [ -n "${4:-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$4")
  [ -n "${5:-}" ] && args+=(-H "If-Match: \"$5\"")
  curl "${args[@]}" "$api$2"
}

start_service paysim "$paysim" --listen 127.0.0.1:0 --seed 33 --seed-charges 3
paysim_url=$url
printf 'sk_test_screenshot\n' >"$work/provider.key"
db="$work/ledger.db"
token() { "$countersignd" user add "$1" --role "$2" --db "$db" | awk '{ t = $NF } END { print t }'; }
agent=$(token returns-bot agent)
approver=$(token ana approver)
supervisor=$(token sue supervisor)
printf '%s\n' "$supervisor" >"$work/sue.token"
chmod 600 "$work/sue.token"
start_service countersignd "$countersignd" serve --db "$db" --listen 127.0.0.1:0 --provider paysim \
  --provider-url "$paysim_url" --provider-key-file "$work/provider.key"
api="$url/api/v1"
charges=$(curl -sS -u sk_test_screenshot: "$paysim_url/v1/charges?limit=3" | jq -r '.data[].id')

# Two ordinary refunds, then the one the provider holds twice.
n=0
for charge in $charges; do
  n=$((n + 1))
  amount=$((900 + n * 300))
  proposal=$(jq -cn --arg c "$charge" --arg r "order-48$n$n" --argjson a "$amount" \
    '{kind: "refund", target: {charge: $c}, amount: $a, currency: "usd", reason: "requested_by_customer",
      client_reference: ("return-" + $r), business_reference: $r,
      justification: "Customer returned the parcel; the warehouse confirmed receipt."}')
  action=$(api POST /actions "$agent" "$proposal")
  id=$(jq -r .id <<<"$action")
  api POST "/actions/$id/approvals" "$approver" '{"note":"matches the return"}' "$(jq -r .state_version <<<"$action")" >/dev/null
  for _ in $(seq 200); do
    [ "$(api GET "/actions/$id" "$supervisor" | jq -r .state)" = COMPLETED ] && break
    sleep 0.1
  done
  last=$id; last_charge=$charge; last_amount=$amount
done
curl -sS -f -u sk_test_screenshot: -H 'Idempotency-Key: a-key-countersign-never-minted' \
  -d "charge=$last_charge" -d "amount=$last_amount" -d "metadata[countersign_action_id]=$last" \
  "$paysim_url/v1/refunds" >/dev/null
version=$(api GET "/actions/$last" "$supervisor" | jq -r .state_version)
api POST "/actions/$last/lookups" "$supervisor" '{}' "$version" >/dev/null
[ "$(api GET "/actions/$last" "$supervisor" | jq -r .discrepancy.attention)" = open ] \
  || { echo "screenshot-two-refunds: no discrepancy opened" >&2; exit 1; }

# The console, as a supervisor would use it, at 1366x768.
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1366x768x24 -dpi 96 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
sleep 1
export DISPLAY=$display QT_QPA_PLATFORMTHEME=
unset QT_QPA_PLATFORM
"$console" --backend "$url" --token-file "$work/sue.token" --settings "$work/console.ini" --lang "$lang" \
  --window-size 1366x768 >"$work/console.log" 2>&1 &
pids+=($!)
window=""
for _ in $(seq 100); do
  window=$(xdotool search --onlyvisible --class countersign 2>/dev/null | head -n 1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "screenshot-two-refunds: no console window" >&2; cat "$work/console.log" >&2; exit 1; }
xdotool windowmove "$window" 0 0 windowsize "$window" 1366 768
sleep 3
xdotool windowactivate --sync "$window" 2>/dev/null || xdotool windowfocus "$window"
xdotool key --window "$window" ctrl+7
sleep 2
xdotool key --window "$window" ctrl+0 Down
sleep 3
import -window root "$out"
echo "saved $out"
