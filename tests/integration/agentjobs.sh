#!/usr/bin/env bash
# agentjobs.sh — agent attempts through `keynode serve` and PostgreSQL (acceptance 1 and 2):
#   server   `keynode run --server URL … --parallel 2 --repeat 2` with the Playwright agent: every attempt
#            a run made by serve's monitor on the attempt's own browser — in PostgreSQL (runs table, each
#            ended and completed), on the dashboard API (GET /api/runs, /api/runs/{id}), the answer posted
#            through the API, the local folders and summary as without --server
#   unreachable  `keynode run --server` whose agent goes to the task's own site that does not answer (a
#            closed port named by a URL key node): serve's monitor ends the run, status error, reason
#            unreachable with the evidence (API, PostgreSQL); the attempt an error left out of the metrics
#   jobs     POST /api/agent-runs (2 tasks × repeat 2) → 4 agent jobs; 2 `keynode worker`s with
#            `agents:` in their keynode.yaml; one SIGKILLed while its agent runs: its job's lease expires,
#            the other worker runs the attempt again; every attempt completed exactly once (one
#            agent_results row per job, none lost, the killed one re-claimed); GET /api/agent-runs/{id}
#            shows progress, metrics and per-task results, and so does the dashboard's batch view in
#            headless Chromium (batch-page.mjs); every attempt's run and events are in runs/events (kind
#            agent) and on GET /api/runs/{id}; GET /api/agent-runs pages the batches (and the dashboard
#            lists them); the batch's uncertainty (stats) and task sites (a task without a
#            start URL: its URL key node's), GET /api/agent-runs/compare on two batches, and the
#            dashboard's site column and filter, uncertainty and comparison pages
#   retries  infrastructure errors of agent jobs tried again up to the batch's "retries" (an agent that cannot
#            start once, one that never can, retries 0), errored tries' folders kept aside
#   external POST /api/runs with "step_limit": 2 and no browser: the post of the step past the budget ends
#            the run (status step_limit, ended in PostgreSQL), the next post is refused; -1 never ends it
#   security an agent named by a command line, an unknown task set, no token: refused; a job of an agent
#            no worker has is never claimed; a bad `agents:` entry stops the worker with file:line:col
# After every scenario no agent or browser started by keynode (anything whose command line or
# environment names this test's scratch folder) is left running.
#
#   tests/integration/agentjobs.sh KEYNODE_BIN REPO_DIR
#
# Env: KN_AGENTJOBS_ONLY="name …" runs only those scenarios (security needs jobs); KN_KEEP=1 keeps the
# scratch folder. Needs node + the pinned npm packages (node/ensure.sh), Chromium, PostgreSQL, jq, curl.
#
# The unreachable scenario takes ~1 min; under load the sanitizer build needs more than 600 s for the whole
# script.
# ctest: integration.agentjobs ARGS=keynode,repo TIMEOUT=720 SANITIZE_TIMEOUT=900
set -u -o pipefail
kn=${1:?usage: agentjobs.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: agentjobs.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
agents=$repo/tests/agents

command -v jq >/dev/null 2>&1 || { echo "FAIL jq not found (apt-get install jq)"; exit 1; }
[ -x "$kn" ] || { echo "FAIL no keynode binary at $kn"; exit 1; }
"$repo/tests/integration/node/ensure.sh" || exit 1
kn_lib_init agentjobs
export TMPDIR=$tmp # every browser profile goes here: their command lines name $tmp
export KEYNODE_CHROMIUM=$kn_chromium
want() { [ -z "${KN_AGENTJOBS_ONLY:-}" ] || [[ " $KN_AGENTJOBS_ONLY " == *" $1 "* ]]; }
expect() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$port"
kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 ||
  { kn_fail "keynode migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
token="aj-$RANDOM$RANDOM$RANDOM"
KEYNODE_API_TOKEN=$token kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" ||
  kn_finish
base=$api_base
api() { curl -s --max-time 30 -H "Authorization: Bearer $token" "$@"; }

# leftovers — live processes whose command line or environment names $tmp (not sites, serve, this shell,
# nor the workers still meant to run: $keep)
keep=""
leftovers() {
  local pid line
  kn_leftovers "$tmp" "$sites_pid" "$serve_pid" $keep | while read -r pid line; do
    grep -qaF "$tmp/pg/" "/proc/$pid/cmdline" 2>/dev/null && continue # the test's PostgreSQL
    echo "$pid $line"
  done
}
no_leftovers_() { local left; left=$(leftovers); echo "$left"; [ -z "$left" ]; }
# check_clean NAME — nothing of ours left; processes of a killed worker die a moment after it, so wait
# (bounded) for them to go before calling it a failure
check_clean() {
  local left
  kn_wait_for "$1: our processes to go" 20 no_leftovers_
  left=$(leftovers)
  if [ -z "$left" ]; then kn_ok "$1: no agent or browser left"; else kn_fail "$1: left running: $left"; fi
}

if want server; then
  KEYNODE_API_TOKEN=$token "$kn" run --server "$base" --tasks "$tmp/tasks.yaml" --out "$tmp/srv" \
    --agent "node $agents/playwright.mjs" --task shop-red-runner-cart --task shop-checkout \
    --parallel 2 --repeat 2 --timeout 90 >"$tmp/srv.log" 2>&1
  expect "server: keynode run --server exit 0" $? 0
  ids=()
  for t in shop-red-runner-cart shop-checkout; do
    for k in 1 2; do
      f=$tmp/srv/$t/$k
      expect "server: $t #$k completed" "$(jq -r .completion "$f/result.json" 2>/dev/null)" true
      [ -s "$f/trajectory.jsonl" ] && [ -s "$f/agent.log" ] || kn_fail "server: $t #$k lacks trajectory.jsonl or agent.log"
      id=$(jq -r .run "$f/result.json" 2>/dev/null)
      ids+=("$id")
      # the run is serve's: in PostgreSQL, ended, completed, with every event of the local trajectory
      expect "server: $t #$k in PostgreSQL, ended and completed" \
        "$(kn_psql "SELECT kind || ' ' || (ended IS NOT NULL) || ' ' || completion FROM runs WHERE id = '$id'")" \
        "agent true true"
      expect "server: $t #$k trajectory = the stored events" "$(wc -l <"$f/trajectory.jsonl")" \
        "$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$id'")"
      expect "server: $t #$k on the dashboard API" \
        "$(api "$base/api/runs/$id" | jq -r '"\(.task) \(.completion)"')" "$t true"
    done
  done
  expect "server: 4 distinct runs" "$(printf '%s\n' "${ids[@]}" | sort -u | grep -c .)" 4
  expect "server: the task set loaded on serve" \
    "$(kn_psql "SELECT count(*) FROM tasksets WHERE name = 'tasks'")" 1
  expect "server: the answer went through the API" \
    "$(jq -r '.key_nodes[] | select(.id == "total") | .score' "$tmp/srv/shop-checkout/1/result.json")" 1
  expect "server: GET /api/runs lists both attempts of shop-checkout" \
    "$(api "$base/api/runs?task=tasks:shop-checkout&limit=10" | jq '[.runs[] | select(.completion == true)] | length')" 2
  expect "server: summary success rate" "$(jq -r .metrics.task_success_rate "$tmp/srv/summary.json")" 1
  expect "server: summary executable attempts" "$(jq -r .attempts.executable "$tmp/srv/summary.json")" 4
  KEYNODE_API_TOKEN=wrong "$kn" run --server "$base" --tasks "$tmp/tasks.yaml" --out "$tmp/srv-401" \
    --agent true >/dev/null 2>"$tmp/srv-401.err"
  rc=$?
  [ $rc != 0 ] && grep -q "401" "$tmp/srv-401.err" && kn_ok "server: a wrong token is refused, named 401" ||
    kn_fail "server: wrong token: exit $rc, $(cat "$tmp/srv-401.err")"
  check_clean server
fi

if want unreachable; then
  # the same code path through serve: its monitor ends the run when the task's own site does not answer
  # (a URL key node's host: a closed port), the attempt is an error with reason unreachable
  kn_dead_port
  cat >"$tmp/unr.yaml" <<EOF
tasks:
  - { id: own-refused, intent: pay, start_url: "http://127.0.0.1:$port/shop/", key_nodes: [ { id: pay, url: { include: "http://127.0.0.1:$dead/pay" } } ] }
EOF
  KEYNODE_API_TOKEN=$token "$kn" run --server "$base" --tasks "$tmp/unr.yaml" --out "$tmp/unr" --retries 0 \
    --timeout 90 --agent "GOTO_WAIT_S=30 exec node $agents/goto.mjs http://127.0.0.1:$dead/pay" >"$tmp/unr.log" 2>&1
  expect "unreachable: keynode run --server exit 1 (an error)" $? 1
  f=$tmp/unr/own-refused/1/result.json
  expect "unreachable: the attempt is an error, ended at the failure" \
    "$(jq -r '"\(.attempt.status) \(.attempt.end) \(.attempt.reason)"' "$f" 2>/dev/null)" \
    "error unreachable unreachable: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:$dead/pay"
  id=$(jq -r .run "$f" 2>/dev/null)
  expect "unreachable: serve's run result (API)" \
    "$(api "$base/api/runs/$id" | jq -r '"\(.status) \(.reason) \(.unreachable.error) \(.unreachable.url)"')" \
    "error unreachable net::ERR_CONNECTION_REFUSED http://127.0.0.1:$dead/pay"
  expect "unreachable: in PostgreSQL, ended, status error" \
    "$(kn_psql "SELECT (ended IS NOT NULL) || ' ' || (result->>'status') || ' ' || (result->>'reason') FROM runs WHERE id = '$id'")" \
    "true error unreachable"
  expect "unreachable: left out of the metrics" "$(jq -r '"\(.attempts.executable) \(.attempts.errors)"' "$tmp/unr/summary.json")" "0 1"
  check_clean unreachable
fi

if want jobs; then
  # the gate lets the test kill a worker while its agent certainly runs: agents wait for $tmp/gate
  cat >"$tmp/keynode.yaml" <<EOF
agents:
  pw: "while [ ! -e $tmp/gate ]; do sleep 0.05; done; exec node $agents/playwright.mjs"
  other: "true"
EOF
  [ "$(kn_psql "SELECT count(*) FROM tasksets WHERE name = 'tasks'")" = 1 ] ||
    api -X POST --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=tasks" >/dev/null
  ans=$(api -X POST -d '{"agent": "pw", "tasks": ["tasks:shop-red-runner-cart", "tasks:shop-checkout"], "repeat": 2}' \
    "$base/api/agent-runs")
  batch=$(jq -r .id <<<"$ans")
  expect "jobs: POST /api/agent-runs makes 4 jobs" "$(jq -r '"\(.jobs) \(.status)"' <<<"$ans")" "4 queued"
  for w in w1 w2; do
    kn_spawn -o "$tmp/$w.out" -e "$tmp/$w.log" "$w" "$kn" worker --config "$tmp/keynode.yaml" --id $w --poll 200 --lease 4 \
      --agent-out "$tmp/$w-out" --agent-timeout 120
    eval "${w}_pid=$kn_pid"
  done
  keep="$w1_pid $w2_pid"
  # w1's agent is running (waiting at the gate): kill w1 there
  w1_agent_log_() { ls "$tmp"/w1-out/"$batch"/*/*/agent.log 2>/dev/null | head -1 | grep .; }
  kn_wait_for "w1's agent to start" 30 w1_agent_log_
  got=$(w1_agent_log_)
  killed_job=$(kn_psql "SELECT id FROM jobs WHERE batch = $batch AND worker = 'w1' AND state = 'running'")
  if [ -n "$got" ] && [ -n "$killed_job" ]; then kn_ok "jobs: w1 runs job $killed_job's agent"; else
    kn_fail "jobs: w1 never started an agent: $(tail -3 "$tmp/w1.log")"
  fi
  kill -KILL "$w1_pid"
  wait "$w1_pid" 2>/dev/null
  kn_forget "$w1_pid"
  keep="$w2_pid"
  touch "$tmp/gate"
  kn_wait_sql 240 "SELECT count(*) FROM jobs WHERE batch = $batch AND state = 'done'" 4 ||
    kn_fail "jobs: the batch did not finish: $(tail -5 "$tmp/w2.log")"
  expect "jobs: every job done" "$(kn_psql "SELECT count(*) FILTER (WHERE state = 'done') || '/' || count(*) FROM jobs WHERE batch = $batch")" 4/4
  expect "jobs: one result per job, none twice" \
    "$(kn_psql "SELECT count(*) || ' ' || count(DISTINCT job_id) FROM agent_results WHERE batch = $batch")" "4 4"
  expect "jobs: every attempt of every task once" \
    "$(kn_psql "SELECT string_agg(t.task_key || '#' || r.attempt_no, ' ' ORDER BY t.task_key, r.attempt_no) FROM agent_results r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id WHERE r.batch = $batch")" \
    "shop-checkout#1 shop-checkout#2 shop-red-runner-cart#1 shop-red-runner-cart#2"
  expect "jobs: the killed worker's job re-claimed and completed by w2" \
    "$(kn_psql "SELECT j.attempts >= 2, r.worker FROM jobs j JOIN agent_results r ON r.job_id = j.id WHERE j.id = ${killed_job:-0}" | tr '|' ' ')" "t w2"
  expect "jobs: nothing stored by the killed worker" "$(kn_psql "SELECT count(*) FROM agent_results WHERE worker = 'w1'")" 0
  expect "jobs: every attempt a success" \
    "$(kn_psql "SELECT count(*) FROM agent_results WHERE batch = $batch AND status = 'done' AND completed")" 4
  b=$(api "$base/api/agent-runs/$batch")
  expect "jobs: GET /api/agent-runs/{id} progress" "$(jq -r '"\(.jobs) \(.done) \(.queued) \(.running)"' <<<"$b")" "4 4 0 0"
  expect "jobs: GET /api/agent-runs/{id} metrics" \
    "$(jq -r '.metrics | "\(.executable) \(.successes) \(.success_rate) \(.tasks_solved_all)"' <<<"$b")" "4 4 1 2"
  expect "jobs: GET /api/agent-runs/{id} per-task results" \
    "$(jq -r '[.tasks[] | "\(.task):\(.success_rate):\([.attempts[].completed] | join(","))"] | join(" ")' <<<"$b")" \
    "shop-checkout:1:true,true shop-red-runner-cart:1:true,true"
  expect "jobs: the answer of shop-checkout came through" \
    "$(kn_psql "SELECT count(*) FROM agent_results r WHERE batch = $batch AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.result -> 'key_nodes') k WHERE k ->> 'id' = 'total' AND (k ->> 'score')::float = 1)")" 2
  # every attempt's run is in runs/events (kind agent), as a --server attempt's: the dashboard shows it
  while IFS='|' read -r w t k rid; do
    f=$tmp/$w-out/$batch/$t/$k
    expect "jobs: $t #$k's run $rid in PostgreSQL: agent, ended, completed" \
      "$(kn_psql "SELECT kind || ' ' || (ended IS NOT NULL) || ' ' || completion || ' ' || status FROM runs WHERE id = '$rid'")" \
      "agent true true finished"
    expect "jobs: $t #$k's events = its trajectory's" \
      "$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$rid'")" "$(tail -n +2 "$f/trajectory.jsonl" | grep -c .)"
    expect "jobs: $t #$k's run on the API" "$(api "$base/api/runs/$rid" | jq -r '"\(.task) \(.completion) \(.events | length)"')" \
      "$t true $(tail -n +2 "$f/trajectory.jsonl" | grep -c .)"
  done < <(kn_psql "SELECT r.worker, t.task_key, r.attempt_no, r.result ->> 'run' FROM agent_results r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id WHERE r.batch = $batch ORDER BY 2, 3")
  expect "jobs: 4 agent runs of the batch in runs, none twice" \
    "$(kn_psql "SELECT count(DISTINCT id) FROM runs WHERE id IN (SELECT result ->> 'run' FROM agent_results WHERE batch = $batch)")" 4
  # GET /api/agent-runs: a page of batches, newest first, with progress and metrics; next_before pages on
  newer=$(api -X POST -d '{"agent": "other", "tasks": ["tasks:shop-checkout"]}' "$base/api/agent-runs" | jq -r .id)
  l=$(api "$base/api/agent-runs?limit=1")
  expect "list: limit 1 gives the newest batch and a cursor" "$(jq -r '"\(.batches | length) \(.batches[0].id) \(.next_before)"' <<<"$l")" "1 $newer $newer"
  l=$(api "$base/api/agent-runs?limit=1&before=$newer")
  expect "list: the next page is the older batch, with its progress and metrics" \
    "$(jq -r '.batches[0] | "\(.id) \(.agent) \(.jobs) \(.done) \(.executable) \(.successes) \(.success_rate) \(.url)"' <<<"$l")" \
    "$batch pw 4 4 4 4 1 /api/agent-runs/$batch"
  expect "list: the last page has no cursor" "$(api "$base/api/agent-runs?before=$batch" | jq -r '.next_before')" null
  expect "list: every batch, newest first" \
    "$(api "$base/api/agent-runs" | jq -r '[.batches[].id] | (. == (sort | reverse)) and (index('$batch') != null)')" true
  for q in "limit=0" "limit=x" "before=0" "before=-3" "before=abc" "before="; do
    expect "list: ?$q is 400" "$(api -o /dev/null -w '%{http_code}' "$base/api/agent-runs?$q")" 400
  done
  expect "list: no token needed to read (as GET /api/runs)" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/agent-runs")" \
    "$(curl -s -o /dev/null -w '%{http_code}' "$base/api/runs")"
  # a batch's uncertainty and sites (keynode run's code: kn_run_summary_stats, kn_task_site)
  b=$(api "$base/api/agent-runs/$batch")
  expect "stats: task success and its 95 % interval, pass@2, pass^2, per site" \
    "$(jq -c '[.stats.rates.task_success_rate, .stats.ci95.task_success_rate, .stats.pass_at_k["2"], .stats.pass_all_k["2"], (.stats.per_site | keys), .stats.denominators.planned.attempts]' <<<"$b")" \
    '[1,[1,1],1,1,["127.0.0.1"],4]'
  expect "stats: every task's site" "$(jq -r '[.tasks[].site] | join(" ")' <<<"$b")" "127.0.0.1 127.0.0.1"
  # Mind2Web-Live tasks have no start URL: their site is their first URL key node's (or its netloc)
  printf '%s\n' 'tasks:' \
    '  - { id: m2w-flight, intent: x, key_nodes: [ { url: { include: "/flights", netloc: united } } ] }' \
    '  - { id: m2w-tickets, intent: x, key_nodes: [ { url: { exact: "www.Tickets.org/buy |OR| http://b.test/y" } } ] }' >"$tmp/m2w.yaml"
  api -X POST --data-binary @"$tmp/m2w.yaml" "$base/api/tasksets?name=m2w" >/dev/null
  expect "sites: a task without a start URL has its URL key node's site" \
    "$(api "$base/api/tasks" | jq -r '[.tasks[] | select(.taskset == "m2w") | "\(.id)=\(.site)"] | join(" ")')" \
    "m2w-flight=united m2w-tickets=tickets.org"
  expect "sites: ?site= filters by it" "$(api "$base/api/tasks?site=united" | jq -r '[.tasks[].id] | join(" ")')" m2w-flight
  kn_psql "UPDATE task_versions SET site = NULL WHERE task_id IN (SELECT t.id FROM tasks t JOIN tasksets s ON s.id = t.taskset_id WHERE s.name = 'm2w')" >/dev/null
  api -X POST --data-binary @"$tmp/m2w.yaml" "$base/api/tasksets?name=m2w" >/dev/null
  expect "sites: a version stored without its site gets it when its set is loaded again" \
    "$(kn_psql "SELECT string_agg(v.site, ' ' ORDER BY t.task_key) FROM tasks t JOIN tasksets s ON s.id = t.taskset_id JOIN task_versions v ON v.id = t.current_version WHERE s.name = 'm2w'")" \
    "united tickets.org"
  # the paired comparison of two batches (keynode compare's kn_run_compare): $batch (pw, every attempt a
  # success) against $newer (agent "other" = true: shop-checkout failed once)
  kn_wait_sql 120 "SELECT state FROM jobs WHERE batch = ${newer:-0}" done || kn_fail "compare: batch $newer not run"
  c=$(api "$base/api/agent-runs/compare?a=$newer&b=$batch")
  expect "compare: paired on the task both ran, B won it, the rest listed" \
    "$(jq -c '[.a.batch, .b.batch, .paired, .sign_test.won, .sign_test.lost, .significant, .rates.task_success_rate.diff, [.per_task[] | "\(.task):\(.outcome)"], .only_b]' <<<"$c")" \
    "[$newer,$batch,1,1,0,false,1,[\"tasks:shop-checkout:won\"],[\"tasks:shop-red-runner-cart\"]]"
  expect "compare: the repeats differ, said" "$(jq -r '[.warnings[] | select(startswith("repeats differ"))] | length' <<<"$c")" 1
  expect "provenance: every result of a worker has keynode run's environment" \
    "$(kn_psql "SELECT count(*) FROM agent_results WHERE batch IN ($batch, $newer) AND result -> 'environment' ? 'chromium_version' AND result #>> '{environment,keynode_version}' <> '' AND result #>> '{environment,judge,semantic}' = 'offline'")" 5
  expect "compare: a batch against itself, no difference" \
    "$(api "$base/api/agent-runs/compare?a=$batch&b=$batch" | jq -c '[.paired, .sign_test.tied, .significant]')" "[2,2,false]"
  expect "compare: bad ids 400, an unknown batch 404" \
    "$(api -o /dev/null -w '%{http_code}' "$base/api/agent-runs/compare?a=x&b=$batch") $(api -o /dev/null -w '%{http_code}' "$base/api/agent-runs/compare?a=999999&b=$batch")" \
    "400 404"
  # the dashboard's list of batches and batch view, in a real browser (batch-page.mjs)
  mkdir -p "$tmp/dash"
  if kn_chromium_start "$tmp/dash"; then
    node "$repo/tests/integration/batch-page.mjs" "$cdp" "$base" "$token" "$batch" 4 2 "$newer" m2w-flight united >"$tmp/dash/page.out" 2>&1
    prc=$?
    sed 's/^/  /' "$tmp/dash/page.out"
    [ $prc = 0 ] && kn_ok "jobs: the dashboard shows the batch" || kn_fail "jobs: batch-page.mjs exit $prc"
    kn_stop "$cpid"
  fi
fi

if want security; then
  expect "security: an agent named by a command line: 400" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "node /tmp/x.mjs", "taskset": "tasks"}' "$base/api/agent-runs")" 400
  expect "security: tasks and taskset together: 400" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "pw", "taskset": "tasks", "tasks": ["x"]}' "$base/api/agent-runs")" 400
  expect "security: repeat 0: 400" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "pw", "taskset": "tasks", "repeat": 0}' "$base/api/agent-runs")" 400
  expect "security: an unknown task set: 404" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "pw", "taskset": "nope"}' "$base/api/agent-runs")" 404
  expect "security: an unknown task: 404, no batch left" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "pw", "tasks": ["tasks:shop-checkout", "tasks:nope"]}' "$base/api/agent-runs") $(kn_psql "SELECT count(*) FROM jobs WHERE kind = 'agent' AND batch NOT IN (SELECT id FROM agent_batches)")" "404 0"
  expect "security: no token: 401" \
    "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "pw", "taskset": "tasks"}' "$base/api/agent-runs")" 401
  expect "security: an unknown batch: 404" "$(api -o /dev/null -w '%{http_code}' "$base/api/agent-runs/999999")" 404
  # a job of an agent no worker has: w2 (agents pw, other) leaves it queued, finds the rest of the
  # batch ("other", taskset: every task once) and runs it
  nob=$(api -X POST -d '{"agent": "nobody", "tasks": ["tasks:shop-checkout"]}' "$base/api/agent-runs" | jq -r .id)
  oth=$(api -X POST -d '{"agent": "other", "tasks": ["tasks:shop-checkout"]}' "$base/api/agent-runs" | jq -r .id)
  kn_wait_sql 120 "SELECT state FROM jobs WHERE batch = ${oth:-0}" done ||
    kn_fail "security: the job of agent 'other' was not run"
  expect "security: the job of an agent no worker has stays queued, never claimed" \
    "$(kn_psql "SELECT state || ' ' || attempts FROM jobs WHERE batch = ${nob:-0}")" "queued 0"
  printf 'agents:\n  "node x.mjs": "true"\n' >"$tmp/bad.yaml"
  "$kn" worker --config "$tmp/bad.yaml" --once >/dev/null 2>"$tmp/bad.err"
  rc=$?
  [ $rc = 2 ] && grep -q "bad.yaml:2:3: agents: a name" "$tmp/bad.err" && kn_ok "security: a bad agent name stops the worker with file:line:col" ||
    kn_fail "security: bad agents: exit $rc, $(cat "$tmp/bad.err")"
fi

if want jobs; then
  kill -TERM "$w2_pid" 2>/dev/null
  kn_wait_for "w2 to end on SIGTERM" 15 kn_ended "$w2_pid"
  wait "$w2_pid"
  expect "jobs: w2 exits 0 on SIGTERM" $? 0
  kn_forget "$w2_pid"
  keep=""
  check_clean jobs
fi
if want retries; then
  # infrastructure errors of agent jobs are tried again up to the batch's "retries", as keynode run
  # --retries: an agent that cannot start (sh exit 127) the first time runs on the second try; one that
  # never can is an error after 1 + retries tries, each errored try's folder kept aside
  cat >"$tmp/retries.yaml" <<EOF
agents:
  flaky: "if [ ! -e $tmp/flaky-\$KEYNODE_TASK_ID ]; then touch $tmp/flaky-\$KEYNODE_TASK_ID; exec $tmp/no-such-agent; fi; true"
  missing: "exec $tmp/no-such-agent"
EOF
  [ "$(kn_psql "SELECT count(*) FROM tasksets WHERE name = 'tasks'")" = 1 ] ||
    api -X POST --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=tasks" >/dev/null
  bf=$(api -X POST -d '{"agent": "flaky", "tasks": ["tasks:shop-checkout"]}' "$base/api/agent-runs" | jq -r .id)
  bm=$(api -X POST -d '{"agent": "missing", "tasks": ["tasks:shop-checkout"], "retries": 2}' "$base/api/agent-runs" | jq -r .id)
  b0=$(api -X POST -d '{"agent": "missing", "tasks": ["tasks:shop-checkout"], "retries": 0}' "$base/api/agent-runs" | jq -r .id)
  expect "retries: POST with retries 11 is 400" \
    "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"agent": "missing", "taskset": "tasks", "retries": 11}' "$base/api/agent-runs")" 400
  kn_spawn -o "$tmp/w3.out" -e "$tmp/w3.log" w3 "$kn" worker --config "$tmp/retries.yaml" --id w3 --poll 200 --lease 10 \
    --agent-out "$tmp/w3-out" --agent-timeout 60
  w3_pid=$kn_pid
  keep="$w3_pid"
  kn_wait_sql 180 "SELECT count(*) FROM jobs WHERE batch IN (${bf:-0}, ${bm:-0}, ${b0:-0}) AND state = 'done'" 3 ||
    kn_fail "retries: the jobs did not finish: $(tail -5 "$tmp/w3.log")"
  res() { kn_psql "SELECT status || ' ' || retried || ' ' || COALESCE(result #>> '{attempt,reason}', '-') FROM agent_results WHERE batch = ${1:-0}"; }
  expect "retries: the agent that could not start once ran on the retry" "$(res "$bf")" "done 1 -"
  expect "retries: its first try kept aside" "$(ls -d "$tmp"/w3-out/"$bf"/shop-checkout/1.error-* 2>/dev/null | wc -l)" 1
  expect "retries: the retry's run is in runs" \
    "$(kn_psql "SELECT count(*) FROM runs WHERE kind = 'agent' AND id = (SELECT result ->> 'run' FROM agent_results WHERE batch = ${bf:-0})")" 1
  expect "retries: the agent that never starts: error after 1 + 2 tries" "$(res "$bm")" \
    "error 2 agent could not start: exit 127 from /bin/sh (command not found or not executable)"
  expect "retries: its two errored tries kept aside" "$(ls -d "$tmp"/w3-out/"$bm"/shop-checkout/1.error-* 2>/dev/null | wc -l)" 2
  expect "retries: with retries 0, one try" "$(res "$b0") $(ls -d "$tmp"/w3-out/"$b0"/shop-checkout/1.error-* 2>/dev/null | wc -l)" \
    "error 0 agent could not start: exit 127 from /bin/sh (command not found or not executable) 0"
  expect "retries: the batch view says retried and excludes the error" \
    "$(api "$base/api/agent-runs/$bm" | jq -r '"\(.retries) \(.tasks[0].attempts[0].retried) \(.metrics.errors) \(.metrics.executable)"')" "2 2 1 0"
  kill -TERM "$w3_pid" 2>/dev/null
  wait "$w3_pid"
  expect "retries: w3 exits 0 on SIGTERM" $? 0
  kn_forget "$w3_pid"
  keep=""
  check_clean retries
fi

if want external; then
  # an external run (POST /api/runs without "browser") with "step_limit": 2 ends at the post that spends
  # the budget, as `watch --step-limit` does; with -1 (none) the same posts leave it running
  [ "$(kn_psql "SELECT count(*) FROM tasksets WHERE name = 'tasks'")" = 1 ] ||
    api -X POST --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=tasks" >/dev/null
  click() { printf '{"t":%s,"type":"click","url":"http://127.0.0.1:%s/shop/","selector":"#b%s","text":"b%s"}' "$1" "$port" "$1" "$1"; }
  for lim in 2 -1; do
    xid=$(api -X POST -d "{\"task\": \"tasks:shop-red-runner-cart\", \"step_limit\": $lim}" "$base/api/runs" | jq -r .id)
    got=
    for i in 1 2 3 4; do
      got+="$(api -o "$tmp/ext.body" -w '%{http_code}' -X POST -d "$(click $i)" "$base/api/runs/$xid/events"):$(jq -r '.status // "-"' "$tmp/ext.body" 2>/dev/null) "
    done
    r=$(api "$base/api/runs/$xid")
    if [ "$lim" = 2 ]; then
      expect "external: step_limit 2: the third step's post ends the run, the next is refused" "$got" \
        "200:running 200:running 200:ended 409:- "
      expect "external: step_limit 2: status step_limit, ended" "$(jq -r '"\(.status) \(.ended != null)"' <<<"$r")" "step_limit true"
      expect "external: step_limit 2: in PostgreSQL, ended" \
        "$(kn_psql "SELECT (ended IS NOT NULL) FROM runs WHERE id = '$xid'")" t
    else
      expect "external: step_limit -1: every post taken, still running" "$got" \
        "200:running 200:running 200:running 200:running "
      api -o /dev/null -X POST "$base/api/runs/$xid/stop"
    fi
  done
fi

grep -q 'level=error' "$tmp/serve.log" && kn_fail "serve logged errors: $(grep 'level=error' "$tmp/serve.log" | head -3)"
[ "$kn_fails" = 0 ] || for f in serve w1 w2 srv; do [ -f "$tmp/$f.log" ] && { echo "$f log:"; tail -8 "$tmp/$f.log" | sed 's/^/    /'; }; done
kn_finish
