#!/usr/bin/env bash
# Installs, builds and runs every test, then every fuzz target for a bounded time
# (COUNTERSIGN_FUZZ_SECONDS per target, default 15; 0 skips them). Exits non-zero when any fails.
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

# The libFuzzer targets (docs/SECURITY.md, "Fuzzing"), each for a bounded time, in ./build-fuzz.
fuzz_seconds=${COUNTERSIGN_FUZZ_SECONDS:-15}
if [ "$fuzz_seconds" != 0 ]; then
  bash "$top/scripts/fuzz.sh" "$fuzz_seconds"
fi
