#!/usr/bin/env bash
# serve.sh — `keynode serve` end to end against real things: a private PostgreSQL cluster (migrated with
# `keynode migrate`), `keynode sites`, a private headless Chromium, Playwright as the agent and a
# websocket client (`ws` from node/) on /api/stream. Checks: start-up errors (bad config, database not
# migrated, port taken: exit 2 with one line); task sets loaded over the API and versioned; a watched run
# (the agent drives the browser, the service scores it live) seen in the database, over the stream and in
# GET /api/runs/{id}; auth (every write 401 without/with a wrong token, reads open on loopback); SQL
# injection strings and odd bytes in every path/query/body parameter (a 4xx JSON error, the database
# unchanged); 413/400/404/405; /healthz; /metrics parsed as Prometheus text; durability (PostgreSQL
# stopped in the middle of a run while events keep coming: afterwards every event is stored exactly once,
# seq 1..N without gaps); SIGTERM with a live run (its result written, exit 0); agent batches stored by SQL:
# their uncertainty and their paired comparison (GET /api/agent-runs/{id} stats, /api/agent-runs/compare).
#
#   serve.sh KEYNODE_BINARY REPO_DIR
# Needs PostgreSQL 15, Chromium, node + node/ensure.sh packages, curl, jq: a missing one is a failure.
#
# ctest: integration.serve ARGS=keynode,repo TIMEOUT=600
set -u -o pipefail
KN=${1:?usage: serve.sh KEYNODE REPO}
REPO=${2:?usage: serve.sh KEYNODE REPO}
. "$(dirname "$0")/lib.sh"
kn_lib_init serve
HERE=$(cd "$(dirname "$0")" && pwd)
TOKEN=t0k-$RANDOM$RANDOM
W=(-H "Authorization: Bearer $TOKEN")

for t in curl jq node; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
"$HERE/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -2 "$tmp/ensure.log")"; kn_finish; }
kn_pg_start || kn_finish

# --- start-up errors ------------------------------------------------------------------------------------
out=$("$KN" serve --help 2>&1); rc=$?
[ $rc = 0 ] && grep -q -- "--listen" <<<"$out" && kn_ok "serve --help" || kn_fail "serve --help: exit $rc"
printf 'database: { url: "%s" }\nbogus: 1\n' "$KN_PG_URL" >"$tmp/bad.yaml"
out=$("$KN" serve --config "$tmp/bad.yaml" 2>&1); rc=$?
[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && kn_ok "bad config: exit 2, one line ($out)" || kn_fail "bad config: exit $rc: $out"
out=$(KEYNODE_DATABASE_URL="$KN_PG_URL" "$KN" serve --listen 127.0.0.1:0 --spool-dir "$tmp/spool0" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "keynode migrate" <<<"$out" && kn_ok "not migrated: exit 2 says run keynode migrate" || kn_fail "not migrated: exit $rc: $out"
out=$(KEYNODE_DATABASE_URL="host=$tmp/nosuch port=1 user=x dbname=x" "$KN" serve --listen 127.0.0.1:0 --spool-dir "$tmp/spool0" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "database unreachable" <<<"$out" && kn_ok "database unreachable: exit 2" || kn_fail "unreachable db: exit $rc: $out"
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }

kn_sites_start "$KN" "$REPO/tests/sites" "$tmp/sites.log" || kn_finish
sport=$port
kn_chromium_start "$tmp/chrome" || kn_finish
kn_task_at_site "$REPO/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$sport"
ntasks=$(grep -c '^  - id:' "$tmp/tasks.yaml")

P=
start_serve() {
  P=$(kn_free_port)
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_spawn -a -o "$tmp/serve.err" serve \
    "$KN" serve --listen "127.0.0.1:$P" --spool-dir "$tmp/spool" --log-requests
  spid=$kn_pid
  kn_wait_for "serve's /healthz" 20 kn_ended_or "$spid" curl -s -o /dev/null "http://127.0.0.1:$P/healthz"
  curl -s -o /dev/null "http://127.0.0.1:$P/healthz" && return 0
  kn_fail "serve did not start: $(tail -3 "$tmp/serve.err")"
  kn_finish
}
start_serve
B=http://127.0.0.1:$P

# api ARGS… — curl; prints the status code, the body lands in $tmp/body, headers in $tmp/hdr
api() { curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' "$@"; }
is_error_json() { jq -e 'has("error") and has("detail") and (.error|type=="string")' "$tmp/body" >/dev/null 2>&1; }

out=$(KEYNODE_DATABASE_URL="$KN_PG_URL" "$KN" serve --listen "127.0.0.1:$P" --spool-dir "$tmp/spool1" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "in use" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ] && kn_ok "port taken: exit 2 ($out)" || kn_fail "port taken: exit $rc: $out"

# --- plain routes -----------------------------------------------------------------------------------------
c=$(api "$B/healthz"); [ "$c" = 200 ] && jq -e '.ok == true and .database == true' "$tmp/body" >/dev/null && kn_ok "/healthz 200" || kn_fail "/healthz $c $(cat "$tmp/body")"
c=$(api "$B/api/nope"); [ "$c" = 404 ] && is_error_json && kn_ok "unknown route 404 JSON" || kn_fail "unknown route: $c"
c=$(api -X DELETE "$B/api/runs"); [ "$c" = 405 ] && is_error_json && kn_ok "wrong method 405" || kn_fail "DELETE /api/runs: $c"
c=$(api "$B/"); [ "$c" = 200 ] && grep -qi "^content-type: text/html" "$tmp/hdr" && grep -qi "^content-security-policy:.*script-src 'self'" "$tmp/hdr" \
  && kn_ok "/ serves the dashboard with a CSP" || kn_fail "/: $c $(head -5 "$tmp/hdr")"
dash=$REPO/services/http/dashboard
if [ -f "$dash/index.html" ]; then
  c=$(api "$B/"); cmp -s "$tmp/body" "$dash/index.html" && kn_ok "/ is the embedded dashboard/index.html" || kn_fail "/ is not dashboard/index.html"
  bad=0
  for f in "$dash"/*.js "$dash"/*.css; do
    [ -f "$f" ] || continue
    c=$(api "$B/static/$(basename "$f")")
    case $f in *.js) want=text/javascript ;; *.css) want=text/css ;; esac
    { [ "$c" = 200 ] && cmp -s "$tmp/body" "$f" && grep -qi "^content-type: $want" "$tmp/hdr"; } || { bad=1; echo "    /static/$(basename "$f"): $c"; }
  done
  [ $bad = 0 ] && kn_ok "every dashboard script and style sheet embedded, byte-exact, with its content type" || kn_fail "dashboard files"
  grep -qi '<script>' "$dash/index.html" && kn_fail "index.html has an inline script (the CSP blocks it)" || kn_ok "index.html has no inline script"
else
  kn_fail "no services/http/dashboard/index.html"
fi
c=$(api "$B/static/does-not-exist.js"); [ "$c" = 404 ] && kn_ok "/static/ missing file 404" || kn_fail "/static/missing: $c"
c=$(api "$B/api/stream"); [ "$c" = 400 ] && is_error_json && kn_ok "/api/stream without upgrade: 400" || kn_fail "/api/stream plain: $c"

# --- task sets ---------------------------------------------------------------------------------------------
c=$(api "${W[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] && jq -e ".tasks == $ntasks and .new_versions == $ntasks and .name == \"sites\"" "$tmp/body" >/dev/null \
  && kn_ok "POST /api/tasksets: 201, $ntasks tasks" || kn_fail "POST /api/tasksets: $c $(cat "$tmp/body")"
c=$(api "${W[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] && jq -e '.new_versions == 0' "$tmp/body" >/dev/null && kn_ok "same file again: no new versions" || kn_fail "reload: $c $(cat "$tmp/body")"
c=$(api "$B/api/tasks"); [ "$c" = 200 ] && jq -e ".tasks | length == $ntasks" "$tmp/body" >/dev/null && kn_ok "GET /api/tasks (no token, loopback): $ntasks" || kn_fail "GET /api/tasks: $c"
c=$(api "$B/api/tasks/shop-red-runner-cart"); [ "$c" = 200 ] && jq -e '.id == "shop-red-runner-cart" and (.key_nodes|length) == 5' "$tmp/body" >/dev/null && kn_ok "GET /api/tasks/{id}" || kn_fail "GET task: $c $(head -c 300 "$tmp/body")"
c=$(api "$B/api/tasks/sites:shop-red-runner-cart/health"); [ "$c" = 200 ] && kn_ok "GET /api/tasks/{set:id}/health" || kn_fail "health: $c $(cat "$tmp/body")"
printf 'tasks:\n  - id: broken\n    intent: x\n    start_url: http://127.0.0.1/\n    key_nodes:\n      - id: k1\n        url: { fuzzy: 1 }\n' >"$tmp/badtasks.yaml"
c=$(api "${W[@]}" --data-binary @"$tmp/badtasks.yaml" "$B/api/tasksets?name=bad")
[ "$c" = 422 ] && is_error_json && jq -e '.detail | test(":[0-9]+")' "$tmp/body" >/dev/null && kn_ok "a task file that does not load: 422 with file:line ($(jq -r .detail "$tmp/body"))" || kn_fail "bad task file: $c $(cat "$tmp/body")"
printf 'tasks:\n  - id: open\n    intent: x\n    start_url: http://127.0.0.1/\n    key_nodes: [ { url: { include: a } } ]\n    guard: [ { url: { include: "" } } ]\n' >"$tmp/allguard.yaml"
c=$(api "${W[@]}" --data-binary @"$tmp/allguard.yaml" "$B/api/tasksets?name=allguard")
[ "$c" = 422 ] && jq -e '.detail | test(":6:14: task .open.: guard rule matches every request")' "$tmp/body" >/dev/null \
  && kn_ok "a guard rule matching every request: 422 with its position ($(jq -r .detail "$tmp/body"))" \
  || kn_fail "match-all guard rule: $c $(cat "$tmp/body")"

# --- auth ------------------------------------------------------------------------------------------------
writes=("/api/tasksets?name=x" "/api/runs" "/api/runs/r-x/events" "/api/runs/r-x/answer" "/api/runs/r-x/stop" "/api/replays" "/api/alerts/1/ack")
bad=0
for w in "${writes[@]}"; do
  c=$(api -d '{}' "$B$w"); { [ "$c" = 401 ] && grep -qi '^www-authenticate: Bearer' "$tmp/hdr" && is_error_json; } || { bad=1; echo "    no token $w: $c"; }
  c=$(api -H "Authorization: Bearer wrong$TOKEN" -d '{}' "$B$w"); [ "$c" = 401 ] || { bad=1; echo "    wrong token $w: $c"; }
  c=$(api -H "Authorization: Bearer ${TOKEN%?}" -d '{}' "$B$w"); [ "$c" = 401 ] || { bad=1; echo "    token prefix $w: $c"; }
done
[ $bad = 0 ] && kn_ok "every write: 401 + WWW-Authenticate without, with a wrong and with a truncated token" || kn_fail "auth"

# --- injection strings and odd bytes --------------------------------------------------------------------
counts() { kn_psql "SELECT (SELECT count(*) FROM tasksets)||','||(SELECT count(*) FROM tasks)||','||(SELECT count(*) FROM task_versions)||','||(SELECT count(*) FROM runs)||','||(SELECT count(*) FROM events)||','||(SELECT count(*) FROM jobs)||','||(SELECT count(*) FROM alerts)"; }
before=$(counts)
bad=0
check4xx() { # CODE WANT DESC
  if [[ "$1" =~ ^4[0-9][0-9]$ ]] && is_error_json && { [ -z "$2" ] || [ "$1" = "$2" ]; }; then :; else bad=1; echo "    $3: $1 $(head -c 200 "$tmp/body")"; fi
}
for inj in "%27%20OR%201%3D1--" "x%27%3B%20DROP%20TABLE%20runs%3B--" "%22%3B%20DELETE%20FROM%20tasks%3B" "1%20OR%201%3D1" "%E2%80%AE%F0%9F%92%A5" "..%2F..%2Fetc%2Fpasswd" "r-%25s%25n%25x"; do
  check4xx "$(api "$B/api/tasks/$inj")" 404 "GET /api/tasks/$inj"
  check4xx "$(api "$B/api/tasks/$inj/health")" 404 "GET health $inj"
  check4xx "$(api "$B/api/runs/$inj")" 404 "GET /api/runs/$inj"
  check4xx "$(api "${W[@]}" -d '{"t":1,"type":"click"}' "$B/api/runs/$inj/events")" 404 "POST events $inj"
  check4xx "$(api "${W[@]}" -d '{"text":"x"}' "$B/api/runs/$inj/answer")" 404 "POST answer $inj"
  check4xx "$(api "${W[@]}" -X POST "$B/api/runs/$inj/stop")" 404 "POST stop $inj"
  check4xx "$(api "${W[@]}" -X POST "$B/api/alerts/$inj/ack")" 404 "POST ack $inj"
  check4xx "$(api "$B/api/replays/$inj/screenshot")" 404 "GET screenshot $inj"
  check4xx "$(api "$B/api/runs?task=$inj&limit=5")" 404 "GET /api/runs?task=$inj"
  c=$(api "$B/api/tasks?site=$inj"); [ "$c" = 200 ] && jq -e '.tasks == []' "$tmp/body" >/dev/null || { bad=1; echo "    tasks?site=$inj: $c"; }
done
for odd in "%01%02" "%FF%FE" "%C0%AF" "%7F" "%1B%5B31m"; do
  check4xx "$(api "$B/api/tasks/$odd")" "" "GET /api/tasks/$odd"
  check4xx "$(api "$B/api/runs?task=$odd")" 400 "runs?task=$odd"
done
check4xx "$(api "$B/api/runs?limit=1%3BDROP%20TABLE%20runs")" 400 "limit injection"
check4xx "$(api "$B/api/runs?limit=-1")" 400 "limit -1"
check4xx "$(api "$B/api/tasks?status=%27%20OR%20%271")" 400 "status injection"
check4xx "$(api "$B/api/alerts?all=1%20OR%201")" 400 "all injection"
for body in '{"task":"'"'"' OR 1=1--"}' '{"task":"x\"; DROP TABLE runs;--"}' '{"task":"shop-red-runner-cart","until":"forever"}' '{"task":5}' '{"task":"a\u0000b"}' '{"task":["x"]}' '{}'; do
  check4xx "$(api "${W[@]}" -d "$body" "$B/api/runs")" "" "POST /api/runs $body"
done
check4xx "$(api "${W[@]}" -d '{"task":"'"'"';DELETE FROM jobs;--"}' "$B/api/replays")" 404 "POST /api/replays injection"
c=$(api "${W[@]}" -d '{"task":"shop-red-runner-cart","browser":"http://127.0.0.1:1"}' "$B/api/runs")
[ "$c" = 502 ] && is_error_json || { bad=1; echo "    unreachable browser: $c"; }
check4xx "$(api "${W[@]}" --data-binary $'tasks:\n  - id: "x\'; DROP TABLE tasks;--"\n    intent: [' "$B/api/tasksets?name=%27%3BDROP")" 422 "tasksets injection"
# lws itself closes the connection on a %00 in the path, before any callback (no answer at all)
c=$(api "$B/api/tasks/a%00b"); c2=$(api "$B/healthz"); [ "$c2" = 200 ] || { bad=1; echo "    after %00: $c / healthz $c2"; }
after=$(counts)
[ $bad = 0 ] && kn_ok "injection strings and odd bytes in every parameter: 4xx JSON errors" || kn_fail "injection answers"
[ "$before" = "$after" ] && kn_ok "database unchanged by them ($after)" || kn_fail "database changed: $before -> $after"

# --- malformed, too large --------------------------------------------------------------------------------
c=$(api "${W[@]}" -d '{"task": ' "$B/api/runs"); [ "$c" = 400 ] && is_error_json && kn_ok "malformed JSON: 400 {error, detail} ($(jq -r .detail "$tmp/body"))" || kn_fail "malformed JSON: $c"
head -c 70000 /dev/zero | tr '\0' 'a' >"$tmp/big"
c=$(api "${W[@]}" --data-binary @"$tmp/big" "$B/api/runs"); [ "$c" = 413 ] && is_error_json && kn_ok "body over 64 KiB: 413" || kn_fail "big body: $c"
head -c 9000000 /dev/zero | tr '\0' 'a' >"$tmp/huge"
c=$(api "${W[@]}" --data-binary @"$tmp/huge" "$B/api/tasksets?name=huge"); [ "$c" = 413 ] && kn_ok "task file over 8 MiB: 413" || kn_fail "huge taskset: $c"
c=$(api "$B/healthz"); [ "$c" = 200 ] && kn_ok "still serving after the refusals" || kn_fail "healthz after 413: $c"

# --- a watched run: the agent drives the browser, the service scores it live ----------------------------
kn_spawn stream-all node "$HERE/stream-client.mjs" "ws://127.0.0.1:$P/api/stream" "$tmp/stream-all.jsonl" "" 120
for _ in $(seq 1 100); do grep -q '"open"' "$tmp/stream-all.jsonl" 2>/dev/null && break; sleep 0.05; done
c=$(api "${W[@]}" -d "{\"task\":\"shop-red-runner-cart\",\"browser\":\"$cdp\",\"until\":\"finished\"}" "$B/api/runs")
RID=$(jq -r .id "$tmp/body" 2>/dev/null)
[ "$c" = 201 ] && [ -n "$RID" ] && jq -e '.status == "running" and .attached == true' "$tmp/body" >/dev/null && kn_ok "POST /api/runs (watched): 201 $RID, answered once attached" || { kn_fail "POST /api/runs: $c $(cat "$tmp/body")"; kn_finish; }
kn_spawn stream-run node "$HERE/stream-client.mjs" "ws://127.0.0.1:$P/api/stream?run=$RID" "$tmp/stream-run.jsonl" "$RID" 60
for _ in $(seq 1 100); do grep -q '"open"' "$tmp/stream-run.jsonl" 2>/dev/null && break; sleep 0.05; done
# no pause before the agent: POST /api/runs answered once every tab was attached and recorded
node "$REPO/tests/integration/agents/shop.mjs" "$cdp" "http://127.0.0.1:$sport" "$tmp/marks" full >"$tmp/agent.out" 2>&1
rc=$?; [ $rc = 0 ] && kn_ok "agent (Playwright) done" || kn_fail "agent exit $rc: $(tail -3 "$tmp/agent.out")"
kn_wait_exit stream-run 120; rc=$kn_rc
[ $rc = 0 ] && kn_ok "stream ?run= got the end message" || kn_fail "stream client exit $rc: $(tail -5 "$tmp/stream-run.jsonl")"
for _ in $(seq 1 100); do
  c=$(api "$B/api/runs/$RID"); jq -e '.ended != null' "$tmp/body" >/dev/null 2>&1 && break; sleep 0.1
done
cp "$tmp/body" "$tmp/run.json"
jq -e '.status == "finished" and .score == 1 and .completion == true' "$tmp/run.json" >/dev/null && kn_ok "GET /api/runs/{id}: finished, score 1" || kn_fail "run result: $(head -c 400 "$tmp/run.json")"
nev=$(jq '.events | length' "$tmp/run.json")
dbn=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$RID'")
dbd=$(kn_psql "SELECT count(DISTINCT seq) || ',' || min(seq) || ',' || max(seq) FROM events WHERE run_id = '$RID'")
# counted on the unfiltered stream, connected before the run started (the ?run= one may connect after the
# monitor's first event)
stn=$(jq -c --arg r "$RID" 'select(.type == "event" and .run == $r)' "$tmp/stream-all.jsonl" | wc -l)
[ "$nev" -gt 0 ] && [ "$nev" = "$dbn" ] && [ "$dbd" = "$dbn,1,$dbn" ] && [ "$stn" = "$dbn" ] \
  && kn_ok "events: $dbn in the database (seq 1..$dbn), in GET /api/runs/{id} and on the stream" || kn_fail "events: api $nev db $dbn ($dbd) stream $stn"
dbs=$(kn_psql "SELECT status || ',' || score || ',' || reached || '/' || total FROM runs WHERE id = '$RID'")
[ "$dbs" = "finished,1,5/5" ] && kn_ok "runs row: $dbs" || kn_fail "runs row: $dbs"
[ "$(kn_psql "SELECT count(*) FROM keynode_results WHERE run_id = '$RID'")" = 5 ] && kn_ok "5 key-node results stored" || kn_fail "keynode_results"
jq -s -e 'any(.[]; .type == "end" and .reason == "finished" and .result.score == 1)' "$tmp/stream-run.jsonl" >/dev/null && kn_ok "stream end: reason finished, result score 1" || kn_fail "stream end message"
jq -s -e 'any(.[]; .type == "event" and (.reached | index("add")))' "$tmp/stream-run.jsonl" >/dev/null && kn_ok "stream events carry reached key nodes" || kn_fail "stream reached"
jq -s -e --arg r "$RID" 'any(.[]; .type == "run" and .run == $r and .total == 5)' "$tmp/stream-all.jsonl" >/dev/null && kn_ok "unfiltered stream: run start message" || kn_fail "no run message on the unfiltered stream"
c=$(api "$B/api/runs?task=shop-red-runner-cart&limit=5"); jq -e ".runs[0].id == \"$RID\"" "$tmp/body" >/dev/null && kn_ok "GET /api/runs?task=" || kn_fail "GET /api/runs?task: $(head -c 300 "$tmp/body")"
check=0; c=$(api "${W[@]}" -X POST "$B/api/runs/$RID/stop"); [ "$c" = 409 ] && kn_ok "stop an ended run: 409" || kn_fail "stop ended: $c"

# answer and stop a watched run through the API (posted to the monitor's thread)
c=$(api "${W[@]}" -d "{\"task\":\"shop-red-runner-cart\",\"browser\":\"$cdp\"}" "$B/api/runs"); AID=$(jq -r .id "$tmp/body")
sleep 1
c1=$(api "${W[@]}" -d '{"text":"Red Runner, US 9"}' "$B/api/runs/$AID/answer")
c2=$(api "${W[@]}" -d '{"t":1,"type":"click"}' "$B/api/runs/$AID/events")
c3=$(api "${W[@]}" -X POST "$B/api/runs/$AID/stop")
[ "$c1" = 200 ] && [ "$c2" = 409 ] && [ "$c3" = 200 ] && jq -e ".run == \"$AID\" and .status == \"incomplete\"" "$tmp/body" >/dev/null \
  && kn_ok "watched run: answer 200, events refused (409: the browser reports them), stop gives the result" || kn_fail "watched answer/stop: $c1 $c2 $c3 $(head -c 300 "$tmp/body")"
kn_wait_sql 5 "SELECT count(*) FROM events WHERE run_id = '$AID' AND line->>'type' = 'answer' AND line->>'text' = 'Red Runner, US 9'" 1
a=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$AID' AND line->>'type' = 'answer' AND line->>'text' = 'Red Runner, US 9'")
[ "$a" = 1 ] && kn_ok "the answer event is stored" || kn_fail "answer event: $a"

# --- a changed task file makes a new version; the old run keeps its own --------------------------------
sed 's/add it to the cart in US size 9/add it to the cart in US size 9 (v2)/' "$tmp/tasks.yaml" >"$tmp/tasks2.yaml"
c=$(api "${W[@]}" --data-binary @"$tmp/tasks2.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] && jq -e '.new_versions == 1' "$tmp/body" >/dev/null && kn_ok "changed task: one new version" || kn_fail "tasks2: $c $(cat "$tmp/body")"
v=$(kn_psql "SELECT r.task_version = t.current_version, tv.version, tv.intent LIKE '%(v2)' FROM runs r JOIN task_versions tv ON tv.id = r.task_version JOIN tasks t ON t.id = tv.task_id WHERE r.id = '$RID'")
[ "$v" = "f|1|f" ] && kn_ok "the old run still points at version 1" || kn_fail "old run version: $v"
c=$(api "$B/api/tasks/shop-red-runner-cart"); jq -e '.version == 2 and (.intent | endswith("(v2)"))' "$tmp/body" >/dev/null && kn_ok "task now at version 2" || kn_fail "task version: $(head -c 300 "$tmp/body")"

# --- replay jobs and results ---------------------------------------------------------------------------
j0=$(kn_psql "SELECT count(*) FROM jobs")
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/replays")
[ "$c" = 202 ] && jq -e '.status == "queued" and (.job | type) == "number"' "$tmp/body" >/dev/null && [ "$(kn_psql "SELECT count(*) FROM jobs")" = $((j0 + 1)) ] \
  && kn_ok "POST /api/replays: 202, one job queued" || kn_fail "POST /api/replays: $c $(cat "$tmp/body")"
c=$(api "$B/api/replays?task=shop-red-runner-cart"); [ "$c" = 200 ] && jq -e '.replays | type == "array"' "$tmp/body" >/dev/null && kn_ok "GET /api/replays?task=" || kn_fail "GET /api/replays: $c $(cat "$tmp/body")"
c=$(api "$B/api/replays"); [ "$c" = 400 ] && is_error_json && kn_ok "GET /api/replays without task: 400" || kn_fail "GET /api/replays no task: $c"
# more results than a task page shows (20): the list is the store's, newest first, up to ?limit
kn_psql "INSERT INTO replay_results (task_version, status, report) SELECT t.current_version, 'passed', '{}'
  FROM generate_series(1, 25), tasks t JOIN tasksets s ON s.id = t.taskset_id
  WHERE s.name = 'sites' AND t.task_key = 'shop-red-runner-cart'" >/dev/null
nr=$(kn_psql "SELECT count(*) FROM replay_results r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id WHERE t.task_key = 'shop-red-runner-cart'")
c=$(api "$B/api/replays?task=shop-red-runner-cart"); [ "$c" = 200 ] && [ "$nr" -ge 25 ] && jq -e --argjson n "$nr" '(.replays | length) == $n and ([.replays[].id] == ([.replays[].id] | sort | reverse))' "$tmp/body" >/dev/null \
  && kn_ok "GET /api/replays: all $nr results, newest first (not capped at 20)" || kn_fail "GET /api/replays all: $c nr=$nr $(head -c 300 "$tmp/body")"
c=$(api "$B/api/replays?task=shop-red-runner-cart&limit=3"); [ "$c" = 200 ] && jq -e '(.replays | length) == 3' "$tmp/body" >/dev/null && kn_ok "GET /api/replays?limit=3: 3" || kn_fail "GET /api/replays limit: $c"
# keyset paging: pages of 7 by next_before cover the same list, in order, each id once
api "$B/api/replays?task=shop-red-runner-cart&limit=1000" >/dev/null; all=$(jq -c '[.replays[].id]' "$tmp/body")
got='[]'; before=; pages=0
while :; do
  c=$(api "$B/api/replays?task=shop-red-runner-cart&limit=7${before:+&before=$before}"); [ "$c" = 200 ] || break
  got=$(jq -c --argjson g "$got" '$g + [.replays[].id]' "$tmp/body"); pages=$((pages + 1))
  before=$(jq -r '.next_before // empty' "$tmp/body"); [ -n "$before" ] && [ "$pages" -lt 20 ] || break
done
[ "$got" = "$all" ] && [ "$pages" = $(( (nr + 6) / 7 )) ] && kn_ok "GET /api/replays: $pages pages of 7 by next_before, the whole list once, in order" \
  || kn_fail "replays paging: $pages pages, $got vs $all"
c=$(api "$B/api/replays?task=shop-red-runner-cart&before=999999999"); [ "$c" = 400 ] && is_error_json && kn_ok "GET /api/replays?before=unknown: 400" || kn_fail "replays before unknown: $c"
c=$(api "$B/api/runs?limit=1"); r1=$(jq -r '.runs[0].id' "$tmp/body"); nb=$(jq -r '.next_before' "$tmp/body")
c2=$(api "$B/api/runs?limit=1&before=$nb"); r2=$(jq -r '.runs[0].id' "$tmp/body")
[ "$c" = 200 ] && [ "$c2" = 200 ] && [ "$nb" = "$r1" ] && [ -n "$r2" ] && [ "$r2" != null ] && [ "$r2" != "$r1" ] \
  && [ "$(kn_psql "SELECT (SELECT (started, id) FROM runs WHERE id = '$r2') < (SELECT (started, id) FROM runs WHERE id = '$r1')")" = t ] \
  && kn_ok "GET /api/runs?limit=1: next_before is the run listed; before= gives the next older one" || kn_fail "runs paging: $c $c2 $r1 $nb $r2"
c=$(api "$B/api/runs?limit=1000"); [ "$c" = 200 ] && jq -e '.next_before == null' "$tmp/body" >/dev/null && kn_ok "GET /api/runs, last page: next_before null" || kn_fail "runs last page: $c"
kn_psql "INSERT INTO alerts (dedupe_key, severity, title, created, acked_at) SELECT 'paging-' || g, 'info', 'paging',
  now() - g * interval '1 s', CASE WHEN g % 2 = 0 THEN now() END FROM generate_series(1, 5) g" >/dev/null
na=$(kn_psql "SELECT count(*) FROM alerts"); got='[]'; before=; pages=0
while :; do
  c=$(api "$B/api/alerts?all=1&limit=2${before:+&before=$before}"); [ "$c" = 200 ] || break
  got=$(jq -c --argjson g "$got" '$g + [.alerts[].id]' "$tmp/body"); pages=$((pages + 1))
  before=$(jq -r '.next_before // empty' "$tmp/body"); [ -n "$before" ] && [ "$pages" -lt 20 ] || break
done
[ "$(jq 'length' <<<"$got")" = "$na" ] && [ "$(jq 'unique | length' <<<"$got")" = "$na" ] && [ "$pages" = $(( (na + 1) / 2 )) ] \
  && kn_ok "GET /api/alerts?all=1: $pages pages of 2 by next_before, each of the $na alerts once" || kn_fail "alerts paging: $pages pages $got of $na"
c=$(api "$B/api/alerts?limit=1000"); [ "$c" = 200 ] && jq -e '([.alerts[] | select(.title == "paging")] | length) == 3' "$tmp/body" >/dev/null \
  && kn_ok "GET /api/alerts: the open ones only" || kn_fail "open alerts: $c $(head -c 300 "$tmp/body")"
c=$(api "$B/api/alerts?before=abc"); [ "$c" = 400 ] && kn_ok "GET /api/alerts?before=abc: 400" || kn_fail "alerts before abc: $c"
kn_psql "DELETE FROM alerts WHERE title = 'paging'" >/dev/null
c=$(api "$B/api/runs?before=r-no-such-run"); [ "$c" = 400 ] && is_error_json && kn_ok "GET /api/runs?before=unknown: 400" || kn_fail "runs before unknown: $c"
c=$(api "$B/api/replays?task=shop-red-runner-cart&limit=0"); [ "$c" = 400 ] && is_error_json && kn_ok "GET /api/replays?limit=0: 400" || kn_fail "GET /api/replays limit=0: $c"
c=$(api "$B/api/replays?task=no-such-task"); [ "$c" = 404 ] && kn_ok "GET /api/replays unknown task: 404" || kn_fail "GET /api/replays unknown task: $c"
kn_psql "DELETE FROM replay_results WHERE report::text = '{}'" >/dev/null

# --- agent batches: their uncertainty and their paired comparison ------------------------------
# two batches of two tasks × 2 whose attempts are stored by SQL as a worker stores them (result.json in
# agent_results, the job done): batch A fails every attempt, batch B succeeds in every one. The statistics
# and the comparison are keynode run's and keynode compare's own C code (agentjobs.sh has real workers;
# this one runs under ASan too).
ba=$(curl -s "${W[@]}" -d '{"agent":"a","tasks":["sites:shop-red-runner-cart","sites:shop-checkout"],"repeat":2}' "$B/api/agent-runs" | jq -r .id)
bb=$(curl -s "${W[@]}" -d '{"agent":"b","tasks":["sites:shop-red-runner-cart","sites:shop-checkout"],"repeat":2}' "$B/api/agent-runs" | jq -r .id)
kn_psql "INSERT INTO agent_results (job_id, batch, task_version, attempt_no, worker, status, completed, score, result)
  SELECT j.id, j.batch, j.task_version, j.attempt_no, 'sql', 'done', j.batch = $bb, 1,
    json_build_object('task', t.task_key, 'score', (j.batch = $bb)::int, 'reached', 0, 'key_nodes', '[]'::json,
      'completion', j.batch = $bb, 'status', 'finished', 'attempt', json_build_object('status', 'done'))
  FROM jobs j JOIN task_versions v ON v.id = j.task_version JOIN tasks t ON t.id = v.task_id WHERE j.batch IN ($ba, $bb);
  UPDATE jobs SET state = 'done' WHERE batch IN ($ba, $bb)" >/dev/null
c=$(api "$B/api/agent-runs/$bb"); [ "$c" = 200 ] && jq -e '.stats.rates.task_success_rate == 1 and .stats.ci95.task_success_rate == [1, 1] and .stats.pass_at_k["2"] == 1 and .stats.denominators.planned.attempts == 4 and (.stats.per_site | keys) == ["127.0.0.1"] and ([.tasks[].site] | unique) == ["127.0.0.1"]' "$tmp/body" >/dev/null \
  && kn_ok "GET /api/agent-runs/{id}: stats (rates, ci95, pass@k, per_site, denominators) and sites" || kn_fail "batch stats: $c $(head -c 600 "$tmp/body")"
c=$(api "$B/api/agent-runs/compare?a=$ba&b=$bb"); [ "$c" = 200 ] && jq -e --argjson a "$ba" '.a.batch == $a and .paired == 2 and .sign_test.won == 2 and .sign_test.lost == 0 and .significant == false and .sign_test.p_value == 0.5 and .rates.task_success_rate.diff == 1 and .rates.task_success_rate.ci95 == [1, 1] and ([.per_task[].outcome] | unique) == ["won"] and .only_a == [] and .warnings == []' "$tmp/body" >/dev/null \
  && kn_ok "GET /api/agent-runs/compare: B won both paired tasks, p = 0.5, not significant" || kn_fail "compare: $c $(head -c 600 "$tmp/body")"
c=$(api "$B/api/agent-runs/compare?a=$ba"); c2=$(api "$B/api/agent-runs/compare?a=$ba&b=1%27%20OR%201=1"); c3=$(api "$B/api/agent-runs/compare?a=$ba&b=99999999")
[ "$c $c2 $c3" = "400 400 404" ] && kn_ok "compare: a missing or odd id 400, an unknown batch 404" || kn_fail "compare errors: $c $c2 $c3"

# --- an external run, and durability across a database outage -------------------------------------------
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); XID=$(jq -r .id "$tmp/body")
[ "$c" = 201 ] && kn_ok "external run $XID" || kn_fail "external run: $c $(cat "$tmp/body")"
ev() { printf '{"t":%s,"type":"navigate","url":"http://127.0.0.1:%s/shop/?p=%s"}' "$1" "$sport" "$1"; }
bad=0
c=$(api "${W[@]}" -d "[$(ev 1),$(ev 2),$(ev 3)]" "$B/api/runs/$XID/events"); [ "$c" = 200 ] && jq -e '.accepted == 3' "$tmp/body" >/dev/null || bad=1
c=$(api "${W[@]}" --data-binary "$(ev 4)"$'\n'"$(ev 5)"$'\n' "$B/api/runs/$XID/events"); [ "$c" = 200 ] && jq -e '.accepted == 2' "$tmp/body" >/dev/null || bad=1
c=$(api "${W[@]}" -d "[$(ev 6),{\"t\":7,\"type\":\"warp\"}]" "$B/api/runs/$XID/events"); [ "$c" = 400 ] && is_error_json || bad=1
[ $bad = 0 ] && kn_ok "POST events: an object, an array, JSON Lines; a bad event refuses the batch (400)" || kn_fail "POST events: $c $(cat "$tmp/body")"
kn_pg_stop
c=$(api "$B/healthz"); [ "$c" = 503 ] && jq -e '.database == false' "$tmp/body" >/dev/null && kn_ok "database down: /healthz 503" || kn_fail "healthz while down: $c"
bad=0
for i in $(seq 6 25); do c=$(api "${W[@]}" -d "$(ev "$i")" "$B/api/runs/$XID/events"); [ "$c" = 200 ] || bad=1; done
c=$(api "${W[@]}" -d '{"text":"the Red Runner"}' "$B/api/runs/$XID/answer"); [ "$c" = 200 ] || bad=1
[ $bad = 0 ] && kn_ok "database down: 21 events still accepted" || kn_fail "events while down: $c $(cat "$tmp/body")"
c=$(api "$B/api/tasks"); [ "$c" = 503 ] && is_error_json && kn_ok "database down: reads 503" || kn_fail "read while down: $c"
kn_pg_start || kn_finish
kn_wait_sql 20 "SELECT count(*) FROM events WHERE run_id = '$XID'" 26
d=$(kn_psql "SELECT count(*) || ',' || count(DISTINCT seq) || ',' || min(seq) || ',' || max(seq) FROM events WHERE run_id = '$XID'")
[ "$d" = "26,26,1,26" ] && kn_ok "after the outage: 26 events stored exactly once, seq 1..26" || kn_fail "after the outage: $d (count,distinct,min,max)"
c=$(api "${W[@]}" -X POST "$B/api/runs/$XID/stop"); [ "$c" = 200 ] && jq -e ".run == \"$XID\" and .steps == 1" "$tmp/body" >/dev/null && kn_ok "stop: the run result" || kn_fail "stop: $c $(head -c 300 "$tmp/body")"
xrun_ended_() { [ "$(kn_psql "SELECT status FROM runs WHERE id = '$XID'")" != running ]; }
kn_wait_for "the external run to end" 5 xrun_ended_
s=$(kn_psql "SELECT status FROM runs WHERE id = '$XID'")
[ "$s" = incomplete ] && kn_ok "external run stored as $s" || kn_fail "external run status: $s"
c=$(api "$B/api/tasks"); [ "$c" = 200 ] && kn_ok "reads work again after the outage" || kn_fail "reads after outage: $c"

# --- /metrics --------------------------------------------------------------------------------------------
c=$(api "$B/metrics")
grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/hdr" && kn_ok "/metrics content type 0.0.4" || kn_fail "/metrics content type"
bad=$(grep -v '^#' "$tmp/body" | grep -Evc '^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+]?([0-9.]+([eE][-+]?[0-9]+)?|\+Inf|NaN)$')
[ "$bad" = 0 ] && kn_ok "/metrics: every sample line parses" || kn_fail "/metrics: $bad bad lines"
miss=
for m in keynode_runs_active keynode_runs_total keynode_events_total keynode_keynodes_reached_total keynode_api_request_duration_seconds \
         keynode_api_requests_total keynode_replays_total keynode_task_health keynode_ingest_spooled keynode_db_up; do
  grep -q "^# TYPE $m " "$tmp/body" || miss="$miss $m"
done
[ -z "$miss" ] && kn_ok "/metrics: every name of API.md" || kn_fail "/metrics missing:$miss"
grep -q '^keynode_runs_total{status="finished"} 1$' "$tmp/body" && grep -q '^keynode_runs_total{status="incomplete"} 2$' "$tmp/body" \
  && kn_ok "/metrics counts the runs" || kn_fail "/metrics runs: $(grep runs_total "$tmp/body")"
e=$(sed -n 's/^keynode_events_total //p' "$tmp/body"); [ "$e" -ge $((dbn + 26)) ] && kn_ok "/metrics events_total $e" || kn_fail "events_total $e"
grep -q '^keynode_db_up 1$' "$tmp/body" && grep -q 'keynode_api_request_duration_seconds_bucket{route="GET /api/runs/{id}",le="+Inf"}' "$tmp/body" && kn_ok "/metrics db_up and per-route histogram" || kn_fail "/metrics db_up/histogram"

# --- "step_limit": a watched run whose budget is spent ends as `keynode watch --step-limit` does ---------
bad=0
for v in '"2"' -2 1.5 100001 null; do
  c=$(api "${W[@]}" -d "{\"task\":\"shop-red-runner-cart\",\"step_limit\":$v}" "$B/api/runs")
  [ "$c" = 400 ] && is_error_json || { bad=1; echo "    step_limit $v: $c"; }
done
[ $bad = 0 ] && kn_ok "step_limit not an integer from -1 to 100000: 400" || kn_fail "bad step_limit accepted"
c=$(api "${W[@]}" -d '{"task":"shop-red-runner-cart","step_limit":-1}' "$B/api/runs"); NID=$(jq -r .id "$tmp/body")
c2=$(api "${W[@]}" -X POST "$B/api/runs/$NID/stop")
[ "$c" = 201 ] && [ "$c2" = 200 ] && kn_ok "step_limit -1 (none): 201" || kn_fail "step_limit -1: $c $c2"
c=$(api "${W[@]}" -d "{\"task\":\"shop-red-runner-cart\",\"browser\":\"$cdp\",\"step_limit\":2}" "$B/api/runs")
SID=$(jq -r .id "$tmp/body" 2>/dev/null)
[ "$c" = 201 ] || kn_fail "POST /api/runs step_limit 2: $c $(cat "$tmp/body")"
node "$REPO/tests/integration/agents/shop.mjs" "$cdp" "http://127.0.0.1:$sport" "$tmp/marks-sl" full >"$tmp/agent-sl.out" 2>&1
sl_run_ended_() { api "$B/api/runs/$SID" >/dev/null; jq -e '.ended != null' "$tmp/body" >/dev/null 2>&1; }
kn_wait_for "the step-limited run to end" 10 sl_run_ended_
c=$(api "$B/api/runs/$SID")
jq -e '.status == "step_limit" and .steps == 2' "$tmp/body" >/dev/null && kn_ok "step_limit 2: the run ended, status step_limit after 2 steps" || kn_fail "step_limit 2 run: $(head -c 400 "$tmp/body")"
grep -q "msg=\"run ended reason='step limit'.*run=$SID" "$tmp/serve.err" && kn_ok "step_limit 2: end reason \"step limit\"" || kn_fail "step_limit end reason: $(grep "$SID" "$tmp/serve.err" | tail -2)"
[ "$(kn_psql "SELECT status FROM runs WHERE id = '$SID'")" = step_limit ] && kn_ok "step_limit 2: runs row step_limit" || kn_fail "step_limit runs row"

# --- a slow stream client is dropped, never waited for -------------------------------------------------
MODE=slow kn_spawn stream-slow node "$HERE/stream-client.mjs" "ws://127.0.0.1:$P/api/stream" "$tmp/stream-slow.jsonl" "" 120
kn_wait_for "the slow subscriber's stream to open" 10 grep -q '"open"' "$tmp/stream-slow.jsonl"
c=$(api "${W[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs"); SID=$(jq -r .id "$tmp/body")
long=$(head -c 1900 /dev/zero | tr '\0' 'x')
batch=$(for i in $(seq 1 30); do printf '{"t":%s,"type":"navigate","url":"http://127.0.0.1:%s/shop/?%s"}\n' "$i" "$sport" "$long"; done)
bad=0
for i in $(seq 1 1000); do # the kernel alone buffers ~36 MB on loopback (tcp_rmem max 32 MB)
  c=$(api "${W[@]}" --data-binary "$batch" "$B/api/runs/$SID/events"); [ "$c" = 200 ] || bad=1
  [ $((i % 20)) = 0 ] && grep -q 'stream subscriber dropped' "$tmp/serve.err" && break
done
[ $bad = 0 ] && grep -q 'stream subscriber dropped: too slow' "$tmp/serve.err" && kn_ok "a client that does not read is dropped ($i batches of 30 events)" || kn_fail "slow client: not dropped (bad=$bad)"
c=$(api "$B/healthz"); [ "$c" = 200 ] && kn_ok "serving on while a client was slow" || kn_fail "healthz after the slow client: $c"
c=$(api "${W[@]}" -X POST "$B/api/runs/$SID/stop")
kn_stop_name stream-slow

# --- SIGTERM with a live run ----------------------------------------------------------------------------
c=$(api "${W[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs"); TID=$(jq -r .id "$tmp/body")
c=$(api "${W[@]}" -d "$(ev 1)" "$B/api/runs/$TID/events")
kill -TERM "$spid"; kn_wait_exit serve 120; rc=$kn_rc
[ $rc = 0 ] && kn_ok "SIGTERM: exit 0" || kn_fail "SIGTERM: exit $rc"
s=$(kn_psql "SELECT status || ',' || (ended IS NOT NULL) || ',' || (SELECT count(*) FROM events WHERE run_id = '$TID') FROM runs WHERE id = '$TID'")
[ "$s" = "incomplete,true,1" ] && kn_ok "the live run's result was written on SIGTERM" || kn_fail "run after SIGTERM: $s"
grep -q 'level=info component=serve msg="stopped"' "$tmp/serve.err" && kn_ok "log: stopped" || kn_fail "no stopped log line"
grep -v '^level=\(info\|warn\|error\|debug\) component=' "$tmp/serve.err" | grep -v '^$' >"$tmp/odd-log"
[ ! -s "$tmp/odd-log" ] && kn_ok "every log line is level=… component=…" || kn_fail "log lines: $(head -3 "$tmp/odd-log")"

# --- the LLM semantic judge (llm-server.mjs, a fake OpenAI-compatible server) with the PostgreSQL cache ----
kn_spawn -o "$tmp/llm.out" -e "$tmp/llm.err" llm node "$HERE/llm-server.mjs"
llm_port_() { head -1 "$tmp/llm.out" 2>/dev/null | jq -r '.port // empty' 2>/dev/null | grep .; }
kn_wait_for "the fake judge's port" 20 llm_port_
lport=$(llm_port_)
printf 'database: { url: "%s" }\nsemantic:\n  backend: llm\n  llm: { url: "http://127.0.0.1:%s", model: fake-judge }\n' "$KN_PG_URL" "$lport" >"$tmp/llm.yaml"
P2=$(kn_free_port)
KEYNODE_API_TOKEN=$TOKEN kn_spawn -o "$tmp/serve2.err" serve2 "$KN" serve --config "$tmp/llm.yaml" --listen "127.0.0.1:$P2" \
  --spool-dir "$tmp/spool2"
kn_wait_for "the second serve's /healthz" 20 curl -s -o /dev/null "http://127.0.0.1:$P2/healthz"
B2=http://127.0.0.1:$P2
llm_run() { # → the run result in $tmp/body
  local id c
  c=$(api "${W[@]}" -d '{"task":"shop-red-runner-cart"}' "$B2/api/runs"); id=$(jq -r .id "$tmp/body")
  c=$(api "${W[@]}" -d "{\"t\":1,\"type\":\"navigate\",\"url\":\"http://127.0.0.1:$sport/shop/search.html?q=red+running+shoes\"}" "$B2/api/runs/$id/events")
  [ "$c" = 200 ] && jq -e '.status == "running" and .accepted == 1' "$tmp/body" >/dev/null || { kn_fail "llm: events answer $c $(cat "$tmp/body")"; }
  sleep 0.5
  c=$(api "${W[@]}" -X POST "$B2/api/runs/$id/stop")
}
llm_run
jq -e '(.key_nodes[] | select(.id == "query") | .score) == 1 and .llm.backend == "llm" and .llm.requests >= 1' "$tmp/body" >/dev/null \
  && kn_ok "llm judge: semantic key node reached, usage in the result ($(jq -c .llm "$tmp/body"))" || kn_fail "llm run: $(head -c 600 "$tmp/body")"
nv=$(kn_psql "SELECT count(*) FROM verdicts")
[ "$nv" -ge 1 ] && kn_ok "llm verdict cached in PostgreSQL ($nv)" || kn_fail "verdicts: $nv"
llm_run
jq -e '.llm.requests == 0 and .llm.cache_hits >= 1' "$tmp/body" >/dev/null && kn_ok "second run: answered from the PostgreSQL cache, no request" || kn_fail "llm cache: $(jq -c .llm "$tmp/body")"
kill -TERM "${kn_spawned[serve2]}"; kn_wait_exit serve2 120; rc=$kn_rc
[ $rc = 0 ] && kn_ok "llm serve: SIGTERM exit 0" || kn_fail "llm serve exit $rc: $(tail -3 "$tmp/serve2.err")"
kn_finish
