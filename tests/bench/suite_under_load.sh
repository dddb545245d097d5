#!/usr/bin/env bash
# suite_under_load.sh — the whole test suite as CI runs it (deploy/quickstart.sh test: the -Werror build and
# the sanitizer build, ctest -j as deploy/test-jobs.sh says in each) in a fresh clone of REV, with BUSY busy
# loops (default 2) running beside it the whole time: a test that passes only on a quiet machine fails here. Writes one line
# per half (passed/failed counts, the failed tests, seconds) and the machine (cores, load at start and end)
# to RESULT_FILE, and keeps each half's ctest output beside it. Run by hand, never by ctest; installs
# nothing (run deploy/quickstart.sh test once first). Repeat it to see a flake: three clean runs in a row
# is the bar. The clone goes to a sibling folder of the checkout, so ../shared resolves as in CI.
#   tests/bench/suite_under_load.sh REPO_DIR [REV] [RESULT_FILE] [BUSY]
set -u -o pipefail
repo=$(cd "${1:?usage: suite_under_load.sh REPO_DIR [REV] [RESULT_FILE] [BUSY]}" && pwd)
rev=${2:-HEAD} result=${3:-$repo/tests/bench/suite_under_load.txt} busy=${4:-2}
jobs=$(nproc 2>/dev/null || echo 2)
dir=$(dirname "$repo")/kn-under-load.$$
shared=${KN_SHARED_DIR:-$(dirname "$repo")/shared}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$dir"; }
trap cleanup EXIT
git clone -q "$repo" "$dir" && git -C "$dir" checkout -q "$(git -C "$repo" rev-parse "$rev")" || exit 1
for _ in $(seq 1 "$busy"); do (while :; do :; done) & pids+=($!); done
cd "$dir" || exit 1
test_jobs=$(deploy/test-jobs.sh 2>/dev/null || echo "$jobs") # REV's own (before it: one per core)
say() { echo "$*" | tee -a "$result"; }
say "suite_under_load $(git rev-parse --short HEAD) $(date -u +%FT%TZ): $jobs cores, ctest -j$test_jobs, $busy busy loops, load $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
half() { # NAME BUILD_DIR ENV… — configure, build, ctest; one result line
  local name=$1 b=$2 t0=$SECONDS log=$result.$1.log
  shift 2
  if ! { cmake -S . -B "$b" -DKN_SHARED_DIR="$shared" -DKN_WERROR=ON "${cfg[@]}" >"$log" 2>&1 &&
         cmake --build "$b" -j"$jobs" >>"$log" 2>&1; }; then
    say "  $name: build failed ($log)"; rc=1; return
  fi
  env "$@" ctest --test-dir "$b" --output-on-failure -j"$test_jobs" >>"$log" 2>&1 || rc=1
  say "  $name: $(grep -E 'tests passed|tests failed' "$log" | tail -1) in $((SECONDS - t0)) s;" \
    "failed: $(grep -vE '\((Disabled|Not Run)\)' "$log" | sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (.*)$/\1/p' | tr '\n' ' ')"
}
cfg=(); half werror build/werror
cfg=(-DKN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
half asan build/asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
say "  load at the end $(cut -d' ' -f1-3 /proc/loadavg); $([ $rc = 0 ] && echo clean || echo NOT clean)"
exit $rc
