#!/bin/bash
# bench_falsealarm_ways.sh — the false-alarm benchmark's acceptance count for the ways a replay reaches
# keynode besides the task file's steps: workflows `keynode record` wrote while a Playwright agent
# did each task (record), and `keynode worker` replay jobs queued through `keynode serve` on a private
# PostgreSQL (worker); with `after` also the hand-written postcondition workflows. It runs the integration
# test tests/integration/falsealarm.sh — the same checks, nothing re-implemented — with N repeats of every
# unchanged task per way (default 20) and each changed task once, and keeps its per-way summary lines
# (false alarms of the unchanged replays; changed tasks broken at the expected step) and every FAIL line.
# Appends them to RESULT_FILE and sets them as the subsection "### LABEL" of RESULTS.md's "False alarms"
# section (the wall-time comparison is bench_falsealarm.sh's: a worker's replay has no process of its own).
# usage: tests/bench/bench_falsealarm_ways.sh KEYNODE SOURCE_DIR [N] [RESULT_FILE]
# env:   KN_BENCH_WAYS="record worker"  KN_BENCH_LABEL=TITLE  KN_BENCH_RESULTS_MD=FILE ("-": do not touch it)
kn=$1 src=$(cd "$2" && pwd) n=${3:-20} out=${4:-$PWD/bench_falsealarm.txt}
ways=${KN_BENCH_WAYS:-record worker}
md=${KN_BENCH_RESULTS_MD:-$src/tests/bench/RESULTS.md}
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
label=${KN_BENCH_LABEL:-"$(date -u +%Y-%m-%d\ %H:%M) UTC, keynode $commit, ways: $ways"}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
KN_FALSEALARM_REPEATS=$n KN_FALSEALARM_PARTS=$ways "$src/tests/integration/falsealarm.sh" "$kn" "$src" >"$log" 2>&1
rc=$?
machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load $load0 → $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - t0)) s"
grep -q '^summary ' "$log" || { echo "bench_falsealarm_ways: the test gave no summary (exit $rc):" >&2; tail -20 "$log" >&2; exit 1; }
{
  echo "# bench_falsealarm_ways $label; N=$n; $machine; test exit $rc"
  grep -E '^(summary|FAIL) ' "$log"
} | tee -a "$out"
[ "$md" = - ] && exit 0
python3 - "$label" "$n" "$machine" "$log" <<'EOF' |
import sys
label, n, machine, log = sys.argv[1:]
lines = [l.rstrip("\n") for l in open(log)]
out = [f"### {label}", "", f"`tests/bench/bench_falsealarm_ways.sh`: tests/integration/falsealarm.sh with N = {n} replays of every "
       f"unchanged task per way and every changed task once. Machine: {machine}.", ""]
out += [f"- {l[len('summary '):]}" for l in lines if l.startswith("summary ")]
fails = [l for l in lines if l.startswith("FAIL ")]
out += [""] + ([f"Failures ({len(fails)}):", ""] + [f"- {l[5:]}" for l in fails[:30]] if fails else ["No failure."])
print("\n".join(out))
EOF
  "$src/tests/bench/results_md.py" "$md" '## False alarms on sites that did not change — `tests/bench/bench_falsealarm.sh` (issue 22)' "$label"
