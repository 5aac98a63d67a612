#!/usr/bin/env bash
# Installs the packages (scripts/install-deps.sh), configures and builds Countersign in ./build.
# Warnings are errors when CI=true. Usage: scripts/build.sh [extra cmake -D options]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh

werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi
build_dir=${COUNTERSIGN_BUILD_DIR:-"$top/build"}

cmake -S "$top" -B "$build_dir" -G Ninja -DCOUNTERSIGN_WERROR="$werror" "$@" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)"
