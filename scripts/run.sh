#!/usr/bin/env bash
# Installs, builds and runs Countersign on its embedded default.
# Until the console lands, this runs the provider simulator (paysim) seeded with charges.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

bash scripts/build.sh
build_dir=${COUNTERSIGN_BUILD_DIR:-"$top/build"}

echo "Countersign: the console is not built yet; starting the provider simulator (Ctrl+C stops it)."
exec "$build_dir/app/paysim/paysim" --listen 127.0.0.1:0 --seed 1 --seed-charges 10 "$@"
