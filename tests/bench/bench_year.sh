#!/usr/bin/env bash
# bench_year.sh — a year of a Mind2Web-Live-sized operation in PostgreSQL, and what it does to the
# dashboard and the API. On a private cluster (tests/integration/lib.sh):
#   1. `keynode migrate` with the migrations before CUT (KN_YEAR_CUT, default the newest migration's number:
#      the schema a deployment had before the newest change), `keynode serve`,
#      the 104 Mind2Web-Live test tasks uploaded through POST /api/tasksets as a set of 542 (the size of
#      Mind2Web-Live; ids 0–541, the test split cycled), then again with 54 intents changed (new versions);
#   2. tests/bench/bench_year_gen.sql fills it: every task replayed nightly for DAYS days (≈ 198k replays
#      at full scale), BATCHES agent batches × 542 tasks × 3 repeats, events and results copied from
#      real keynode output, failed replays with a 100 KB screenshot;
#   3. `keynode migrate` on the filled database (applies CUT and later), timed;
#      then an idle agent worker stores every finished batch's page and packed attempts, timed;
#   4. a loopback `keynode serve`: each dashboard page (a batch's also on its first read, which computes
#      what a worker would have stored when the batch's last attempt landed) (the requests it makes when it opens, issued
#      one after another on one connection: the page's time is their sum) and each API listing, N times
#      with curl, p50/p99; /api/tasks also uncached (a NOTIFY keynode_change before each request);
#   5. sizes: database, per table, bytes per event (events' heap + indexes + TOAST / rows);
#   6. `keynode prune --dry-run`, then `keynode prune` with `retention:` (events of agent and replay
#      runs older than 90 days × scale), timed, and the sizes once more.
# KN_YEAR_REUSE=DIR measures the cluster an earlier run left in DIR (its $tmp: KN_KEEP=1, or a run stopped
# mid-way) instead of generating one; DIR is removed at the end unless KN_KEEP=1. KN_YEAR_PRUNE=0 skips step 6.
# Scale: KN_YEAR_SCALE (default 1: DAYS = 365, BATCHES = 300; 0.01: 4 days, 3 batches — the ctest smoke
# `bench.year_smoke`, which also fails on any non-200 answer or an empty listing). Never asserts a time.
#   [KN_YEAR_BASELINE=OLD_KEYNODE] tests/bench/bench_year.sh KEYNODE REPO [N] [RESULTS_MD]
# With KN_YEAR_BASELINE (a keynode binary from before this issue) step 4 runs first under it on the
# schema before CUT, so one generation gives the before and after numbers side by side (the serve that
# uploads the tasks is KEYNODE: CUT must leave the tables it writes, e.g. 140's task_changes).
# N requests per page/listing (default 100); RESULTS_MD: the subsection "### DATE, keynode COMMIT, scale S"
# of its "## A year of data" section is written (results_md.py).
set -u -o pipefail
KN=${1:?usage: bench_year.sh KEYNODE REPO [N] [RESULTS_MD]}
REPO=${2:?usage: bench_year.sh KEYNODE REPO [N] [RESULTS_MD]}
N=${3:-100}
MD=${4:-}
SCALE=${KN_YEAR_SCALE:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$REPO/tests/integration/lib.sh"
kn_lib_init bench-year
DAYS=$(python3 -c "print(max(1, round(365 * $SCALE)))")
BATCHES=$(python3 -c "print(max(1, round(300 * $SCALE)))")
KEEP=$(python3 -c "print(max(1, round(90 * $SCALE)))") # retention of the prune step, days
REPEAT=3
newest=$(ls "$REPO"/schemas/sql/[0-9]*.sql | tail -1)
CUT=${KN_YEAR_CUT:-$((10#$(basename "$newest" | cut -d_ -f1)))}
M2W=${KN_SHARED_DIR:-/work/shared}/data/mind2web-live/mind2web-live_test_20241024.json
[ -f "$M2W" ] || { kn_fail "no Mind2Web-Live test split at $M2W"; kn_finish; }
REUSE=${KN_YEAR_REUSE:-}
if [ -n "$REUSE" ]; then # the cluster of an earlier run (KN_KEEP=1, or one stopped mid-way): no generation
  rm -rf "$tmp"; tmp=$REUSE
  su postgres -c "$kn_pgbin/pg_ctl -D $tmp/pg/data -m fast -w stop" >/dev/null 2>&1
fi
kn_pg_start || kn_finish
ms() { date +%s%3N; }
machine="$(nproc) cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
report=$tmp/report.md
: >"$report"
say() { echo "$*"; echo "$*" >>"$report"; }

TOKEN=year$RANDOM
serve_up() {
  P=$(kn_free_port)
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN "${SERVE_BIN:-$KN}" serve --listen "127.0.0.1:$P" \
    --spool-dir "$tmp/spool" "$@" 2>>"$tmp/serve.err" &
  spid=$!; kn_pids+=("$spid")
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$P/healthz" && break; sleep 0.05; done
  B=http://127.0.0.1:$P
}
serve_down() { kill -TERM "$spid"; wait "$spid"; kn_forget "$spid"; }
if [ -z "$REUSE" ]; then
# 1. the schema before this issue, the tasks through the API
mkdir -p "$tmp/sql-before"
for f in "$REPO"/schemas/sql/[0-9]*.sql; do
  v=$(basename "$f" | cut -d_ -f1)
  [ "$((10#$v))" -lt "$CUT" ] && cp "$f" "$tmp/sql-before/"
done
"$KN" migrate --database "$KN_PG_URL" --dir "$tmp/sql-before" >/dev/null || { kn_fail "migrate (before $CUT)"; kn_finish; }
python3 - "$M2W" "$tmp/tasks1.json" "$tmp/tasks2.json" <<'EOF'
import json, sys
src = json.load(open(sys.argv[1]))
out = []
for i in range(542):
    t = dict(src[i % len(src)]); t["index"] = i
    out.append(t)
json.dump(out, open(sys.argv[2], "w"))
for t in out[::10]:
    t["task"] += " (reworded)"
json.dump(out, open(sys.argv[3], "w"))
EOF
serve_up
for f in tasks1 tasks2; do
  code=$(curl -s -o "$tmp/up.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    --data-binary @"$tmp/$f.json" "$B/api/tasksets?name=m2w-live")
  [ "$code" = 201 ] || { kn_fail "upload $f: $code $(cat "$tmp/up.json")"; kn_finish; }
done
serve_down
ntasks=$(kn_psql "SELECT count(*) FROM tasks WHERE active")
nversions=$(kn_psql "SELECT count(*) FROM task_versions")
[ "$ntasks" = 542 ] && kn_ok "542 tasks uploaded ($nversions versions)" || kn_fail "tasks: $ntasks"

# 2. generate
g=$tmp/gen; mkdir -p "$g"
cat "$REPO"/tests/data/runs/m2w-test/*.jsonl | jq -c 'select(has("type"))' >"$g/events.jsonl"
jq -c 'del(.task, .run)' "$REPO/tests/data/schema-valid/run-result--keynode-run.json" >"$g/run_result.json"
jq -c . "$REPO/tests/data/schema-valid/replay-report--element-key-node.json" >"$g/replay_report.json"
jq -c 'del(.task)' "$REPO/tests/data/schema-valid/run-result--keynode-run.json" >"$g/agent_result.json"
cp "$REPO/tests/data/schema-valid/workflow--recorded.yaml" "$g/workflow.yaml"
head -c 102400 /dev/urandom | base64 -w0 >"$g/shot.b64"
t=$(ms)
psql -X -q "$KN_PG_URL" -v ON_ERROR_STOP=1 -v days="$DAYS" -v batches="$BATCHES" -v repeat=$REPEAT \
  -v g="$g" -f - >"$tmp/gen.log" 2>&1 <<EOF
\set evlines \`cat :g/events.jsonl\`
\set run_result \`cat :g/run_result.json\`
\set replay_report \`cat :g/replay_report.json\`
\set agent_result \`cat :g/agent_result.json\`
\set workflow \`cat :g/workflow.yaml\`
\set shot \`cat :g/shot.b64\`
\i $HERE/bench_year_gen.sql
EOF
rc=$?
gen_ms=$(($(ms) - t))
[ $rc = 0 ] && kn_ok "generated in $((gen_ms / 1000)) s" || { kn_fail "generator: $(tail -5 "$tmp/gen.log")"; kn_finish; }
else
  gen_ms=0; kn_ok "reusing the cluster in $REUSE"
  DAYS=$(kn_psql "SELECT count(*) FROM schedule_fires"); BATCHES=$(kn_psql "SELECT count(*) FROM agent_batches")
fi
counts=$(kn_psql "SELECT (SELECT count(*) FROM runs) || ' runs, ' || (SELECT count(*) FROM events) || ' events, '
  || (SELECT count(*) FROM replay_results) || ' replays, ' || (SELECT count(*) FROM agent_results) || ' agent attempts, '
  || (SELECT count(*) FROM jobs) || ' jobs, ' || (SELECT count(*) FROM health_transitions) || ' health transitions, '
  || (SELECT count(*) FROM alerts) || ' alerts'")
nevents=$(kn_psql "SELECT count(*) FROM events")
[ "$nevents" -gt 0 ] && kn_ok "$counts" || kn_fail "no events generated"

say "### $(date -u '+%F %H:%M') UTC, keynode $(git -C "$REPO" rev-parse --short HEAD), scale $SCALE"
say ""
say "$DAYS days, $BATCHES agent batches × 542 tasks × $REPEAT: $counts. Generated in $((gen_ms / 1000)) s."
say "Machine: $machine; load average $load0 at the start."
say ""

# 3. sizes
sizes() { # LABEL
  say "Sizes ($1): database $(kn_psql "SELECT pg_size_pretty(pg_database_size(current_database()))"); bytes per event $(kn_psql "SELECT round(pg_total_relation_size('events')::numeric / greatest(count(*), 1)) FROM events") (events: $(kn_psql "SELECT pg_size_pretty(pg_total_relation_size('events'))") total, of which indexes $(kn_psql "SELECT pg_size_pretty(pg_indexes_size('events'))")); largest tables: $(kn_psql "SELECT string_agg(relname || ' ' || pg_size_pretty(s), ', ' ORDER BY s DESC) FROM (SELECT c.relname, pg_total_relation_size(c.oid) AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY s DESC LIMIT 6) x")."
  say ""
}
sizes "after generation"

# 4. the pages and listings (measure), ids to ask for; the baseline first
line() { sed -n "$(( ($2 - 1) % $(wc -l <"$1") + 1 ))p" "$1"; }
# page NAME PRE URL_TEMPLATE… — N samples; in a template RUN, TASK, BROKEN, BATCH, BATCH2 become the
# i-th id of their list; PRE (a shell command or ":") runs before each sample, outside the timing
page() {
  local name=$1 pre=$2 i u code tm sum bad=0
  shift 2
  : >"$tmp/samples"
  for i in $(seq 1 "$N"); do
    local urls=()
    for u in "$@"; do
      u=${u//RUN/$(line "$tmp/run_ids" "$i")}
      u=${u//TASK/$(line "$tmp/task_refs" "$i")}
      u=${u//BROKEN/$(line "$tmp/broken_refs" "$i")}
      u=${u//BATCH2/$(line "$tmp/batch_ids" $((i + 1)))}
      u=${u//BATCH/$(line "$tmp/batch_ids" "$i")}
      urls+=(-o /dev/null "$B$u")
    done
    eval "$pre"
    sum=0
    while read -r code tm; do
      [ "$code" = 200 ] || bad=$((bad + 1))
      sum=$(awk -v a="$sum" -v b="$tm" 'BEGIN {print a + b}')
    done < <(curl -s -w '%{http_code} %{time_total}\n' "${urls[@]}")
    echo "$sum" >>"$tmp/samples"
  done
  local p50 p99
  p50=$(sort -g "$tmp/samples" | awk '{a[NR]=$1} END {i=int(NR*0.50+0.5); if(i<1)i=1; printf "%.1f", a[i]*1000}')
  p99=$(sort -g "$tmp/samples" | awk '{a[NR]=$1} END {i=int(NR*0.99+0.5); if(i<1)i=1; if(i>NR)i=NR; printf "%.1f", a[i]*1000}')
  say "| $name | $p50 | $p99 |"
  [ "$bad" = 0 ] || kn_fail "$name: $bad answers not 200"
}
# body URL — one answer's body (for the checks)
body() { curl -s "$B$1"; }
notify="kn_psql 'NOTIFY keynode_change' >/dev/null; sleep 0.05"
measure() { # LABEL
  serve_up
  say "Pages and listings ($1; N = $N each, ms):"
  say ""
  say "| page / listing | p50 | p99 |"
  say "|---|---|---|"
  page "overview \`#/\` (tasks + runs?limit=500)" : /api/tasks "/api/runs?limit=500"
  page "overview, tasks not cached (NOTIFY before each)" "$notify" /api/tasks "/api/runs?limit=500"
  page "overview: function chart, one run (of 60)" : /api/runs/RUN
  page "task \`#/tasks/ID\` (task + health + workflow)" : /api/tasks/TASK /api/tasks/TASK/health /api/tasks/TASK/workflow
  page "runs \`#/runs\` (runs?limit=200)" : "/api/runs?limit=200"
  page "run \`#/runs/ID\` (run + task)" : /api/runs/RUN /api/tasks/TASK
  if [ -s "$tmp/broken_refs" ]; then page "drift \`#/tasks/ID/drift\`" : /api/tasks/BROKEN/drift
  else say "| drift \`#/tasks/ID/drift\` | (no task broken after a pass at this scale) | |"; fi
  page "alerts \`#/alerts\` (alerts?all=1 + header count)" : "/api/alerts?all=1" /api/alerts
  page "batches \`#/agent-runs\`" : "/api/agent-runs?limit=50"
  # a finished batch's page is computed once: by the worker that stores its last
  # attempt, or an idle one; the generated batches had none, so the first read computes it, then stored
  kn_psql "DO \$\$ BEGIN IF to_regclass('agent_batch_stats') IS NOT NULL THEN TRUNCATE agent_batch_stats; END IF; END \$\$" \
    >/dev/null # none stored by an earlier measurement of a kept cluster
  page "batch \`#/agent-runs/ID\`, first read (computes and stores it)" : /api/agent-runs/BATCH
  page "batch \`#/agent-runs/ID\`" : /api/agent-runs/BATCH
  page "compare \`#/agent-runs/compare/A/B\`" : "/api/agent-runs/compare?a=BATCH&b=BATCH2"
  page "GET /api/tasks?status=broken, not cached" "$notify" "/api/tasks?status=broken"
  page "GET /api/runs (default page)" : /api/runs
  page "GET /api/runs?task=ID" : "/api/runs?task=TASK"
  page "GET /api/replays?task=ID" : "/api/replays?task=TASK"
  page "GET /api/runs/ID/events" : /api/runs/RUN/events
  page "GET /api/tasks/ID/health" : /api/tasks/TASK/health
  page "GET /api/alerts" : /api/alerts
  page "GET /metrics" : /metrics
  page "GET /api/runs?before=RUN (a page half a year deep)" : "/api/runs?before=$deep"
  say ""
  # the listings answer something (a year of data: none is empty)
  [ "$(body "/api/runs?limit=5" | jq '.runs | length')" = 5 ] && kn_ok "runs listed" || kn_fail "runs listing"
  [ "$(body "/api/alerts?all=1" | jq '.alerts | length')" -gt 0 ] && kn_ok "alerts listed" || kn_fail "alerts listing"
  [ "$(body "/api/agent-runs" | jq '.batches | length')" -gt 0 ] && kn_ok "batches listed" || kn_fail "batches listing"
  [ "$(body "/api/replays?task=$(line "$tmp/task_refs" 1)" | jq '.replays | length')" -gt 0 ] && kn_ok "replays listed" ||
    kn_fail "replays listing"
  serve_down
}
kn_psql "SELECT id FROM runs ORDER BY hashtext(id) LIMIT $N" >"$tmp/run_ids"
kn_psql "SELECT 'm2w-live:' || task_key FROM tasks ORDER BY hashtext(task_key) LIMIT $N" >"$tmp/task_refs"
# tasks with a drift diff: a broken replay after a passed one
kn_psql "SELECT 'm2w-live:' || t.task_key FROM tasks t WHERE EXISTS (SELECT 1 FROM replay_results p
  JOIN task_versions v ON v.id = p.task_version JOIN replay_results q ON q.task_version = p.task_version
  WHERE v.task_id = t.id AND p.status = 'broken' AND q.status = 'passed' AND q.created < p.created)
  ORDER BY hashtext(t.task_key) LIMIT $N" >"$tmp/broken_refs"
kn_psql "SELECT id FROM agent_batches ORDER BY hashtext(id::text) LIMIT $N" >"$tmp/batch_ids"
deep=$(kn_psql "SELECT id FROM runs ORDER BY started DESC, id DESC OFFSET (SELECT count(*) / 2 FROM runs) LIMIT 1")
if [ -n "${KN_YEAR_BASELINE:-}" ]; then # the same data under the keynode before this issue
  SERVE_BIN=$KN_YEAR_BASELINE measure "before: KN_YEAR_BASELINE, schema before $CUT"
fi

# 5. migrate on the filled database, then the pages again
t=$(ms)
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.out" 2>&1 && kn_ok "migrate on the filled database" ||
  kn_fail "migrate: $(cat "$tmp/migrate.out")"
say "\`keynode migrate\` on the filled database: $(( $(ms) - t )) ms ($(head -1 "$tmp/migrate.out"))."
say ""

measure "after migrate"

# 5b. an idle agent worker stores the page and packed attempts of every finished batch that lacks them
# (as after an upgrade, so no reader pays a first read); its agent never runs (no job waits)
kn_psql "TRUNCATE agent_batch_stats" >/dev/null
cat >"$tmp/worker.yaml" <<EOF
agents:
  m2w-agent: "true"
EOF
t=$(ms)
KEYNODE_DATABASE_URL="$KN_PG_URL" "$KN" worker --config "$tmp/worker.yaml" --id warm --poll 20 \
  --agent-out "$tmp/agent-out" >"$tmp/worker.log" 2>&1 &
wpid=$!; kn_pids+=("$wpid")
missing="SELECT count(*) FROM agent_batches b LEFT JOIN agent_batch_stats c ON c.batch = b.id WHERE c.page IS NULL OR c.rows IS NULL"
if kn_wait_sql 1800 "$missing" 0; then
  warm_ms=$(( $(ms) - t )); nb=$(kn_psql "SELECT count(*) FROM agent_batches")
  kn_ok "an idle worker stored every batch's page and attempts"
  say "An idle agent worker stored the page and packed attempts of all $nb finished batches in $((warm_ms / 1000)) s ($((warm_ms / nb)) ms per batch, newest first, one per idle poll; the table emptied first, as after an upgrade). Stored: pages $(kn_psql "SELECT pg_size_pretty(sum(length(page))) FROM agent_batch_stats"), packed attempts $(kn_psql "SELECT pg_size_pretty(sum(length(rows))) FROM agent_batch_stats")."
  say ""
else
  kn_fail "the idle worker did not store every batch: $(kn_psql "$missing") left; $(tail -3 "$tmp/worker.log")"
fi
kn_stop "$wpid"

# 6. retention (KN_YEAR_PRUNE=0 leaves it out: a kept cluster to measure again unpruned)
if [ "${KN_YEAR_PRUNE:-1}" != 0 ] && "$KN" prune --help >/dev/null 2>&1; then
  cat >"$tmp/keynode.yaml" <<EOF
retention:
  agent_events_days: $KEEP
  replay_events_days: $KEEP
EOF
  before=$(kn_psql "SELECT count(*) FROM events")
  t=$(ms)
  "$KN" prune --database "$KN_PG_URL" --config "$tmp/keynode.yaml" --dry-run >"$tmp/prune-dry.out" 2>&1 ||
    kn_fail "prune --dry-run: $(tail -3 "$tmp/prune-dry.out")"
  dry_ms=$(($(ms) - t))
  [ "$(kn_psql "SELECT count(*) FROM events")" = "$before" ] && kn_ok "prune --dry-run deleted nothing" ||
    kn_fail "prune --dry-run deleted events"
  t=$(ms)
  "$KN" prune --database "$KN_PG_URL" --config "$tmp/keynode.yaml" >"$tmp/prune.out" 2>"$tmp/prune.err" ||
    kn_fail "prune: $(tail -3 "$tmp/prune.err")"
  prune_ms=$(($(ms) - t))
  after=$(kn_psql "SELECT count(*) FROM events")
  [ "$after" -lt "$before" ] && kn_ok "prune deleted $((before - after)) events" || kn_fail "prune deleted nothing"
  say "\`keynode prune\` (events of agent and replay runs older than $KEEP days): --dry-run $dry_ms ms; the prune $prune_ms ms, $((before - after)) of $before events deleted ($(tr '\n' ';' <"$tmp/prune.out" | sed 's/;$//'))."
  say ""
  kn_psql "VACUUM ANALYZE" >/dev/null
  sizes "after the prune and a VACUUM"
fi
say "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
cat "$report"
if [ -n "$MD" ]; then
  python3 "$HERE/results_md.py" "$MD" "## A year of data — \`tests/bench/bench_year.sh KEYNODE REPO [N] [RESULTS_MD]\` (issue 27)" \
    "$(head -1 "$report" | sed 's/^### //')" \
    "A year of a Mind2Web-Live-sized operation (542 tasks validated nightly, 300 agent batches × 542 × 3) generated in PostgreSQL by tests/bench/bench_year_gen.sql from real keynode rows; each dashboard page's requests and each API listing timed with curl against a loopback \`keynode serve\`." \
    <"$report"
fi
kn_finish
