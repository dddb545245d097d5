#!/bin/bash
# rerecord.sh — a workflow re-recorded from the dashboard (services/live/README.md
# "Recording") end to end: a private PostgreSQL, `keynode serve` (token), one `keynode worker` on a real
# headless Chromium, tests/sites/rerecord (a field and a Search button at fixed places):
#   - without the token POST /api/tasks/{id}/recordings is 401 and the task page hides the button;
#     malformed bodies and ids are 400, unknown tasks and recordings 404, and nothing is stored;
#   - with it (rerecord.mjs, headless Chromium driving the dashboard): "Record a new workflow" on the
#     task page, the recording's live view taken over, the field clicked, "hello" typed and Search
#     clicked on the frame, Finish: the worker replays the recorded workflow at once and stores it as
#     workflow version 2 (v1 uploaded first) with its changelog row (kind workflow, the token's name,
#     evidence_replay: the validation replay, passed);
#   - a replay job of the task then drives the stored version 2 and passes;
#   - a recording finished with nothing but its start page: its validation replay is broken, nothing
#     is stored and the recording says why; a cancelled one stores nothing; one whose worker was
#     SIGKILLed is ended by its cancel once the worker stopped polling.
# usage: rerecord.sh KEYNODE SOURCE_DIR [OUT_DIR]
#
# ctest: integration.rerecord ARGS=keynode,repo,build:artifacts/rerecord TIMEOUT=400
kn=$1 src=$2 out=${3:-}
. "$(dirname "$0")/lib.sh"
kn_lib_init rerecord
[ -n "$out" ] && mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
kn_api_start "$kn" || kn_finish
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
task=rerecord-search
kn_task_at_site "$src/tests/sites/rerecord/tasks.yaml" "$tmp/tasks.yaml" "$port"
kn_task_at_site "$src/tests/sites/rerecord/workflow-v1.yaml" "$tmp/wf1.yaml" "$port"
code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=rerecord")
[ "$code" = 201 ] || { kn_fail "taskset upload: $code $(cat "$tmp/ts.json")"; kn_finish; }
code=$(curl -s -o "$tmp/wf1.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/wf1.yaml" "$base/api/workflows?reason=first")
[ "$code" = 201 ] && kn_ok "workflow v1 uploaded" || kn_fail "workflow upload: $code $(cat "$tmp/wf1.json")"

# 1. the API's refusals: nothing is queued
post() { curl -s -o "$tmp/p.json" -w '%{http_code}' "$@"; }
[ "$(post -X POST "$base/api/tasks/$task/recordings")" = 401 ] && kn_ok "no token: POST recordings is 401" ||
  kn_fail "no token: $(cat "$tmp/p.json")"
bad=0
for body in '{' '[]' '{"reason": 5}' '{"reason": ""}' '{"why": "x"}' '{"reason": "a\u0001b"}' 'null'; do
  c=$(post "${A[@]}" --data-binary "$body" "$base/api/tasks/$task/recordings")
  [ "$c" = 400 ] || { bad=1; kn_fail "body $body: $c $(cat "$tmp/p.json")"; }
done
[ "$bad" = 0 ] && kn_ok "malformed bodies: 400"
c1=$(post "${A[@]}" -X POST "$base/api/tasks/no-such-task/recordings") c2=$(post "${A[@]}" -X POST "$base/api/recordings/x1/finish")
c3=$(post "${A[@]}" -X POST "$base/api/recordings/999/cancel") c4=$(post "${A[@]}" --data-binary x "$base/api/recordings/1/finish")
c5=$(post -X POST "$base/api/recordings/1/finish") c6=$(post "$base/api/recordings/99999999999999999999")
[ "$c1 $c2 $c3 $c4 $c5 $c6" = "404 400 404 400 401 400" ] && kn_ok "unknown task/recording 404, bad ids 400, finish without the token 401" ||
  kn_fail "refusals: $c1 $c2 $c3 $c4 $c5 $c6"
[ "$(kn_psql "SELECT count(*) FROM recordings")" = 0 ] && kn_ok "nothing queued by a refused request" || kn_fail "recordings were queued"

printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$tmp/keynode.yaml"
kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200 --element-timeout 5000
worker_pid=$kn_pid

# 2. recorded through the dashboard
node "$here/rerecord.mjs" "$cdp" "$base" "$token" "$task" "${out:-$tmp}" >"$tmp/page.out" 2>"$tmp/page.err"
page_rc=$?
while read -r l; do case $l in ok*) kn_ok "${l#ok   }";; FAIL*) kn_fail "${l#FAIL }";; esac; done <"$tmp/page.out"
[ "$page_rc" = 0 ] || kn_fail "rerecord.mjs: exit $page_rc $(tail -5 "$tmp/page.err")"
rec=$(kn_psql "SELECT row_to_json(r) FROM recordings r ORDER BY id DESC LIMIT 1")
jq -e '.state == "stored" and .workflow_version == 2 and .replay != null and .replay_status == "passed" and .author != null' <<<"$rec" >/dev/null &&
  kn_ok "stored as workflow version 2, verified by replay $(jq .replay <<<"$rec") (passed), by $(jq -r .author <<<"$rec")" ||
  kn_fail "recording: $rec (worker: $(grep -i record "$tmp/worker.log" | tail -3))"
chg=$(kn_psql "SELECT row_to_json(c) FROM (SELECT kind, workflow_version, author, reason, evidence_replay FROM task_changes ORDER BY id DESC LIMIT 1) c")
jq -e --argjson r "$rec" '.kind == "workflow" and .workflow_version == 2 and .author == $r.author and .reason == "recorded in the dashboard"
   and .evidence_replay == $r.replay' <<<"$chg" >/dev/null && kn_ok "changelog row: kind workflow, the author, the reason and the verifying replay" ||
  kn_fail "changelog row: $chg"
body=$(kn_psql "SELECT body FROM task_workflows ORDER BY version DESC LIMIT 1" 2>/dev/null)
[ -z "$body" ] && body=$(curl -s "${A[@]}" "$base/api/tasks/$task/workflow")
printf '%s\n' "$body" >"${out:-$tmp}/rerecorded.yaml"
grep -q 'type: { selector: "#q", value: "hello"' <<<"$body" && grep -q 'click: { selector: "#go".*id: "go"' <<<"$body" &&
  grep -q 'url: "http://127.0.0.1:'"$port"'/rerecord/done.html?q=hello", navigated: true' <<<"$body" &&
  grep -q 'viewport: "1280x800"' <<<"$body" &&
  kn_ok "the stored workflow types hello into #q and clicks #go, with fingerprints and postconditions" ||
  kn_fail "stored workflow: $body"
vrep=$(jq -r '.replay // 0' <<<"$rec")
[ "$(kn_psql "SELECT status FROM replay_results WHERE id = $vrep AND job_id IS NULL")" = passed ] &&
  kn_ok "its validation replay is a stored replay result, passed" || kn_fail "validation replay row"

# 3. a replay job drives the new version and passes
code=$(curl -s -o "$tmp/rp.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' --data "{\"task\": \"$task\"}" "$base/api/replays")
[ "$code" = 202 ] || kn_fail "POST /api/replays: $code $(cat "$tmp/rp.json")"
kn_wait_sql 180 "SELECT count(*) >= 1 FROM replay_results WHERE job_id IS NOT NULL" t || kn_fail "no replay result"
row=$(kn_psql "SELECT json_build_object('status', status, 'wf', report->'workflow') FROM replay_results WHERE job_id IS NOT NULL ORDER BY id DESC LIMIT 1")
jq -e '.status == "passed" and .wf.source == "stored" and .wf.version == 2' <<<"$row" >/dev/null &&
  kn_ok "a queued replay drives stored workflow version 2 and passes" || kn_fail "replay of v2: $row"

# 4. finished with nothing done: the validation replay fails, nothing is stored; cancelled: nothing either
wait_state() { kn_wait_sql 120 "SELECT state FROM recordings WHERE id = $1" "$2" || kn_fail "recording $1 never $2: $(kn_psql "SELECT row_to_json(r) FROM recordings r WHERE id = $1")"; }
id2=$(curl -s "${A[@]}" -X POST "$base/api/tasks/$task/recordings" | jq -r .id)
wait_state "$id2" recording
sleep 2 # the start page loads
[ "$(post "${A[@]}" -X POST "$base/api/recordings/$id2/finish")" = 202 ] || kn_fail "finish: $(cat "$tmp/p.json")"
kn_wait_sql 180 "SELECT state IN ('stored', 'failed', 'cancelled') FROM recordings WHERE id = $id2" t
r2=$(kn_psql "SELECT row_to_json(r) FROM recordings r WHERE id = $id2")
jq -e '.state == "failed" and (.detail | test("validation replay was broken")) and .workflow_version == null' <<<"$r2" >/dev/null &&
  kn_ok "a recording whose validation replay fails stores nothing and says why ($(jq -r .detail <<<"$r2"))" ||
  kn_fail "failed validation: $r2"
id3=$(curl -s "${A[@]}" -X POST "$base/api/tasks/$task/recordings" | jq -r .id)
wait_state "$id3" recording
[ "$(post "${A[@]}" -X POST "$base/api/recordings/$id3/cancel")" = 202 ] || kn_fail "cancel: $(cat "$tmp/p.json")"
wait_state "$id3" cancelled
[ "$(post "${A[@]}" -X POST "$base/api/recordings/$id3/finish")" = 409 ] && kn_ok "cancelled; finishing it afterwards is 409" ||
  kn_fail "finish after cancel: $(cat "$tmp/p.json")"
[ "$(kn_psql "SELECT max(version) FROM task_workflows")" = 2 ] && kn_ok "still workflow version 2" ||
  kn_fail "workflow versions: $(kn_psql "SELECT max(version) FROM task_workflows")"
grep -q 'msg="recording queued"' "$tmp/serve.log" && grep -q 'msg="recording stored"' "$tmp/worker.log" &&
  grep -q 'msg="recording failed"' "$tmp/worker.log" && grep -q 'msg="recording cancelled"' "$tmp/worker.log" &&
  kn_ok "every recording is logged by serve and the worker" || kn_fail "log lines missing"
kill -0 "$serve_pid" 2>/dev/null && kill -0 "$worker_pid" 2>/dev/null && kn_ok "serve and worker still running" ||
  kn_fail "a process died"

# 5. a recording whose worker died (SIGKILL): its cancel ends it once the worker stopped polling (15 s)
id4=$(curl -s "${A[@]}" -X POST "$base/api/tasks/$task/recordings" | jq -r .id)
wait_state "$id4" recording
kill -KILL "$worker_pid"
# the cancel waits for the staleness serve checks (no poll for 15 s), not a fixed time after the kill
stale() { [ "$(kn_psql "SELECT COALESCE(polled, started) < clock_timestamp() - interval '15 seconds' FROM recordings WHERE id = $id4")" = t ]; }
kn_wait_for "recording $id4's last poll to be 15 s old" 120 stale || kn_fail "recording $id4 not stale 120 s after its worker's SIGKILL"
[ "$(post "${A[@]}" -X POST "$base/api/recordings/$id4/cancel")" = 202 ] &&
  jq -e '.state == "cancelled" and .detail == "its worker stopped answering" and .ended != null' "$tmp/p.json" >/dev/null &&
  kn_ok "a dead worker's recording is ended by its cancel" || kn_fail "dead worker's recording: $(cat "$tmp/p.json")"
kn_finish
