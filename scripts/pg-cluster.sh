#!/usr/bin/env bash
# A private PostgreSQL cluster in a folder, for humans, benchmarks and the deployment demo: the
# same cluster tests/support/pgcluster.h starts for the tests. Nothing uses a system service.
#
#   scripts/pg-cluster.sh start DIR [PORT] [--fast]   initdb DIR (first time) and start the server
#                                                     on 127.0.0.1:PORT (a free port if omitted);
#                                                     --fast: fsync and full_page_writes off
#   scripts/pg-cluster.sh stop DIR                    stop it (fast shutdown)
#   scripts/pg-cluster.sh createdb DIR DBNAME         create a database (if missing), print its URI
#   scripts/pg-cluster.sh uri DIR DBNAME              print postgresql://countersign@127.0.0.1:PORT/DBNAME
#   scripts/pg-cluster.sh psql DIR DBNAME [ARGS…]     psql as the superuser (countersign)
#   scripts/pg-cluster.sh status DIR                  exit 0 when the server runs
#
# Layout of DIR: data/ (PGDATA), run/ (the Unix socket), postgres.log, port. The superuser
# `countersign` is trusted on 127.0.0.1 and the socket; other roles need their password.
# As root, the server runs as `postgres` (or `nobody`), which gets DIR; DIR's parents must be
# enterable by it. PG_BINDIR (or COUNTERSIGN_PG_BINDIR) overrides the server binaries' folder.
set -euo pipefail

die() { echo "pg-cluster: $*" >&2; exit 1; }

bindir() {
  local dir="${PG_BINDIR:-${COUNTERSIGN_PG_BINDIR:-}}"
  if [ -z "$dir" ]; then
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi
  if [ -z "$dir" ] && command -v initdb >/dev/null 2>&1; then
    dir=$(dirname "$(command -v initdb)")
  fi
  [ -n "$dir" ] && [ -x "$dir/initdb" ] || die "no PostgreSQL server binaries; run scripts/install-deps.sh"
  echo "$dir"
}

# The user the server binaries run as: ourselves, or an unprivileged one when we are root.
server_user() {
  if [ "$(id -u)" -ne 0 ]; then return; fi
  if id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

# Runs a server binary as the server user.
as_server() {
  local user; user=$(server_user)
  if [ -z "$user" ]; then
    "$@"
  elif command -v setpriv >/dev/null 2>&1; then
    setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups -- "$@"
  else
    runuser -u "$user" -- "$@"
  fi
}

port_of() {
  [ -f "$1/port" ] || die "$1 is not a cluster folder (no $1/port); run: $0 start $1"
  cat "$1/port"
}

is_running() {
  [ -d "$1/data" ] && (cd / && as_server "$(bindir)/pg_ctl" -D "$1/data" status >/dev/null 2>&1)
}

free_port() {
  # A random port in the dynamic range that nothing listens on; the start retries if it loses.
  local port
  for _ in $(seq 1 50); do
    port=$(( 20000 + RANDOM % 30000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"; return
    fi
  done
  die "no free port found"
}

cmd_start() {
  local dir="" port="" fast=0
  for arg in "$@"; do
    case "$arg" in
      --fast) fast=1 ;;
      *) if [ -z "$dir" ]; then dir=$arg; elif [ -z "$port" ]; then port=$arg; else die "start: unexpected $arg"; fi ;;
    esac
  done
  [ -n "$dir" ] || die "usage: $0 start DIR [PORT] [--fast]"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ ${#dir} -le 80 ] || die "$dir is too long for a Unix socket path; use a shorter folder"
  local bin; bin=$(bindir)
  local user; user=$(server_user)
  if is_running "$dir"; then
    echo "pg-cluster: already running on port $(port_of "$dir")"
    return
  fi
  if [ ! -d "$dir/data" ]; then
    mkdir -p "$dir/run"
    if [ -n "$user" ]; then chown "$user:" "$dir" "$dir/run"; fi
    (cd "$dir" && as_server "$bin/initdb" -D "$dir/data" -U countersign -A trust --no-sync -E UTF8 --locale=C \
      --no-instructions >"$dir/initdb.log" 2>&1) || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    {
      echo "# scripts/pg-cluster.sh"
      echo "listen_addresses = '127.0.0.1'"
      echo "unix_socket_directories = '$dir/run'"
      echo "max_connections = 200"
      echo "log_line_prefix = '%m [%p] %q%a@%d '"
      if [ "$fast" -eq 1 ]; then echo "fsync = off"; echo "full_page_writes = off"; fi
    } >>"$dir/data/postgresql.conf"
    cat >"$dir/data/pg_hba.conf" <<'HBA'
local all countersign trust
host  all countersign 127.0.0.1/32 trust
local all all scram-sha-256
host  all all 127.0.0.1/32 scram-sha-256
HBA
  fi
  local fixed=0
  if [ -n "$port" ]; then fixed=1; elif [ -f "$dir/port" ]; then port=$(cat "$dir/port"); fixed=1; fi
  for _ in 1 2 3 4 5 6 7 8; do
    [ "$fixed" -eq 1 ] || port=$(free_port)
    echo "$port" >"$dir/port"
    local before; before=$(stat -c %s "$dir/postgres.log" 2>/dev/null || echo 0)
    if (cd "$dir" && as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 -s -o "-p $port" start); then
      echo "pg-cluster: running on 127.0.0.1:$port (folder $dir, log $dir/postgres.log)"
      return
    fi
    if [ "$fixed" -eq 1 ] || ! tail -c +"$((before + 1))" "$dir/postgres.log" | grep -q -e "could not bind" -e "already in use"; then
      tail -n 30 "$dir/postgres.log" >&2 || true
      die "the server did not start"
    fi
  done
  die "no port could be bound"
}

cmd_stop() {
  local dir=${1:?usage: $0 stop DIR}
  if ! is_running "$dir"; then echo "pg-cluster: not running"; return; fi
  (cd / && as_server "$(bindir)/pg_ctl" -D "$(cd "$dir" && pwd)/data" -m fast -w -t 60 -s stop)
}

cmd_uri() {
  local dir=${1:?usage: $0 uri DIR DBNAME} db=${2:?usage: $0 uri DIR DBNAME}
  echo "postgresql://countersign@127.0.0.1:$(port_of "$dir")/$db"
}

run_psql() {
  local dir=$1 db=$2; shift 2
  env -u PGPASSWORD -u PGSERVICE -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE \
    "$(bindir)/psql" -X -h 127.0.0.1 -p "$(port_of "$dir")" -U countersign -d "$db" "$@"
}

cmd_createdb() {
  local dir=${1:?usage: $0 createdb DIR DBNAME} db=${2:?usage: $0 createdb DIR DBNAME}
  local exists
  # psql quotes :'name' as a literal and :"name" as an identifier (only in scripts, not -c).
  exists=$(echo "SELECT 1 FROM pg_database WHERE datname = :'name';" |
    run_psql "$dir" postgres -A -t -v ON_ERROR_STOP=1 -v name="$db" -f - 2>&1) || die "$exists"
  if [ "$exists" != "1" ]; then
    echo 'CREATE DATABASE :"name";' | run_psql "$dir" postgres -q -v ON_ERROR_STOP=1 -v name="$db" -f - >/dev/null
  fi
  cmd_uri "$dir" "$db"
}

cmd_psql() {
  local dir=${1:?usage: $0 psql DIR DBNAME [ARGS...]} db=${2:?usage: $0 psql DIR DBNAME [ARGS...]}
  shift 2
  run_psql "$dir" "$db" "$@"
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  uri) cmd_uri "$@" ;;
  createdb) cmd_createdb "$@" ;;
  psql) cmd_psql "$@" ;;
  status) is_running "${1:?usage: $0 status DIR}" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
