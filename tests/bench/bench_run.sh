#!/usr/bin/env bash
# bench_run.sh — keynode's own overhead per attempt of `keynode run` (issue 14): N attempts (default 20)
# of a tests/sites task with a trivial agent (`true`: it exits at once, so everything measured is
# keynode's and the browser's) at --parallel 1, 2 and 4. Per parallelism: the median and p95 of
#   start  attempt start → agent started (browser launch + start page load + monitor attached and ready)
#   end    agent exit → result.json written (agent group stopped, recorders flushed, result written)
# with the start split into its parts (medians: browser up, start page loaded, monitor ready, agent
# spawned), and attempts per minute (wall clock of the whole run, browser shutdown included).
# Run by hand (tests never assert wall-clock times); appends its lines to RESULT_FILE.
#   tests/bench/bench_run.sh KEYNODE_BIN REPO_DIR [N] [RESULT_FILE]
set -u -o pipefail
kn=$1 repo=$(cd "$2" && pwd) n=${3:-20} out=${4:-/dev/null}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-run
export TMPDIR=$tmp
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$repo/tests/sites/tasks.yaml" >"$tmp/tasks.yaml"
machine="$(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"

# median FIELD-EXPRESSION over the attempts' result.json files
median() {
  jq -s "[.[] | .attempt | $1] | sort | if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end" \
    "$tmp/p$p"/*/*/result.json
}

for p in 1 2 4; do
  "$kn" run --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --repeat "$n" --parallel "$p" \
    --agent true --out "$tmp/p$p" --quiet
  rc=$?
  [ "$rc" = 0 ] || { kn_fail "keynode run --parallel $p: exit $rc"; continue; }
  s=$tmp/p$p/summary.json
  line=$(printf 'bench_run: %s attempts, parallel %d: start median %.3f s p95 %.3f s; end median %.3f s p95 %.3f s; %.1f attempts/min; start parts (medians): browser %.3f, start page %.3f, monitor ready %.3f, agent spawn %.4f s [%s]' \
    "$n" "$p" "$(jq .overhead.start_median_s "$s")" "$(jq .overhead.start_p95_s "$s")" \
    "$(jq .overhead.end_median_s "$s")" "$(jq .overhead.end_p95_s "$s")" "$(jq .attempts_per_minute "$s")" \
    "$(median .browser_s)" "$(median '.page_s - .browser_s')" "$(median '.ready_s - .page_s')" \
    "$(median '.overhead_start_s - .ready_s')" "$machine")
  echo "$line" | tee -a "$out"
done
kn_finish
