#!/usr/bin/env bash
# bench_run.sh — keynode's own overhead per attempt of `keynode run`: N attempts (default 20)
# of a tests/sites task at --parallel 1, 2 and 4, "before" and "after" side by side in one run (same
# machine, same load, so their ratio means something):
#   before  the full Chromium (/usr/lib/chromium/chromium --headless) launched at each attempt's start
#           (--warm 0): what `keynode run` did until this session
#   after   the defaults: chromium-headless-shell when installed, and the warm pool (--warm = --parallel:
#           each attempt's fresh private browser launched ahead of time on its start page)
# and each with two trivial agents: `true` (exits at once: attempts come as fast as the 2 cores can
# launch browsers, the pool is always empty — the worst case) and `sleep 3` (an agent that works 3 s:
# the pool fills while agents work, as with any real agent). Per run the median and p95 of
#   start  attempt start → agent started. The attempt starts when a slot dequeues it, before it waits for
#          its browser: browser launch or pool wait + start page loaded + monitor attached and ready
#   end    agent exit → result.json written (agent group stopped, recorders flushed, result written)
# with the start split into its parts (medians: browser, start page, monitor ready), attempts per minute
# (wall clock of the whole run, pool start and browser shutdown included), and the peak memory of the
# run's browsers (the sum of their processes' PSS, sampled each second).
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

# median FIELD-EXPRESSION over the attempts' result.json files of $d
median() {
  jq -s "[.[] | .attempt | $1] | sort | if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end" \
    "$d"/*/*/result.json
}
# pss_of_run — the summed PSS (kB) of this run's browsers: every Chromium process (browser, renderers,
# utilities) names its profile, $tmp/keynode-worker-…, on its command line. One pgrep and one awk per
# sample, so the sampling does not load the machine it measures.
pss_of_run() {
  local pids
  pids=$(pgrep -f -- "--user-data-dir=$tmp/keynode-worker-" | sed 's|.*|/proc/&/smaps_rollup|')
  [ -n "$pids" ] || { echo 0; return; }
  # shellcheck disable=SC2086
  awk '/^Pss:/ {s += $2} END {print s + 0}' $pids 2>/dev/null || echo 0
}

IFS="|" read -r -a bench_agents <<<"${BENCH_RUN_AGENTS:-true|sleep 3}" # the agents, "|"-separated
for agent in "${bench_agents[@]}"; do
  for p in 1 2 4; do
    for variant in before after; do
      case $variant in
        before) args=(--chromium /usr/lib/chromium/chromium --warm 0) ;;
        after) args=() ;;
      esac
      d=$tmp/$variant-p$p-${agent%% *}
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      "$kn" run --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --repeat "$n" --parallel "$p" \
        "${args[@]}" --agent "$agent" --out "$d" --quiet &
      rpid=$!
      peak=0
      while kill -0 "$rpid" 2>/dev/null; do
        m=$(pss_of_run)
        [ "$m" -gt "$peak" ] && peak=$m
        sleep 1
      done
      wait "$rpid"
      rc=$?
      [ "$rc" = 0 ] || { kn_fail "keynode run $variant --parallel $p --agent '$agent': exit $rc"; continue; }
      s=$d/summary.json
      line=$(printf 'bench_run: %s, agent `%s`, %s attempts, parallel %d: start median %.3f s p95 %.3f s; end median %.3f s p95 %.3f s; %.1f attempts/min; peak memory %d MB; start parts (medians): browser %.3f, start page %.3f, monitor ready %.3f s [%s cores, load %s]' \
        "$variant" "$agent" "$n" "$p" "$(jq .overhead.start_median_s "$s")" "$(jq .overhead.start_p95_s "$s")" \
        "$(jq .overhead.end_median_s "$s")" "$(jq .overhead.end_p95_s "$s")" "$(jq .attempts_per_minute "$s")" \
        $((peak / 1024)) "$(median .browser_s)" "$(median '.page_s - .browser_s')" "$(median '.ready_s - .page_s')" \
        "$(nproc)" "$load")
      echo "$line" | tee -a "$out"
    done
  done
done
kn_finish
