#!/usr/bin/env bash
# bench_workers.sh — queue benchmarks on a private PostgreSQL (tests/integration/lib.sh):
#   1. job claim throughput: bench_jobs with 4 claimers (claim + complete of an empty job body);
#   2. total validation time of a batch of N local replays (a 2-step task on tests/sites) with 1, 2 and 4
#      `keynode worker --once` processes, each starting its own headless Chromium.
# Run by hand (tests never assert wall-clock times); appends its lines to RESULT_FILE.
#   tests/bench/bench_workers.sh KEYNODE_BIN BENCH_JOBS_BIN WORKER_QUEUE_BIN REPO_DIR [N (default 40)] [RESULT_FILE]
set -u -o pipefail
kn=$1 bj=$2 wq=$3 repo=$(cd "$4" && pwd) n=${5:-40} out=${6:-/dev/null}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-workers
export TMPDIR=$tmp
kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
echo "health: { broken_after: 2 }" >"$tmp/keynode.yaml"
"$kn" migrate --config "$tmp/keynode.yaml" >/dev/null 2>&1 || { kn_fail "migrate"; kn_finish; }
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
machine="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

"$bj" "$KN_PG_URL" 5000 4 | tee -a "$out" || kn_fail "bench_jobs"

cat >"$tmp/tasks.yaml" <<EOF
tasks:
  - id: forum-open-post
    intent: "Open the forum post about stoves"
    start_url: http://127.0.0.1:$port/forum/
    key_nodes:
      - id: post
        url: { key: id, exact: "3" }
    steps:
      - goto: http://127.0.0.1:$port/forum/
      - click: { selector: "#post-3 a.post-title", text: "Winter camping stove advice" }
EOF
ver=$("$wq" put "$KN_PG_URL" bench "$tmp/tasks.yaml" | awk '{print $2}')
for workers in 1 2 4; do
  "$wq" enqueue "$KN_PG_URL" "$ver" "$n" "bench-$workers" >"$tmp/jobs" || kn_fail "enqueue"
  first=$(head -1 "$tmp/jobs")
  t0=$(date +%s.%N)
  pids=()
  for i in $(seq 1 $workers); do
    "$kn" worker --config "$tmp/keynode.yaml" --id "b$workers-$i" --once 2>>"$tmp/workers.log" &
    pids+=($!); kn_pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; kn_forget "$p"; done
  t1=$(date +%s.%N)
  done_n=$(kn_psql "SELECT count(*) FROM jobs WHERE id >= $first AND state = 'done'")
  passed=$(kn_psql "SELECT count(*) FROM replay_results WHERE job_id >= $first AND status = 'passed'")
  line=$(awk -v w="$workers" -v n="$n" -v a="$t0" -v b="$t1" -v d="$done_n" -v p="$passed" -v m="$machine" \
    'BEGIN { printf "bench_workers %s: %d replays, %d workers: %.1f s total, %.2f s/replay, %.2f replays/s (done %d, passed %d)", m, n, w, b - a, (b - a) / n, n / (b - a), d, p }')
  echo "$line" | tee -a "$out"
  [ "$done_n" = "$n" ] || kn_fail "$workers workers: $done_n of $n done"
done
kn_finish
