#!/usr/bin/env bash
# Checks tests/model/countersign.pml with spin (docs/MODEL.md). Generates pan.c in a temporary
# folder, compiles it (gcc -O2 -DSAFETY) and runs an exhaustive search.
#
#   check.sh MODEL verify [-Dmacro ...]            errors: 0 required (exit 0), else the trail
#   check.sh MODEL mutant INVARIANT [-Dmacro ...]  the search must find a violation of INVARIANT:
#                                                  prints "counterexample: INVARIANT" and its trail
#   check.sh MODEL reach EXPR... [-- -Dmacro ...]  for each EXPR some reachable state satisfies it:
#                                                  "reached: EXPR" (a guard against a vacuous model)
set -euo pipefail

model=$(realpath "$1")
mode=$2
shift 2
target=""
probes=()
if [ "$mode" = mutant ]; then
  target=$1
  shift
elif [ "$mode" = reach ]; then
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    probes+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
fi
defines=("$@")

spin=${SPIN:-spin}
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
depth=-m200000

# MEMLIM (MB) keeps a model that grew by mistake from taking the machine.
build() {
  "$spin" -a "${defines[@]}" model.pml >spin.log || { cat spin.log; exit 2; }
  "$cc" -O2 -DSAFETY -DMEMLIM=2048 -w -o pan pan.c
}
if [ "$mode" != reach ]; then
  cp "$model" model.pml
  build
fi

# The trail, as the model's own narration ("| ..." lines) and the assertion that failed.
trail() {
  echo "trail (spin -t):"
  "$spin" -t "${defines[@]}" model.pml | sed -n 's/^ *| */  /p; /assertion violated/p' | head -80
}

case "$mode" in
verify)
  start=$(date +%s%N)
  ./pan "$depth" >pan.out 2>&1 || true
  end=$(date +%s%N)
  grep -E "^(State-vector|Depth|error|pan:|  *[0-9.e+]+ (states|transitions)|.*total actual memory)" pan.out \
    | grep -v "^pan: elapsed" || true
  grep -E "elapsed time" pan.out || true
  echo "pan wall time: $(( (end - start) / 1000000 )) ms"
  if grep -q "max search depth too small\|Search not completed" pan.out; then
    echo "FAILED: the search did not complete"
    exit 1
  fi
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | head -1)
  if [ "$errors" != 0 ]; then
    echo "FAILED: errors: ${errors:-?}"
    trail
    exit 1
  fi
  echo "model verified: errors: 0"
  ;;
mutant)
  # Every violation (-c0), then the trail of the first one of INVARIANT (-cN writes the Nth).
  # Stops once the target is seen (awk exits; pan dies of SIGPIPE): a mutant may have millions.
  ./pan "$depth" -c0 2>&1 | awk -v t="$target" '{ print } $4 == t { exit }' >pan.out || true
  echo "violated (distinct, until the first violation of $target):"
  sed -n 's/.*assertion violated \([a-z0-9_]*\).*/\1/p' pan.out | sort | uniq -c
  n=$(grep -m1 -w "assertion violated $target" pan.out | sed -n 's/^pan:\([0-9]*\):.*/\1/p' || true)
  if [ -z "$n" ]; then
    echo "FAILED: no violation of $target found; the model does not catch this mutant"
    exit 1
  fi
  ./pan "$depth" -c"$n" >pan.trail.out 2>&1 || true
  grep "^pan:$n: " pan.trail.out || true
  trail
  echo "counterexample: $target"
  ;;
reach)
  # One search for all probes (probes.pml: one process and one named assertion per EXPR); the
  # search stops once every probe has been reached.
  cp "$model" model.pml
  {
    run=""
    for i in "${!probes[@]}"; do
      echo "hidden byte probe_$i;"
      echo "proctype Probe$i() { end_probe: atomic { (${probes[$i]}) -> probe_$i = 0; assert(probe_$i) } }"
      run="$run run Probe$i();"
    done
    echo "#define RUN_PROBES $run skip"
  } >probes.pml
  defines+=(-DPROBES)
  build
  ./pan "$depth" -c0 2>&1 | awk -v n="${#probes[@]}" '
    /assertion violated probe_/ { p = $4; if (!(p in seen)) { seen[p] = 1; print p; if (++k == n) exit } }
    /assertion violated invariant_/ { print; exit }' >reached.txt || true
  failed=0
  for i in "${!probes[@]}"; do
    if grep -qx "probe_$i" reached.txt; then
      echo "reached: ${probes[$i]}"
    else
      echo "FAILED: no reachable state satisfies ${probes[$i]}"
      failed=1
    fi
  done
  grep invariant_ reached.txt && failed=1
  exit $failed
  ;;
*)
  echo "usage: check.sh MODEL verify|mutant INVARIANT|reach EXPR [-Dmacro ...]" >&2
  exit 2
  ;;
esac
