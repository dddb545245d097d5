#!/bin/bash
# agentlive.sh — a worker's agent attempt watched and taken over from the dashboard (items 1–2;
# services/live/README.md "Agent attempts"), end to end: a private PostgreSQL, `keynode serve` (token),
# `keynode worker` with an agent (tests/agents/wall.mjs) and tests/sites/live/wall.html (a consent wall
# the default `blocked:` rules know, whose Accept button no dismiss rule knows):
#   - POST /api/agent-runs: the attempt's frames reach the dashboard's #/live/<run> while it runs
#     (agentlive.mjs, headless Chromium); the monitor says the page blocks: Take over appears;
#   - taken over with the token: the agent is paused, a click on the frame accepts the wall, Hand back:
#     the agent goes on past the wall to done.html and the attempt ends;
#   - the stored trajectory marks the person's events "human": true (the Accept click among them),
#     never the agent's; the result does not credit the agent with the `accept` key node only the person
#     reached (score 0.5: `done` is the agent's), and `keynode score` on the stored trajectory agrees
#     (kn_eval_run: one scorer); result.json keeps the takeover (takeovers[].actions, human);
#   - a `keynode run --server` attempt (serve watches it on the attempt's browser) is watched too, and a
#     take on it is refused 409 with the reason (an agent drives it), never answered "taken"; without
#     the token the live view is refused.
# usage: agentlive.sh KEYNODE SOURCE_DIR [OUT_DIR]
#
# ctest: integration.agentlive ARGS=keynode,repo,build:artifacts/agentlive TIMEOUT=300
kn=$1 src=$2 out=${3:-}
. "$(dirname "$0")/lib.sh"
kn_lib_init agentlive
[ -n "$out" ] && mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
export TMPDIR=$tmp # the attempt's browser profile lives here
export KEYNODE_CHROMIUM=$kn_chromium
kn_api_start "$kn" || kn_finish
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
kn_task_at_site "$src/tests/sites/live/tasks.yaml" "$tmp/tasks.yaml" "$port"
code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=live")
[ "$code" = 201 ] || { kn_fail "taskset upload: $code $(cat "$tmp/ts.json")"; kn_finish; }
cat >"$tmp/keynode.yaml" <<YAML
database: { url: "$KN_PG_URL" }
agents:
  wall: "node $src/tests/agents/wall.mjs"
YAML
kn_spawn -o "$tmp/worker.out" -e "$tmp/worker.log" worker "$kn" worker --config "$tmp/keynode.yaml" --id aw --poll 200 \
  --agent-out "$tmp/attempts" --agent-timeout 240
worker_pid=$kn_pid

# 1. a `keynode run --server` attempt: serve's monitor and serve's live view attach to the attempt's own
#    browser (POST /api/runs with it), so its page is watched from the dashboard like a worker's — but
#    an agent drives it in another process: a take is refused 409 with why, never answered "taken"
KEYNODE_API_TOKEN=$token kn_spawn remote "$kn" run --server "$base" --tasks "$tmp/tasks.yaml" --taskset live --task live-busy \
  --out "$tmp/remote" --agent "sleep 40" --timeout 60
remote_pid=$kn_pid
live_agent_run_() { kn_psql "SELECT id FROM runs WHERE kind = 'agent' AND ended IS NULL LIMIT 1" | grep .; }
kn_wait_for "the run --server attempt's run on serve" 90 live_agent_run_
rid=$(live_agent_run_)
[ -n "$rid" ] || kn_fail "keynode run --server: no run on serve ($(tail -3 "$tmp/remote.log"))"
node "$here/live-frames.mjs" "${base/http/ws}" "$rid" "$token" 2 90 >"$tmp/remote-frames.json" 2>"$tmp/remote-frames.err" &&
  jq -e '.frames >= 2 and .w > 0' "$tmp/remote-frames.json" >/dev/null &&
  kn_ok "a keynode run --server attempt is watched: its frames reach a viewer ($(jq -c . "$tmp/remote-frames.json"))" ||
  kn_fail "keynode run --server frames: $(cat "$tmp/remote-frames.json" "$tmp/remote-frames.err")"
node "$here/live-take.mjs" "${base/http/ws}" "$rid" "$token" 90 >"$tmp/take-run.json" 2>"$tmp/take-run.err"
jq -e '.reply.type == "error" and .reply.status == 409 and (.reply.error | test("cannot be taken over"))' \
  "$tmp/take-run.json" >/dev/null &&
  kn_ok "a take on a run serve watches is refused 409: $(jq -r .reply.error "$tmp/take-run.json")" ||
  kn_fail "take on a serve-watched run: $(cat "$tmp/take-run.json" "$tmp/take-run.err")"
grep -q 'msg="takeover refused" run='"$rid"'.*cannot be taken over' "$tmp/serve.log" &&
  kn_ok "serve logs the refused takeover with its reason" || kn_fail "no refused-takeover log line"
node "$here/live-take.mjs" "${base/http/ws}" "$rid" "" 20 >"$tmp/take-anon.json" 2>"$tmp/take-anon.err"
[ $? = 1 ] && kn_ok "without the token the live view (and so a take) is refused" ||
  kn_fail "without the token: $(cat "$tmp/take-anon.json" "$tmp/take-anon.err")"

# 2. the agent attempt, watched and taken over from the dashboard
code=$(curl -s -o "$tmp/batch.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' \
  --data '{"agent": "wall", "tasks": ["live:live-agent-wall"]}' "$base/api/agent-runs")
batch=$(jq -r .id "$tmp/batch.json" 2>/dev/null)
[ "$code" = 201 ] || [ "$code" = 202 ] || { kn_fail "POST /api/agent-runs: $code $(cat "$tmp/batch.json")"; kn_finish; }
job=$(kn_psql "SELECT id FROM jobs WHERE batch = $batch")
run="b$batch-j$job-c1"
node "$here/agentlive.mjs" "$cdp" "$base" "$token" "$run" "${out:-$tmp}" >"$tmp/page.out" 2>"$tmp/page.err"
page_rc=$?
while read -r l; do case $l in ok*) kn_ok "${l#ok   }";; FAIL*) kn_fail "${l#FAIL }";; esac; done <"$tmp/page.out"
[ "$page_rc" = 0 ] || kn_fail "agentlive.mjs: exit $page_rc $(tail -5 "$tmp/page.err")"
kn_wait_sql 120 "SELECT count(*) FROM agent_results WHERE batch = $batch" 1 ||
  kn_fail "no agent result (worker: $(tail -3 "$tmp/worker.log"))"
res=$(kn_psql "SELECT result FROM agent_results WHERE batch = $batch")
jq -e '.attempt.status == "done" and .attempt.exit_code == 0' <<<"$res" >/dev/null &&
  kn_ok "the agent went on after the hand back and exited 0" ||
  kn_fail "attempt: $(jq -c '.attempt' <<<"$res") agent.log: $(tail -3 "$tmp"/attempts/*/*/1/agent.log)"
jq -e '([.key_nodes[] | select(.id == "accept")][0].score == 0) and ([.key_nodes[] | select(.id == "done")][0].score == 1)
   and .score == 0.5 and .completion == false and .human_events >= 1' <<<"$res" >/dev/null &&
  kn_ok "scored: done is the agent's, accept (reached only by the person) is not ($(jq -c '{score, human_events}' <<<"$res"))" ||
  kn_fail "score: $(jq -c '{score, completion, human_events, key_nodes: [.key_nodes[] | {id, score}]}' <<<"$res")"
jq -e '(.takeovers | length) == 1 and ([.takeovers[0].actions[] | select(.type == "click" and .human == true)] | length) >= 1' \
  <<<"$res" >/dev/null && kn_ok "result.json keeps the takeover and the person's click" ||
  kn_fail "takeovers: $(jq -c '.takeovers' <<<"$res")"
human=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$run' AND line->>'type' = 'click' AND line->>'selector' = '#accept' AND (line->>'human')::boolean")
agent_next=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$run' AND line->>'type' = 'click' AND line->>'selector' = '#next' AND line->>'human' IS NULL")
[ "${human:-0}" -ge 1 ] && [ "${agent_next:-0}" -ge 1 ] &&
  kn_ok "the stored trajectory: the Accept click is human, the agent's Next click is not" ||
  kn_fail "events: human accept $human, agent next $agent_next: $(kn_psql "SELECT string_agg(line::text, E'\n' ORDER BY seq) FROM events WHERE run_id = '$run'")"
# the attempt's trajectory scored by keynode score (kn_eval_run: the one scorer) says the same
cp "$(ls "$tmp"/attempts/"$batch"/*/1/trajectory.jsonl | head -1)" "$tmp/stored.jsonl"
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/stored.jsonl" --json --step-limit -1 >"$tmp/score.json" 2>"$tmp/score.err"
jq -e '.results[0] | .score == 0.5 and ([.key_nodes[] | select(.id == "accept")][0].score == 0) and .human_events >= 1' \
  "$tmp/score.json" >/dev/null && kn_ok "keynode score on the stored trajectory: the same 0.5, accept not the agent's" ||
  kn_fail "keynode score: $(jq -c '.results[0] | {score, human_events}' "$tmp/score.json" 2>/dev/null) $(head -c 300 "$tmp/score.err")"
grep -q 'component=live msg="takeover" run='"$run" "$tmp/worker.log" && grep -q 'msg="handed back" run='"$run" "$tmp/worker.log" &&
  kn_ok "the worker logs the takeover and the hand back" || kn_fail "no takeover lines in the worker log"
wait "$remote_pid"
rc=$?
kn_forget "$remote_pid"
[ "$rc" = 0 ] && [ "$(jq -r .attempt.status "$tmp/remote/live-busy/1/result.json" 2>/dev/null)" = done ] &&
  kn_ok "the keynode run --server attempt ended as usual" || kn_fail "keynode run --server: exit $rc $(tail -3 "$tmp/remote.log")"
kill -0 "$serve_pid" 2>/dev/null && kill -0 "$worker_pid" 2>/dev/null && kn_ok "serve and worker still running" ||
  kn_fail "a process died"
kn_finish
