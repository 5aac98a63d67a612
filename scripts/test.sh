#!/usr/bin/env bash
# Installs, builds and runs every test, then every fuzz target for a bounded time
# (COUNTERSIGN_FUZZ_SECONDS per target, default 15; 0 skips them). Exits non-zero when any fails.
# GUI tests run offscreen; servers under test listen on 127.0.0.1 with ephemeral ports.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

bash scripts/build.sh
build_dir=${COUNTERSIGN_BUILD_DIR:-"$top/build"}

# The Node.js tests (the official Stripe and MCP SDKs) use the pinned lockfile; the MCP conformance
# suite has its own (it brings the Node.js 22 it needs from npm: Debian 12 ships 18).
for dir in tests/node tests/conformance; do
  if [ -f "$dir/package-lock.json" ]; then
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  fi
done

export QT_QPA_PLATFORM=offscreen
cd "$build_dir"
ctest --output-on-failure --parallel "$(nproc)" "$@"

# The libFuzzer targets (docs/SECURITY.md, "Fuzzing"), each for a bounded time, in ./build-fuzz.
fuzz_seconds=${COUNTERSIGN_FUZZ_SECONDS:-15}
if [ "$fuzz_seconds" != 0 ]; then
  bash "$top/scripts/fuzz.sh" "$fuzz_seconds"
fi
