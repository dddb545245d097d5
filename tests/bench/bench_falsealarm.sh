#!/bin/bash
# bench_falsealarm.sh — the false-alarm benchmark on the corpus of tests/sites/async:
# `keynode replay --validate` of each unchanged task N times (default 20, round robin over the tasks) and of each changed one
# (tests/sites/async-v2 laid over a copy) once, in each MODE (inline: the task file's steps; after: the same
# steps as workflows with postconditions, tests/sites/async/postconditions). Per task and in total:
#   false alarms   unchanged replays not `passed` (a passed replay with drift is counted apart: `drift`)
#   missed breaks  changed replays `passed`
#   right step     changed replays `broken` at the step, reason and key node of async-v2/expected.json
# and the honest speed comparison: keynode's wall time per unchanged replay (the whole process) against
# tests/bench/bench_replay_pw.mjs, a bare Playwright script doing the same steps and waiting for the same
# outcomes (KN_BENCH_PW runs per task, default 5, alternating with keynode's; medians of the passing runs;
# ratio = keynode / Playwright, in every mode: with postconditions (after) keynode knows each step's outcome as the
# script does — the like-for-like ratio; inline steps have none), also for the old fixture (tests/sites shop-red-runner-cart). One private
# headless Chromium, `keynode sites`, one replay at a time.
# Writes one line per task and mode plus a total to RESULT_FILE (default ./bench_falsealarm.txt, appended),
# keeps the report of every false alarm and wrong verdict in RESULT_FILE's name + "-reports/" (MODE-TASK-RUN.json)
# and the same table as a subsection of tests/bench/RESULTS.md's "False alarms" section (replaced when a
# subsection of the same title exists). Benchmarks never assert times; exit 0 unless the bench itself failed.
# usage: tests/bench/bench_falsealarm.sh KEYNODE SOURCE_DIR [N] [RESULT_FILE]
# env:   KN_BENCH_MODES="inline after"  KN_BENCH_ONLY="TASK …"  KN_BENCH_PW=5 (0: no Playwright runs)
#        KN_BENCH_LABEL=TITLE (default: date, commit, load)  KN_BENCH_RESULTS_MD=FILE ("-": do not touch it)
kn=$1 src=$(cd "$2" && pwd) n=${3:-20} out=${4:-$PWD/bench_falsealarm.txt}
. "$src/tests/integration/lib.sh"
kn_lib_init bench-falsealarm
"$src/tests/integration/node/ensure.sh" >/dev/null || { kn_fail "node packages missing"; kn_finish; }
corpus=$src/tests/sites/async
exp=$src/tests/sites/async-v2/expected.json
modes=${KN_BENCH_MODES:-inline after}
tasks=${KN_BENCH_ONLY:-$(jq -r 'keys[] | select(startswith("_") | not)' "$exp")}
npw=${KN_BENCH_PW:-5}
md=${KN_BENCH_RESULTS_MD:-$src/tests/bench/RESULTS.md}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
label=${KN_BENCH_LABEL:-"$(date -u +%Y-%m-%d\ %H:%M) UTC, keynode $commit"}

kn_chromium_start "$tmp" || kn_finish
kn_sites_overlay "$corpus" "$src/tests/sites/async-v2" "$tmp/v2root" || { kn_fail "cannot build the changed site"; kn_finish; }
kn_sites_start "$kn" "$corpus" "$tmp/sites-v1.log" || kn_finish
port1=$port
kn_sites_start "$kn" "$tmp/v2root" "$tmp/sites-v2.log" || kn_finish
port2=$port
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites-old.log" || kn_finish
port_old=$port
for v in 1 2; do
  eval "p=\$port$v"
  sed "s/127\.0\.0\.1:8100/127.0.0.1:$p/g" "$corpus/tasks.yaml" >"$tmp/tasks-v$v.yaml"
  mkdir -p "$tmp/after-v$v"
  for f in "$corpus"/postconditions/*.yaml; do
    sed "s/127\.0\.0\.1:8100/127.0.0.1:$p/g" "$f" >"$tmp/after-v$v/$(basename "$f")"
  done
done
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port_old/g" "$src/tests/sites/tasks.yaml" >"$tmp/tasks-old.yaml"

keep=${out%.txt}-reports
mkdir -p "$keep"
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# median VALUES… — the median (0 for none)
median() {
  local s=($(printf '%s\n' "$@" | sort -n)) c=$#
  [ "$c" -gt 0 ] || { echo 0; return; }
  if [ $((c % 2)) = 1 ]; then echo "${s[$((c / 2))]}"; else echo $(((s[c / 2 - 1] + s[c / 2]) / 2)); fi
}
# replay OUT TASKFILE TASK [ARGS…] — one validation; sets ms (its wall time) and st (the report's JSON)
replay() {
  local o=$1 f=$2 t=$3 t0
  shift 3
  rm -rf "$o" && mkdir -p "$o"
  t0=$(ms_now)
  "$kn" replay --validate --quiet --no-repairs --browser "$cdp" --tasks "$f" --task "$t" --out "$o" "$@" >"$o/out" 2>&1
  ms=$(($(ms_now) - t0))
  st=$(jq -c '{status, drift: (.replay.drift | length), broken: (.broken // {} | {step, reason, key_node})}' "$o/$t.json" 2>/dev/null ||
    echo '{"status": "none"}')
}
# pw TASK_OR_EMPTY BASE — one Playwright run; sets pms (its in-process wall time, empty when it failed)
pw() {
  pms=
  node "$src/tests/bench/bench_replay_pw.mjs" "$cdp" "$2" $1 >"$tmp/pw.out" 2>&1 &&
    pms=$(sed -n 's/.*"ms":\([0-9]*\).*/\1/p' "$tmp/pw.out")
  [ -n "$pms" ] || echo "playwright ${1:-old fixture}: $(tail -1 "$tmp/pw.out")" >>"$tmp/notes"
}
: >"$tmp/rows" && : >"$tmp/notes"
tot_runs=0 tot_fa=0 tot_drift=0 tot_leak=0 tot_missed=0 tot_right=0 tot_broken=0
# leaked REPORT_FILE — a key node counted before the first step: a page of another validation (an earlier
# replay's late navigation) was scored in this one. Such a verdict cannot be trusted either way; the tasks
# run round robin (never the same task twice in a row) so that it does not turn into a false pass here.
leaked() { jq -e '[.key_nodes[]? | select(.reached_at_step == 0)] | length > 0' "$1" >/dev/null 2>&1; }
declare -A pts=() # Playwright's times per task, taken in the first mode's rounds: every mode is compared with them
for mode in $modes; do
  w1= w2= key=step
  [ "$mode" = after ] && w1=$tmp/after-v1 w2=$tmp/after-v2 key=step_after
  declare -A kts=() fas=() drifts=() leaks=()
  for i in $(seq 1 "$n"); do
    for t in $tasks; do
      replay "$tmp/r" "$tmp/tasks-v1.yaml" "$t" ${w1:+--workflows "$w1"}
      leaked "$tmp/r/$t.json" && { leaks[$t]=$((${leaks[$t]:-0} + 1)); echo "$mode $t run $i: leak: $st" >>"$tmp/notes"; }
      if [ "$(jq -r .status <<<"$st")" = passed ]; then
        kts[$t]="${kts[$t]:-} $ms"
        [ "$(jq -r .drift <<<"$st")" = 0 ] || drifts[$t]=$((${drifts[$t]:-0} + 1))
      else
        fas[$t]=$((${fas[$t]:-0} + 1))
        echo "$mode $t run $i: $st" >>"$tmp/notes"
        cp "$tmp/r/$t.json" "$keep/$mode-$t-$i.json" 2>/dev/null
      fi
      if [ "$mode" = "${modes%% *}" ] && [ "$i" -le "$npw" ]; then
        pw "$t" "http://127.0.0.1:$port1"
        [ -n "$pms" ] && pts[$t]="${pts[$t]:-} $pms"
      fi
    done
  done
  for t in $tasks; do
    replay "$tmp/r" "$tmp/tasks-v2.yaml" "$t" ${w2:+--workflows "$w2"}
    e=$(jq -c --arg t "$t" --arg k "$key" '.[$t] | {status, step: (if has($k) then .[$k] else .step end), reason, key_node}' "$exp")
    missed=0 right=0
    [ "$(jq -r .status <<<"$st")" = passed ] && missed=1
    jq -e --argjson e "$e" '.status == $e.status and .broken == {step: $e.step, reason: $e.reason, key_node: $e.key_node}' \
      <<<"$st" >/dev/null && right=1
    leaked "$tmp/r/$t.json" && { leaks[$t]=$((${leaks[$t]:-0} + 1)); echo "$mode $t changed: leak" >>"$tmp/notes"; }
    [ "$right" = 1 ] || { echo "$mode $t changed: got $st, want $e" >>"$tmp/notes"; cp "$tmp/r/$t.json" "$keep/$mode-$t-changed.json" 2>/dev/null; }
    kt=(${kts[$t]:-}) pt=(${pts[$t]:-})
    fa=${fas[$t]:-0} drift=${drifts[$t]:-0} leak=${leaks[$t]:-0}
    km=$(median "${kt[@]}") pm=$(median "${pt[@]}")
    ratio=-
    [ "${#pt[@]}" -gt 0 ] && [ "${#kt[@]}" -gt 0 ] &&
      ratio=$(awk -v k="$km" -v p="$pm" 'BEGIN { printf "%.2f", k / p }')
    [ "${#pt[@]}" -gt 0 ] || pm=-
    [ "${#kt[@]}" -gt 0 ] || km=-
    printf '%s %s runs=%d false_alarms=%d drift=%d leaks=%d missed_break=%d right_step=%d keynode_ms=%s pw_ms=%s ratio=%s\n' \
      "$t" "$mode" "$n" "$fa" "$drift" "$leak" "$missed" "$right" "$km" "$pm" "$ratio" | tee -a "$tmp/rows"
    tot_runs=$((tot_runs + n)) tot_fa=$((tot_fa + fa)) tot_drift=$((tot_drift + drift)) tot_leak=$((tot_leak + leak))
    tot_missed=$((tot_missed + missed)) tot_right=$((tot_right + right)) tot_broken=$((tot_broken + 1))
  done
  unset kts fas drifts leaks
done
# the old fixture: keynode and the outcome-waiting script alternate (KN_BENCH_PW=0: left out)
kt=() pt=()
for i in $(seq 1 "$npw"); do
  replay "$tmp/r" "$tmp/tasks-old.yaml" shop-red-runner-cart
  [ "$(jq -r .status <<<"$st")" = passed ] && kt+=("$ms") || echo "old fixture run $i: $st" >>"$tmp/notes"
  pw "" "http://127.0.0.1:$port_old"
  [ -n "$pms" ] && pt+=("$pms")
done
km=$(median "${kt[@]}") pm=$(median "${pt[@]}") ratio=-
[ "${#pt[@]}" -gt 0 ] && [ "${#kt[@]}" -gt 0 ] && ratio=$(awk -v k="$km" -v p="$pm" 'BEGIN { printf "%.2f", k / p }')
[ "$npw" -gt 0 ] &&
  printf 'shop-red-runner-cart(tests/sites) inline runs=%d keynode_ms=%s pw_ms=%s ratio=%s\n' "$npw" "$km" "$pm" "$ratio" | tee -a "$tmp/rows"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
total="total runs=$tot_runs false_alarms=$tot_fa drift=$tot_drift leaks=$tot_leak missed_breaks=$tot_missed/$tot_broken right_step=$tot_right/$tot_broken"
for mode in $modes; do # the median of the corpus tasks' ratios, per mode
  r=$(awk -v m="$mode" '$2 == m { for (i = 3; i <= NF; i++) if ($i ~ /^ratio=[0-9]/) { sub("ratio=", "", $i); print $i } }' "$tmp/rows" | sort -n)
  [ -n "$r" ] && total="$total ratio_median_$mode=$(awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' <<<"$r")"
done
machine="$(nproc) cores, $cpu, load $load0 → $load1"
echo "$total"
{
  echo "# bench_falsealarm $label; N=$n modes=$modes; $machine"
  cat "$tmp/rows"
  echo "$total"
  sed 's/^/# note: /' "$tmp/notes"
} >>"$out"

# RESULTS.md: the subsection "### LABEL" of the section below, replaced or appended (results_md.py)
head='## False alarms on sites that did not change — `tests/bench/bench_falsealarm.sh` (issue 22)'
intro='Each task of the corpus tests/sites/async (tests/sites/async-v2/EXPECTED.md) replayed N times unchanged and once changed, per mode (inline: the task file'"'"'s steps; after: workflows with postconditions). false alarms: unchanged replays not passed (of N); drift: passed with a drift warning; leaks: reports with a key node counted before the first step (a page of an earlier validation scored in this one: see the notes); missed: the changed replay passed; right step: the changed replay broken at the expected step, reason and key node. keynode/Playwright: median wall time of the passing unchanged replays (whole keynode process) and of tests/bench/bench_replay_pw.mjs (same steps, waiting for the same outcomes; node start-up not counted); ratio = keynode / Playwright. Run: `tests/bench/bench_falsealarm.sh KEYNODE . [N] [RESULT_FILE]`.'
if [ "$md" != - ]; then
  python3 - "$label" "$n" "$modes" "$machine" "$tmp/rows" "$total" "$tmp/notes" <<'EOF' |
import sys
label, n, modes, machine, rows, total, notes = sys.argv[1:]
out = [f"### {label}", "", f"N = {n}, modes: {modes}. Machine: {machine}.", "",
       "| task | mode | false alarms | drift | leaks | missed break | right step | keynode ms | Playwright ms | ratio |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for line in open(rows):
    f = line.split()
    kv = dict(x.split("=", 1) for x in f[2:])
    if "false_alarms" in kv:
        out.append(f"| `{f[0]}` | {f[1]} | {kv['false_alarms']}/{kv['runs']} | {kv['drift']} | {kv['leaks']} | {'**yes**' if kv['missed_break'] == '1' else 'no'} | "
                   f"{'yes' if kv['right_step'] == '1' else '**no**'} | {kv['keynode_ms']} | {kv['pw_ms']} | {kv['ratio']} |")
    else:
        out.append(f"| `{f[0]}` | {f[1]} | | | | | | {kv['keynode_ms']} | {kv['pw_ms']} | {kv['ratio']} |")
out += ["", f"**{total}**", ""]
nl = [l.rstrip("\n") for l in open(notes)]
nl = [l for l in nl if "changed" in l or "leak" in l or "playwright" in l]
if nl:
    out += ["Wrong verdicts on the changed site and leaks (every false alarm is in the result file):", ""] + [f"- {l}" for l in nl[:30]] + [""]
print("\n".join(out))
EOF
    "$src/tests/bench/results_md.py" "$md" "$head" "$label" "$intro" || kn_fail "RESULTS.md not updated"
fi
kn_finish
