#!/usr/bin/env bash
# Installs, builds and runs every test. Exits non-zero when any test fails.
# GUI tests run offscreen; servers under test listen on 127.0.0.1 with ephemeral ports.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

bash scripts/build.sh
build_dir=${COUNTERSIGN_BUILD_DIR:-"$top/build"}

# The Node.js tests (the official Stripe SDK against paysim) use the pinned lockfile.
if [ -f tests/node/package-lock.json ]; then
  npm ci --prefix tests/node --no-audit --no-fund --loglevel=error
fi

export QT_QPA_PLATFORM=offscreen
cd "$build_dir"
ctest --output-on-failure --parallel "$(nproc)" "$@"
