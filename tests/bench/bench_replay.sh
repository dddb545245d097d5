#!/bin/bash
# bench_replay.sh — wall time of one replay validation of a 6-step local task (forum-new-post:
# goto, click, type, type, select, click) against `keynode sites` and a private headless Chromium:
# `keynode replay --validate` end to end (connect, fresh context, monitor attach, six steps, verdict,
# context disposed), N runs, min / median / max. Target: ≤ 3 s.
# usage: tests/bench/bench_replay.sh KEYNODE SOURCE_DIR [N] [RESULT_FILE]
kn=$1 src=$2 n=${3:-10} out=${4:-/dev/stdout}
. "$src/tests/integration/lib.sh"
kn_lib_init bench-replay
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$src/tests/sites/tasks.yaml" >"$tmp/tasks.yaml"
times=()
for i in $(seq 1 "$n"); do
  t0=$(date +%s%N)
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task forum-new-post >/dev/null 2>&1 ||
    { kn_fail "run $i did not pass"; continue; }
  times+=($(( ($(date +%s%N) - t0) / 1000000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
cnt=${#sorted[@]}
[ "$cnt" -gt 0 ] && printf 'replay_6step_ms runs=%d min=%d median=%d max=%d load="%s"\n' "$cnt" "${sorted[0]}" \
  "${sorted[$((cnt / 2))]}" "${sorted[$((cnt - 1))]}" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
kn_finish
