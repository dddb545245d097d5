#!/bin/bash
# bench_repeats.sh — the repetitions the test suite leaves out. Some integration tests once repeated an
# unchanged case many times to show that it never fails (a flaky verdict is a defect); the suite now runs
# each such case as often as it takes to go through every code path and check, and this script runs the same
# test scripts — the same checks, nothing re-implemented — with the full counts:
#   worker   tests/integration/worker.sh with KN_WORKER_JOBS=N (default 200, the acceptance number; the suite
#            queues 30): 3 workers, one SIGKILLed mid-job, every job done exactly once
#   heal     tests/integration/heal.sh with KN_HEAL_TIMES=N (default 10; the suite replays once): the unchanged
#            and the re-skinned Trailwiki task replayed N times each, the same verdict, drift and proposal
#   replay   tests/integration/replay.sh with KN_REPLAY_SHELL_RUNS=N (default 10; the suite replays once):
#            popup-newsletter on chromium-headless-shell, passed with the popup's actions recorded every time
# (falsealarm.sh's repetitions are tests/bench/bench_falsealarm.sh's and bench_falsealarm_ways.sh's.)
# Appends, per test, one line with the date, commit, N, load, wall time, exit code and the number of checks
# passed and failed, then every FAIL line, to RESULT_FILE. Benchmarks never assert times; exit 0 unless a
# test failed (then 1).
# usage: tests/bench/bench_repeats.sh BUILD_DIR SOURCE_DIR [RESULT_FILE]   (BUILD_DIR: e.g. build/werror)
# env:   KN_BENCH_ONLY="worker heal replay"  KN_BENCH_N=N (every test's count, else its default)
build=$(cd "${1:?usage: bench_repeats.sh BUILD_DIR SOURCE_DIR [RESULT_FILE]}" && pwd)
src=$(cd "${2:?usage: bench_repeats.sh BUILD_DIR SOURCE_DIR [RESULT_FILE]}" && pwd)
out=${3:-$PWD/bench_repeats.txt}
kn=$build/services/cli/keynode
wq=$build/tests/integration/worker_queue
it=$src/tests/integration
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
only=${KN_BENCH_ONLY:-worker heal replay}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# one NAME N ENV_ASSIGNMENT SCRIPT ARGS… — run SCRIPT with ENV_ASSIGNMENT, append its line to $out
one() {
  local name=$1 n=$2 env=$3 load0 t0 rc
  shift 3
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$(date +%s)
  env "$env" "$@" >"$log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  {
    echo "$(date -u +%Y-%m-%dT%H:%MZ) keynode $commit $name N=$n: exit $rc, $(grep -c '^ok ' "$log") checks ok," \
      "$(grep -c '^FAIL ' "$log") failed, $(($(date +%s) - t0)) s, load $load0 → $(cut -d' ' -f1-3 /proc/loadavg)"
    grep '^FAIL ' "$log" | sed 's/^/  /'
  } | tee -a "$out"
}

for name in $only; do
  case $name in
  worker) n=${KN_BENCH_N:-200}; one worker "$n" "KN_WORKER_JOBS=$n" "$it/worker.sh" "$kn" "$wq" "$src" ;;
  heal) n=${KN_BENCH_N:-10}; one heal "$n" "KN_HEAL_TIMES=$n" "$it/heal.sh" "$kn" "$src" ;;
  replay) n=${KN_BENCH_N:-10}; one replay "$n" "KN_REPLAY_SHELL_RUNS=$n" "$it/replay.sh" "$kn" "$src" ;;
  *) echo "bench_repeats: unknown test $name" >&2; status=1 ;;
  esac
done
exit $status
