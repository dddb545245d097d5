#!/usr/bin/env bash
# unjudged.sh — a judge outage is never the agent's failure (docs/scoring.md "Unjudged"), end to end
# with the real binary and a real local HTTP judge (lib.sh kn_judge_start: llm-server.mjs). Four
# recorded runs: two of a task with a semantic answer node (one finishes, one already misses its
# deterministic node), two of a task without one. For every outage the judge can have — HTTP 402, 429,
# 500, a timeout, a garbled body, a non-numeric score, a score of 1.7 — `keynode score --semantic llm`
# must: give the two judged runs status unjudged with the evidence (key node, judge, error) and fault
# judge, count them in the summary's unjudged, leave the metrics exactly those of the same set without
# them (scored apart), and exit 1 with a line on stderr. Once the judge answers again the same runs
# score their real verdicts (finished, incomplete) and the exit is 0.
# Then the same outage under `keynode run` (a real Chromium, a shell agent that answers "42"): the attempt
# is unjudged (summary.json attempts.unjudged, attempts.faults.judge, exit 1) and `run --resume` with
# the judge back runs it again to its verdict; under `keynode serve` (an external run, POST /api/rescore,
# an agent batch's page); and under `keynode watch` (its judge off the CDP loop: unjudged, exit 1, its
# trajectory scored with the judge back finished).
# Only 127.0.0.1 is contacted; every process is stopped by PID, even on failure. Well under 60 s.
# usage: unjudged.sh KEYNODE_BIN
#
# ctest: integration.unjudged ARGS=keynode TIMEOUT=120
set -uo pipefail
kn=$1
. "$(dirname "$0")/lib.sh"
kn_lib_init unjudged
repo=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { kn_fail "python3 not found"; kn_finish; }
kn_judge_start || kn_finish

kn_judged_runs "$tmp/tasks.yaml" "$tmp"

# what the metrics must be: the same set without the judged runs
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/plain" --json "${judge_args[@]}" >"$tmp/plain.json" 2>"$tmp/plain.err" ||
  kn_fail "the set without judged runs did not score: $(cat "$tmp/plain.err")"

# check NAME WANT — compare $tmp/out.json with the expectations (python: exact JSON, not grep)
check() {
  python3 - "$tmp/out.json" "$tmp/plain.json" "$2" <<'EOF'
import json, sys
out, plain, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
res = {r["run"]: r for r in out["results"]}
s, p = out["summary"], plain["summary"]
bad = []
if want == "outage":
    for run in ("a", "b"):
        r = res[run]
        u = r.get("unjudged", {})
        nodes = u.get("key_nodes", [])
        if r["status"] != "unjudged" or r.get("fault") != "judge" or r.get("reason") != "judge failed":
            bad.append(f"{run}: status {r['status']} fault {r.get('fault')} reason {r.get('reason')}")
        if u.get("judge") != "llm:fake-judge" or [n["id"] for n in nodes] != ["answer"] or not nodes[0].get("error"):
            bad.append(f"{run}: evidence {u}")
    if s["unjudged"] != 2:
        bad.append(f"summary unjudged {s['unjudged']}")
    for k, v in p.items():  # every metric as without the judged runs
        if k != "unjudged" and s.get(k) != v:
            bad.append(f"summary {k}: {s.get(k)} != {v} without the judged runs")
else:
    want_status = {"a": "finished", "b": "incomplete", "c": "finished", "d": "incomplete"}
    for run, st in want_status.items():
        if res[run]["status"] != st or "unjudged" in res[run]:
            bad.append(f"{run}: {res[run]['status']}, want {st}")
    if res["b"].get("fault") != "agent" or "fault" in res["a"]:
        bad.append(f"faults a {res['a'].get('fault')} b {res['b'].get('fault')}")
    if s["unjudged"] != 0 or s["tasks"] != 4 or s["task_success_rate"] != 0.5:
        bad.append(f"summary {s}")
print("; ".join(bad) if bad else "ok")
EOF
}

for mode in "${kn_judge_outages[@]}"; do
  kn_judge_outage "$mode" || continue
  "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/all" --json "${judge_args[@]}" >"$tmp/out.json" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 1 ] && kn_ok "outage $mode: exit 1" || kn_fail "outage $mode: exit $rc, want 1: $(head -3 "$tmp/err")"
  got=$(check "$mode" outage)
  [ "$got" = ok ] && kn_ok "outage $mode: the judged runs are unjudged with their evidence, the metrics those without them" ||
    kn_fail "outage $mode: $got"
  grep -q "2 runs unjudged (left out of the metrics" "$tmp/err" && kn_ok "outage $mode: said on stderr" ||
    kn_fail "outage $mode: stderr: $(tail -2 "$tmp/err")"
  # the evidence names what went wrong, in the judge's words
  case $mode in
    402) want="HTTP 402" ;; 429) want="HTTP 429" ;; 500) want="HTTP 500" ;; timeout) want="within 400 ms" ;;
    garbled) want="malformed response" ;; text) want="malformed answer" ;; range) want="outside [0, 1]" ;;
  esac
  grep -qF "$want" "$tmp/out.json" && kn_ok "outage $mode: the error says '$want'" ||
    kn_fail "outage $mode: no '$want' in the evidence: $(grep -o '"unjudged": {[^}]*}' "$tmp/out.json" | head -1)"
done

# the table says so too, and --csv has the fault
kn_judge_outage 402
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/all" "${judge_args[@]}" >"$tmp/table" 2>/dev/null
grep -q "b .*unjudged" "$tmp/table" && grep -q "(2 unjudged runs left out" "$tmp/table" &&
  kn_ok "table: status unjudged and the count" || kn_fail "table: $(cat "$tmp/table")"
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/all" --csv "${judge_args[@]}" >"$tmp/csv" 2>/dev/null
grep -q "^judged,a,unjudged,.*,judge$" "$tmp/csv" && kn_ok "csv: the fault column" || kn_fail "csv: $(cat "$tmp/csv")"

# the judge answers again: the same runs get their real verdicts
kn_judge_outage none
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/all" --json "${judge_args[@]}" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && kn_ok "judge back: exit 0" || kn_fail "judge back: exit $rc: $(head -3 "$tmp/err")"
got=$(check none verdict)
[ "$got" = ok ] && kn_ok "judge back: a finished, b incomplete (the agent's), nothing unjudged" || kn_fail "judge back: $got"

# --- serve: an external run judged by serve's LLM judge (deferred, on its judge threads) during an
# outage is unjudged with the judge's words; POST /api/rescore with the judge back gives its verdict;
# an agent batch counts unjudged attempts apart and every attempt that is not a success by whose it is
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
cat >"$tmp/keynode.yaml" <<EOF
semantic: { backend: llm, llm: { url: "$judge_url", model: fake-judge, timeout_ms: 400 } }
EOF
token="kn-$RANDOM$RANDOM"
KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
  kn_serve_start "$kn" "$tmp/serve.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
api() { curl -s --max-time 30 -H "Authorization: Bearer $token" "$@"; }
api -X POST --data-binary @"$tmp/tasks.yaml" "$api_base/api/tasksets?name=j" >/dev/null
kn_judge_outage 402
id=$(api -X POST -d '{"task": "j:judged"}' "$api_base/api/runs" | jq -r .id)
api -X POST -d '[{"t": 0, "type": "navigate", "url": "http://s.test/done", "how": "goto"}, {"t": 1, "type": "answer", "text": "42"}]' \
  "$api_base/api/runs/$id/events" >/dev/null
api -X POST "$api_base/api/runs/$id/stop" >"$tmp/stop.json"
api "$api_base/api/runs/$id" >"$tmp/run.json"
jq -e '.status == "unjudged" and .fault == "judge" and .unjudged.judge == "llm:fake-judge" and .unjudged.key_nodes[0].id == "answer" and (.unjudged.key_nodes[0].error | test("HTTP 402"))' "$tmp/run.json" >/dev/null &&
  kn_ok "serve: the external run is unjudged with the judge's words: $(jq -c .unjudged "$tmp/run.json")" ||
  kn_fail "serve: run $id: $(head -c 600 "$tmp/run.json")"
kn_judge_outage none
api -X POST -d '{"taskset": "j", "from": 1, "to": 1}' "$api_base/api/rescore" >"$tmp/rescore.json"
jq -e --arg id "$id" '[.runs[] | select(.run == $id) | .from] | length == 1 and .[0].status == "finished" and .[0].completion == true and .[0].fault == null' "$tmp/rescore.json" >/dev/null &&
  kn_ok "serve: POST /api/rescore with the judge back gives the verdict (finished)" ||
  kn_fail "serve: rescore: $(head -c 600 "$tmp/rescore.json")"

# an agent batch of both tasks x 2 whose attempts are stored as a worker stores them (result.json in
# agent_results, the job done): the run results keynode score wrote during the outage (a, b unjudged;
# c finished; d incomplete) with the attempt object keynode run writes
kn_judge_outage 402
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/all" --out "$tmp/res" "${judge_args[@]}" >/dev/null 2>&1
batch=$(api -X POST -d '{"agent": "x", "tasks": ["j:judged", "j:plain"], "repeat": 2}' "$api_base/api/agent-runs" | jq -r .id)
for f in a b c d; do
  jq -c 'if .status == "unjudged" then .attempt = {status: "unjudged", fault: "judge", reason: "unjudged: the judge failed"}
         elif .completion then .attempt = {status: "done"} else .attempt = {status: "done", fault: "agent"} end' \
    "$tmp/res/$f.json" >"$tmp/res/$f.attempt.json"
done
sql_json() { sed "s/'/''/g" "$tmp/res/$1.attempt.json"; }
kn_psql "INSERT INTO agent_results (job_id, batch, task_version, attempt_no, worker, status, completed, score, result)
  SELECT j.id, j.batch, j.task_version, j.attempt_no, 'sql', x.r #>> '{attempt,status}', (x.r ->> 'completion')::boolean,
    (x.r ->> 'score')::float8, x.r
  FROM jobs j JOIN task_versions v ON v.id = j.task_version JOIN tasks t ON t.id = v.task_id
  JOIN (VALUES ('judged', 1, '$(sql_json a)'::jsonb), ('judged', 2, '$(sql_json b)'::jsonb),
               ('plain', 1, '$(sql_json c)'::jsonb), ('plain', 2, '$(sql_json d)'::jsonb)) x(task, k, r)
    ON x.task = t.task_key AND x.k = j.attempt_no
  WHERE j.batch = $batch;
  UPDATE jobs SET state = 'done' WHERE batch = $batch" >/dev/null || kn_fail "the batch's attempts were not stored"
api "$api_base/api/agent-runs/$batch" >"$tmp/batch.json"
jq -e '.metrics.unjudged == 2 and .metrics.executable == 2 and .metrics.successes == 1 and .metrics.success_rate == 0.5
       and .metrics.faults == {"agent": 1, "site": 0, "infrastructure": 0, "judge": 2}
       and .stats.denominators.planned.unjudged == 2 and .stats.rates.task_success_rate == 0.5' "$tmp/batch.json" >/dev/null &&
  kn_ok "serve: the batch page leaves the unjudged attempts out of the metrics and counts them: $(jq -c '.metrics | {unjudged, executable, faults}' "$tmp/batch.json")" ||
  kn_fail "serve: batch: $(jq -c '{metrics, d: .stats.denominators}' "$tmp/batch.json" 2>/dev/null || head -c 600 "$tmp/batch.json")"
api "$api_base/api/agent-runs" >"$tmp/batches.json"
jq -e --argjson b "$batch" '.batches[] | select(.id == $b) | .unjudged == 2' "$tmp/batches.json" >/dev/null &&
  kn_ok "serve: the batch list counts them" || kn_fail "serve: batches: $(head -c 400 "$tmp/batches.json")"

# --- keynode run: a real attempt (Chromium, a shell agent that answers) during an outage, then --resume
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
cat >"$tmp/run-tasks.yaml" <<EOF
tasks:
  - id: ask
    intent: say the answer
    start_url: http://127.0.0.1:$port/shop/
    key_nodes:
      - id: answer
        answer: { semantic: "Decide whether the answer is forty-two" }
EOF
agent='echo 42 >>"$KEYNODE_ANSWER_FILE"; sleep 1'
run_kn() { "$kn" run --tasks "$tmp/run-tasks.yaml" --agent "$agent" --out "$tmp/run" --timeout 30 --retries 0 \
  --chromium "$kn_chromium" --quiet "${judge_args[@]}" "$@" >"$tmp/run.log" 2>&1; }
kn_judge_outage 402
run_kn
rc=$?
jq -e '.attempts.unjudged == 1 and .attempts.faults.judge == 1 and .attempts.executable == 0 and .metrics.attempts == 0
       and .excluded[0].status == "unjudged" and .excluded[0].fault == "judge"' "$tmp/run/summary.json" >/dev/null &&
  jq -e '.status == "unjudged" and .fault == "judge" and .attempt.status == "unjudged" and .attempt.fault == "judge"
         and (.attempt.reason | test("judge llm:fake-judge failed on key node answer: .*HTTP 402"))' "$tmp/run/ask/1/result.json" >/dev/null &&
  [ "$rc" = 1 ] && kn_ok "run: the attempt is unjudged (attempts.unjudged, faults.judge, exit 1): $(jq -r .attempt.reason "$tmp/run/ask/1/result.json")" ||
  kn_fail "run: exit $rc $(jq -c '{attempts, excluded}' "$tmp/run/summary.json" 2>/dev/null) $(jq -c '{status, attempt}' "$tmp/run/ask/1/result.json" 2>/dev/null) $(tail -3 "$tmp/run.log")"
kn_judge_outage none
run_kn --resume
rc=$?
jq -e '.attempts.unjudged == 0 and .attempts.successes == 1 and .metrics.task_success_rate == 1' "$tmp/run/summary.json" >/dev/null &&
  jq -e '.status == "finished" and .attempt.status == "done" and (has("fault") | not)' "$tmp/run/ask/1/result.json" >/dev/null &&
  [ "$rc" = 0 ] && kn_ok "run --resume with the judge back: the attempt runs again to its verdict (finished, exit 0)" ||
  kn_fail "run --resume: exit $rc $(jq -c .attempts "$tmp/run/summary.json" 2>/dev/null) $(tail -3 "$tmp/run.log")"

# --- keynode watch: its judge is asked off the CDP loop (judge_async.c); the verdict fails with the
# judge's words, the run is unjudged and watch exits 1; its trajectory scored with the judge back is finished
mkdir -p "$tmp/chr"
kn_chromium_start "$tmp/chr" || kn_finish
: >"$tmp/answers.txt"
kn_judge_outage 402
# the agent only answers: 42, through the answer file
kn_watch_scenario "$tmp/w" --trajectory "$tmp/w.jsonl" \
  -- --browser "$cdp" --tasks "$tmp/run-tasks.yaml" --task ask --answer-file "$tmp/answers.txt" --until idle:2 \
     --run-id w1 "${judge_args[@]}" \
  -- sh -c 'echo 42 >>"$1"' answer "$tmp/answers.txt"
rc=$kn_watch_rc
jq -e '.status == "unjudged" and .fault == "judge" and (.unjudged.key_nodes[0].error | test("HTTP 402"))' "$tmp/w/result.json" >/dev/null &&
  [ "$rc" = 1 ] && grep -q "keynode watch: unjudged" "$tmp/w/watch.err" &&
  kn_ok "watch: the run is unjudged with the judge's HTTP 402, exit 1, said on stderr" ||
  kn_fail "watch: exit $rc $(head -c 400 "$tmp/w/result.json") $(tail -3 "$tmp/w/watch.err")"
kn_judge_outage none
"$kn" score --tasks "$tmp/run-tasks.yaml" --runs "$tmp/w.jsonl" --json "${judge_args[@]}" >"$tmp/ws.json" 2>"$tmp/ws.err"
rc=$?
jq -e '.results[0].status == "finished" and .summary.unjudged == 0' "$tmp/ws.json" >/dev/null && [ "$rc" = 0 ] &&
  kn_ok "watch: its trajectory scored with the judge back is finished" || kn_fail "watch rescore: exit $rc $(head -c 300 "$tmp/ws.json")"

# --- the dashboard (a real browser on serve's pages): the batch's unjudged tile and faults, the run's
"$repo/tests/integration/node/ensure.sh" >"$tmp/ensure.out" 2>&1 || { kn_fail "node packages: $(tail -2 "$tmp/ensure.out")"; kn_finish; }
node "$repo/tests/integration/unjudged-page.mjs" "$cdp" "$api_base" "$token" "$batch" "$id" >"$tmp/page.out" 2>&1
prc=$?
sed 's/^/  /' "$tmp/page.out"
[ $prc = 0 ] && kn_ok "dashboard: the batch page, the batch list and the run page show the outage" ||
  kn_fail "dashboard: unjudged-page.mjs exit $prc"
kn_finish
