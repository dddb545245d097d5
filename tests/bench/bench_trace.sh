#!/usr/bin/env bash
# bench_trace.sh — what the run trace costs the agent: two headless Chromiums side by side, one
# watched by `keynode watch --trace on`, one by `keynode watch --trace off`, driven by ONE Playwright agent
# (bench_trace.mjs) that alternates between them and times every action as it sees it (select, fill, click
# without navigation; goto). Prints, per action kind, the median and p90 of the agent-visible delay with
# tracing on and off and the difference; and the trace's bytes per step (screenshots + index) with the
# screenshots taken and skipped. Run by hand (tests never assert wall-clock times); appends to RESULT_FILE.
#   tests/bench/bench_trace.sh KEYNODE_BIN REPO_DIR [ROUNDS] [RESULT_FILE]
set -u -o pipefail
kn=$1 repo=$(cd "$2" && pwd) rounds=${3:-40} out=${4:-/dev/null}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-trace
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
"$repo/tests/integration/node/ensure.sh" >/dev/null || { kn_fail "node/ensure.sh failed"; kn_finish; }
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
sed "s#http://127.0.0.1:8100#$base#g" "$repo/tests/sites/tasks.yaml" >"$tmp/tasks.yaml"
machine="$(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A cdps wpids
for side in on off; do
  mkdir -p "$tmp/$side"
  kn_chromium_start "$tmp/$side" || kn_finish
  cdps[$side]=$cdp
  "$kn" watch --browser "$devtools_file" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --quiet \
    --step-limit -1 --trajectory "$tmp/$side/run.jsonl" --out "$tmp/$side/result.json" --trace "$side" \
    >"$tmp/$side/watch.out" 2>"$tmp/$side/watch.err" &
  wpids[$side]=$!
  kn_pids+=("${wpids[$side]}")
done
sleep 1 # both monitors attach (they print nothing with --quiet; the first actions would be seen anyway)
node "$repo/tests/bench/bench_trace.mjs" "${cdps[on]}" "${cdps[off]}" "$base" "$rounds" >"$tmp/times.json" 2>"$tmp/agent.err" ||
  { kn_fail "agent: $(tail -3 "$tmp/agent.err")"; kn_finish; }
for side in on off; do kill -INT "${wpids[$side]}"; wait "${wpids[$side]}"; kn_forget "${wpids[$side]}"; done
idx=$tmp/on/run.trace/index.json
[ -s "$idx" ] || { kn_fail "no trace written: $(tail -3 "$tmp/on/watch.err")"; kn_finish; }
q='def med: sort | if length == 0 then 0 elif length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
   def p90: sort | if length == 0 then 0 else .[(length * 0.9 | floor) - (if length * 0.9 == (length * 0.9 | floor) then 1 else 0 end)] end;
   . as $d | ["select", "fill", "click", "goto"] | map(. as $k |
     "\($k): on median \($d.on[$k] | med * 100 | round / 100) ms p90 \($d.on[$k] | p90 * 100 | round / 100) ms, off median \($d.off[$k] | med * 100 | round / 100) ms p90 \($d.off[$k] | p90 * 100 | round / 100) ms (n=\($d.on[$k] | length))") | join("; ")'
steps=$(jq '[.steps[] | select(.step > 0)] | length' "$idx")
bytes=$(du -sb "$tmp/on/run.trace" | cut -f1)
line="bench_trace: $rounds rounds: $(jq -r "$q" "$tmp/times.json"); trace: $steps steps, $(jq .capture.shots "$idx") screenshots, $(jq .capture.skipped "$idx") skipped, $((bytes / (steps > 0 ? steps : 1))) bytes/step ($(jq '[.steps[].screenshot_bytes // empty] | add / length | floor' "$idx") per screenshot, index $(stat -c %s "$idx") bytes) [$machine]"
echo "$line" | tee -a "$out"
kn_finish
