#!/bin/bash
# bench_guard_replay.sh — the count for a guarded workflow: `keynode replay --validate` of a
# checkout recorded under guard (tests/integration/guard.sh's `replay` part: the order held and never
# sent, the recorded held order checked on every replay) N times (default 20), with the server's own
# request log counting the orders that reached it. It runs the integration test — the same checks,
# nothing re-implemented — with KN_GUARD_REPLAYS=N, keeps its ok/FAIL lines, and sets them as the
# subsection "### LABEL" of RESULTS.md's section for this bench.
# usage: tests/bench/bench_guard_replay.sh KEYNODE SOURCE_DIR [N]
# env:   KN_BENCH_LABEL=TITLE  KN_BENCH_RESULTS_MD=FILE ("-": do not touch it)
kn=$1 src=$(cd "$2" && pwd) n=${3:-20}
md=${KN_BENCH_RESULTS_MD:-$src/tests/bench/RESULTS.md}
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
label=${KN_BENCH_LABEL:-"$(date -u +%Y-%m-%d\ %H:%M) UTC, keynode $commit"}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$(date +%s)
KN_GUARD_REPLAYS=$n "$src/tests/integration/guard.sh" "$kn" "$src" >"$log" 2>&1
rc=$?
machine="$(nproc) cores, load $load0 → $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - t0)) s for the whole test"
grep -q '^ok   replay: passed' "$log" || grep -q '^FAIL replay' "$log" ||
  { echo "bench_guard_replay: the test never replayed (exit $rc):" >&2; tail -20 "$log" >&2; exit 1; }
echo "# bench_guard_replay $label; N=$n; $machine; test exit $rc"
grep -E '^(ok  |FAIL) ' "$log"
[ "$md" = - ] && exit "$rc"
{
  printf '### %s\n\n' "$label"
  printf '`tests/bench/bench_guard_replay.sh`: tests/integration/guard.sh with KN_GUARD_REPLAYS = %s. Machine: %s; test exit %s.\n\n' "$n" "$machine" "$rc"
  grep -E '^(ok  |FAIL) (record|replay)' "$log" | sed 's/^ok   /- ok: /; s/^FAIL /- **FAIL**: /'
} | "$src/tests/bench/results_md.py" "$md" '## Guarded replay validation — `tests/bench/bench_guard_replay.sh` (issue 23)' "$label" \
  'A checkout recorded under guard (the order held, its fields the click'"'"'s postcondition, the card and CVC secrets) replayed with `keynode replay --validate` N times; the sites server'"'"'s request log counts the orders that reached it.'
exit "$rc"
