#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, COUNTERSIGN_FUZZ) in ./build-fuzz with clang-14 and
# runs each for a bounded time on a copy of its seed corpus (the repository's corpus never grows).
# Fails on any crash, failed property, leak, timeout or sanitizer report; prints executions and
# exec/s per target. Usage: scripts/fuzz.sh [SECONDS per target, default 15] [target ...]
# Environment: COUNTERSIGN_FUZZ_BUILD_DIR (default ./build-fuzz), COUNTERSIGN_FUZZ_KEEP=1 keeps the
# temporary corpora. A failing input is copied to <build-fuzz>/fuzz-artifacts/; reproduce with
#   build-fuzz/tests/fuzz/<target> <that file>
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

seconds=${1:-15}
shift || true
all_targets=(fuzz_proposal fuzz_decision fuzz_wire_roundtrip fuzz_formdecoder fuzz_sseparser fuzz_paysim_http)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
build_dir=${COUNTERSIGN_FUZZ_BUILD_DIR:-"$top/build-fuzz"}

max_len_of() {
  case "$1" in
    fuzz_wire_roundtrip) echo 8192 ;;
    fuzz_formdecoder | fuzz_sseparser) echo 2048 ;;
    *) echo 4096 ;;
  esac
}

for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi
build_start=$(date +%s)
if [ ! -f "$build_dir/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$top" -B "$build_dir" -G Ninja -DCOUNTERSIGN_FUZZ=ON \
    -DCOUNTERSIGN_BENCHMARKS=OFF -DCOUNTERSIGN_WERROR="$werror" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
fi
nice cmake --build "$build_dir" --target fuzz_targets --parallel "$(nproc)"
echo "fuzz: build took $(( $(date +%s) - build_start )) s"

work=$(mktemp -d "${TMPDIR:-/tmp}/countersign-fuzz.XXXXXX")
if [ "${COUNTERSIGN_FUZZ_KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; fi
artifacts="$build_dir/fuzz-artifacts"
mkdir -p "$artifacts"

# Leaks are reported (LeakSanitizer is on with ASan by default; said so here to be plain), and any
# undefined behaviour stops the run.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

failed=()
summary=()
for target in "${targets[@]}"; do
  binary="$build_dir/tests/fuzz/$target"
  corpus="$work/$target/corpus"
  mkdir -p "$corpus" "$work/$target/artifacts"
  cp -R "$top/tests/fuzz/corpus/$target/." "$corpus/"
  dict=()
  if [ -f "$top/tests/fuzz/$target.dict" ]; then dict=(-dict="$top/tests/fuzz/$target.dict"); fi
  log="$work/$target/log"
  status=0
  nice "$binary" "$corpus" "${dict[@]}" -max_total_time="$seconds" -max_len="$(max_len_of "$target")" \
    -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$work/$target/artifacts/" \
    >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  reports=$(grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|FUZZ_CHECK failed|SUMMARY: ' "$log" || true)
  found=$(find "$work/$target/artifacts" -type f | wc -l)
  line=$(printf '%-20s %10s executions %8s exec/s  corpus %5s' "$target" "${runs:-?}" "${speed:-?}" "$units")
  if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ] || [ "$found" -ne 0 ] || [ -z "$runs" ]; then
    failed+=("$target")
    summary+=("$line  FAILED (exit $status)")
    echo "fuzz: $target FAILED (exit $status); the end of its log:" >&2
    tail -60 "$log" >&2
    if [ "$found" -ne 0 ]; then
      cp "$work/$target/artifacts/"* "$artifacts/"
      echo "fuzz: failing input(s) in $artifacts/; reproduce with $binary <file>" >&2
    fi
  else
    summary+=("$line  ok")
  fi
done

echo "fuzz: ${seconds} s per target (libFuzzer -max_total_time), $(nproc) cores"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
