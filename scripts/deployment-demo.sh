#!/usr/bin/env bash
# The shared deployment on one machine (docs/DEPLOYMENT.md): a private PostgreSQL
# (scripts/pg-cluster.sh), paysim, and two `countersignd serve` instances A and B on one
# database, on loopback ports. Users are added once; an agent proposes through A, an approver
# approves through B, one of the two executors sends it; both instances then show the same
# COMPLETED action and `audit verify` passes. Everything is stopped at the end (also on failure).
#
#   scripts/deployment-demo.sh [BUILD_DIR]      (default: $COUNTERSIGN_BUILD_DIR or ./build)
#
# Needs curl and jq (scripts/install-deps.sh). Exit 0 when every check passed. As root, the
# database server runs as an unprivileged user (scripts/pg-cluster.sh). ctest: deployment_demo.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${COUNTERSIGN_BUILD_DIR:-$top/build}}
countersignd="$build/app/countersignd/countersignd"
paysim="$build/app/paysim/paysim"
pgc="$top/scripts/pg-cluster.sh"
for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "deployment-demo: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
[ -x "$countersignd" ] && [ -x "$paysim" ] || { echo "deployment-demo: build first (no $countersignd or $paysim)" >&2; exit 1; }

# The folder must be enterable by the database server's user (postgres or nobody, when root).
work=$(mktemp -d /tmp/cs-deploy-XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  "$pgc" stop "$work/pg" >/dev/null 2>&1 || true
  if [ "$status" -ne 0 ]; then
    for log in "$work"/*.log "$work/pg/postgres.log"; do
      [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 20 "$log"; }
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "deployment-demo: FAILED: $*" >&2; exit 1; }

# Starts a service whose first stdout line is its URL; sets $url. Its stderr goes to NAME.log.
start_service() {
  local name=$1; shift
  "$@" >"$work/$name.out" 2>"$work/$name.log" &
  pids+=($!)
  local deadline=$((SECONDS + 30))
  url=""
  while [ -z "$url" ]; do
    url=$(head -n 1 "$work/$name.out" 2>/dev/null || true)
    [ -n "$url" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || fail "$name exited before printing its URL"
    [ $SECONDS -lt $deadline ] || fail "$name printed no URL within 30 s"
    sleep 0.1
  done
}

# api METHOD URL TOKEN [BODY [IF-MATCH]]: prints the body; fails unless 2xx.
api() {
  local method=$1 target=$2 token=$3 body=${4:-} ifmatch=${5:-}
  local args=(-sS -X "$method" -H "Authorization: Bearer $token" -H 'Expect:' -w '\n%{http_code}')
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  [ -n "$ifmatch" ] && args+=(-H "If-Match: \"$ifmatch\"")
  local out code
  out=$(curl "${args[@]}" "$target")
  code=${out##*$'\n'}
  out=${out%$'\n'*}
  [[ "$code" == 2* ]] || fail "$method $target answered $code: $out"
  printf '%s' "$out"
}

step "A private PostgreSQL in $work/pg"
"$pgc" start "$work/pg" --fast
"$pgc" createdb "$work/pg" countersign >/dev/null
db=$("$pgc" uri "$work/pg" countersign)
db_args=()
if "$countersignd" serve --help 2>/dev/null | grep -q -- '--db-password-file'; then
  # A role of its own with a password kept in a 0600 file, as a real deployment would.
  printf '%s\n' "demo-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" >"$work/db.password"
  chmod 600 "$work/db.password"
  "$pgc" psql "$work/pg" postgres -q -v ON_ERROR_STOP=1 -v pw="$(cat "$work/db.password")" -f - <<'SQL'
CREATE ROLE countersign_app LOGIN PASSWORD :'pw';
ALTER DATABASE countersign OWNER TO countersign_app;
SQL
  db=${db/countersign@/countersign_app@}
  db_args=(--db-password-file "$work/db.password")
  echo "role countersign_app, password in $work/db.password (mode 600)"
fi
echo "ledger: $db"

step "paysim"
start_service paysim "$paysim" --listen 127.0.0.1:0 --seed 13 --seed-charges 3
paysim_url=$url
echo "paysim: $paysim_url"
printf 'sk_test_deployment_demo\n' >"$work/provider.key"
charge=$(curl -sS -u sk_test_deployment_demo: "$paysim_url/v1/charges?limit=1" | jq -r '.data[0].id')
[ -n "$charge" ] && [ "$charge" != null ] || fail "paysim has no charge"

step "Users, added once (the ledger is shared: every instance knows them)"
token() { "$countersignd" user add "$1" --role "$2" --db "$db" "${db_args[@]}" | awk '{ t = $NF } END { print t }'; }
agent=$(token agent-7 agent)
approver=$(token ana approver)
"$countersignd" user list --db "$db" "${db_args[@]}"

step "Two countersignd instances on the one database"
serve=(serve --db "$db" "${db_args[@]}" --listen 127.0.0.1:0 --provider paysim --provider-url "$paysim_url"
       --provider-key-file "$work/provider.key")
start_service countersignd-a "$countersignd" "${serve[@]}"
a=$url/api/v1
start_service countersignd-b "$countersignd" "${serve[@]}"
b=$url/api/v1
echo "instance A: $a"
echo "instance B: $b"

step "agent-7 proposes a refund of 40.00 USD on $charge through A"
proposal=$(jq -cn --arg charge "$charge" '{kind: "refund", target: {charge: $charge}, amount: 4000, currency: "usd",
  reason: "requested_by_customer", client_reference: "deployment-demo-1", business_reference: "order-4711"}')
action=$(api POST "$a/actions" "$agent" "$proposal")
id=$(jq -r .id <<<"$action")
version=$(jq -r .state_version <<<"$action")
echo "$id is $(jq -r .state <<<"$action") (state_version $version)"

step "ana sees it through B and approves it there"
seen=$(api GET "$b/actions/$id" "$approver")
[ "$(jq -r .state <<<"$seen")" = PENDING ] || fail "B does not show $id as PENDING: $seen"
approved=$(api POST "$b/actions/$id/approvals" "$approver" '{"note":"approved through instance B"}' "$version")
echo "approved by ana; $id stays $(jq -r .action.state <<<"$approved") until an executor claims it"

step "One of the two executors sends it; waiting for COMPLETED"
deadline=$((SECONDS + 60))
state=""
while [ "$state" != COMPLETED ]; do
  state=$(api GET "$a/actions/$id" "$approver" | jq -r .state)
  case "$state" in
    COMPLETED) break ;;
    REJECTED|REQUIRES_REVIEW|CANCELLED) fail "$id ended $state" ;;
  esac
  [ $SECONDS -lt $deadline ] || fail "$id is still $state after 60 s"
  sleep 0.2
done
echo "$id is COMPLETED"

step "Both instances agree"
# The requester's record counts "the last 7 days" from the moment of each read: left out.
from_a=$(api GET "$a/actions/$id" "$approver" | jq -S 'del(.links, .requester_record)')
from_b=$(api GET "$b/actions/$id" "$approver" | jq -S 'del(.links, .requester_record)')
[ "$from_a" = "$from_b" ] || fail "A and B differ:"$'\n'"$from_a"$'\n'"$from_b"
jq -c '{id, state, state_version, amount, currency}' <<<"$from_a"
refunds=$(curl -sS "$paysim_url/_sim/refunds" | jq --arg id "$id" '[.data[] | select(.metadata.countersign_action_id == $id)] | length')
[ "$refunds" = 1 ] || fail "paysim holds $refunds refunds for $id (expected exactly 1)"
echo "paysim holds exactly one refund for $id"

step "audit verify"
"$countersignd" audit verify --db "$db" "${db_args[@]}"

step "Done: stopping both instances, paysim and PostgreSQL"
