#!/bin/bash
# bench_replay.sh — replay wall time side by side with a bare Playwright script, against
# `keynode sites` and one private headless Chromium, in one run on one machine:
#   keynode  `keynode replay --validate --task shop-red-runner-cart` end to end: the whole process
#            (start, task file, connect, fresh context, monitor attach, 5 steps — goto, type + Enter,
#            click, select, click — key nodes scored, verdict, context disposed);
#   pw       tests/bench/bench_replay_pw.mjs: the same five steps with playwright-core in a fresh
#            context, each waiting for the outcome keynode checks (the URL a step leads to, the
#            "Added" notice), from connectOverCDP to the disconnect (node's own start-up not
#            counted: the strict comparison); pw_proc is the same node process's whole wall time.
#            tests/bench/bench_falsealarm.sh compares the same way on the false-alarm corpus;
#   kn_wf    the same replay with tests/bench/workflows/shop-red-runner-cart.yaml, the task's steps with the
#            postconditions `keynode record` writes: keynode then knows each step's outcome as the Playwright
#            script does (the like-for-like comparison; the inline steps have none, so keynode gives an action
#            that changed nothing yet its consequence window, e.g. 500 ms after the select).
# The two alternate, N runs each (default 10); a run that does not pass counts as a failure, not a
# time. Prints the medians, min/max and the ratio keynode / pw; appends one line to RESULT_FILE.
# KN_BENCH_BEFORE=OTHER_KEYNODE adds a third runner in the same rotation (an older build: before/after).
# Tests never assert times; neither does this.
# usage: tests/bench/bench_replay.sh KEYNODE SOURCE_DIR [N] [RESULT_FILE]
kn=$1 src=$(cd "$2" && pwd) n=${3:-10} out=${4:-/dev/stdout}
. "$src/tests/integration/lib.sh"
kn_lib_init bench-replay
"$src/tests/integration/node/ensure.sh" || { kn_fail "node packages missing"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$src/tests/sites/tasks.yaml" >"$tmp/tasks.yaml"
mkdir -p "$tmp/wf"
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$src/tests/bench/workflows/shop-red-runner-cart.yaml" >"$tmp/wf/shop-red-runner-cart.yaml"
ms_now() { echo $(($(date +%s%N) / 1000000)); }
kn_t=() pw_t=() pwp_t=() before_t=() wf_t=()
before=${KN_BENCH_BEFORE:-}
for i in $(seq 1 "$n"); do
  if [ -n "$before" ]; then
    t0=$(ms_now)
    if "$before" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart \
      >"$tmp/before.out" 2>&1; then
      before_t+=($(($(ms_now) - t0)))
    else
      kn_fail "before run $i did not pass: $(tail -2 "$tmp/before.out")"
    fi
  fi
  t0=$(ms_now)
  if "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart \
    >"$tmp/kn.out" 2>&1; then
    kn_t+=($(($(ms_now) - t0)))
  else
    kn_fail "keynode run $i did not pass: $(tail -2 "$tmp/kn.out")"
  fi
  t0=$(ms_now)
  if "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart \
    --workflows "$tmp/wf" >"$tmp/wf.out" 2>&1; then
    wf_t+=($(($(ms_now) - t0)))
  else
    kn_fail "keynode workflow run $i did not pass: $(tail -2 "$tmp/wf.out")"
  fi
  t0=$(ms_now)
  if node "$src/tests/bench/bench_replay_pw.mjs" "$cdp" "http://127.0.0.1:$port" >"$tmp/pw.out" 2>&1; then
    pwp_t+=($(($(ms_now) - t0)))
    pw_t+=($(sed -n 's/.*"ms":\([0-9]*\).*/\1/p' "$tmp/pw.out"))
  else
    kn_fail "playwright run $i failed: $(tail -2 "$tmp/pw.out")"
  fi
done
# median VALUES… — the median (0 for none)
median() {
  local s=($(printf '%s\n' "$@" | sort -n)) c=$#
  [ "$c" -gt 0 ] || { echo 0; return; }
  if [ $((c % 2)) = 1 ]; then echo "${s[$((c / 2))]}"; else echo $(((s[c / 2 - 1] + s[c / 2]) / 2)); fi
}
# stats NAME VALUES… — "NAME runs=… median=… min=… max=…"
stats() {
  local name=$1
  shift
  local s=($(printf '%s\n' "$@" | sort -n))
  printf '%s runs=%d median=%d min=%d max=%d' "$name" $# "$(median "$@")" "${s[0]:-0}" "${s[$(($# - 1))]:-0}"
}
a=$(stats keynode_ms "${kn_t[@]}") kmed=$(median "${kn_t[@]}")
b=$(stats pw_ms "${pw_t[@]}") pmed=$(median "${pw_t[@]}")
c=$(stats pw_proc_ms "${pwp_t[@]}") ppmed=$(median "${pwp_t[@]}")
ratio=$(awk -v k="$kmed" -v p="$pmed" 'BEGIN { printf "%.2f", p ? k / p : 0 }')
w=$(stats keynode_wf_ms "${wf_t[@]}") wratio=$(awk -v k="$(median "${wf_t[@]}")" -v p="$pmed" 'BEGIN { printf "%.2f", p ? k / p : 0 }')
ratio_proc=$(awk -v k="$kmed" -v p="$ppmed" 'BEGIN { printf "%.2f", p ? k / p : 0 }')
[ -n "$before" ] && c="$c | $(stats before_ms "${before_t[@]}") before_ratio=$(awk -v k="$(median "${before_t[@]}")" -v p="$pmed" 'BEGIN { printf "%.2f", p ? k / p : 0 }')"
line="replay_5step $a | $w | $b | $c | ratio=$ratio wf_ratio=$wratio ratio_vs_proc=$ratio_proc load=\"$(cut -d' ' -f1-3 /proc/loadavg)\" cores=$(nproc)"
echo "$line"
[ "$out" = /dev/stdout ] || echo "$line" >>"$out"
kn_finish
