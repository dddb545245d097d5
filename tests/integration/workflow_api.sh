#!/bin/bash
# workflow_api.sh — reference workflows through the API: POST /api/workflows stores a
# workflow file (keynode record's YAML) as the next version of the task its `task:` names, with the
# task version it was recorded against; GET /api/tasks/{id}/workflow lists the versions (newest
# first, `current` false once the task changed) and the latest text. Malformed uploads: 422 with
# "workflow.yaml:line:col" (bad YAML, unknown key, invalid selector, a NUL byte), 404 for a task
# that does not exist, 400 for an empty body, 401 without the token; the dashboard's task page shows
# the workflow (version, recorded, task version) and its replay history. Real PostgreSQL (lib.sh),
# real `keynode serve`, real headless Chromium (workflow-page.mjs). The tasks and workflows are tests/sites/mind2web-live's.
# usage: workflow_api.sh KEYNODE SOURCE_DIR
#
# ctest: integration.workflow_api ARGS=keynode,repo TIMEOUT=120
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init wfapi
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
m2w=$src/tests/sites/mind2web-live
kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
[ "$(kn_psql "SELECT count(*) FROM schema_migrations WHERE version = 40")" = 1 ] &&
  kn_ok "migration 040 (task_workflows) applied" || kn_fail "migration 040 not applied"
token="wf-$RANDOM$RANDOM"
KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
  kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
base=$api_base
A=(-H "Authorization: Bearer $token")
# post FILE [QUERY] — POST /api/workflows; sets code, body in $tmp/r.json
post() { code=$(curl -s -o "$tmp/r.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/yaml' --data-binary @"$1" "$base/api/workflows${2:-}"); }
get() { code=$(curl -s -o "$tmp/g.json" -w '%{http_code}' "$base/api/tasks/$1/workflow"); }

code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$m2w/tasks.json" "$base/api/tasksets?name=m2w")
[ "$code" = 201 ] && kn_ok "the Mind2Web-Live task set is uploaded" || { kn_fail "taskset: $code $(cat "$tmp/ts.json")"; kn_finish; }

get 1
[ "$code" = 200 ] && jq -e '.task == "1" and .versions == [] and .body == null' "$tmp/g.json" >/dev/null &&
  kn_ok "GET workflow of a task without one: no versions" || kn_fail "GET without: $code $(cat "$tmp/g.json")"
post "$m2w/workflows/1.yaml"
[ "$code" = 201 ] && jq -e '.task == "1" and .version == 1 and .task_version == 1 and .steps == 4 and .created' "$tmp/r.json" >/dev/null &&
  kn_ok "POST /api/workflows: 201, version 1 of task 1, against task version 1" || kn_fail "POST: $code $(cat "$tmp/r.json")"
post "$m2w/workflows/1.yaml"
[ "$code" = 200 ] && jq -e '.version == 1 and (.created | not)' "$tmp/r.json" >/dev/null &&
  kn_ok "the same text again: 200, still version 1" || kn_fail "re-POST: $code $(cat "$tmp/r.json")"
{ cat "$m2w/workflows/1.yaml"; echo '  - press: Enter'; } >"$tmp/1b.yaml"
post "$tmp/1b.yaml" "?taskset=m2w"
[ "$code" = 201 ] && jq -e '.version == 2 and .steps == 5' "$tmp/r.json" >/dev/null &&
  kn_ok "a changed workflow (?taskset=m2w): version 2" || kn_fail "POST v2: $code $(cat "$tmp/r.json")"
# the task changes: the workflows recorded against its first version are no longer current
jq '(.[] | select(.index == 1) | .task) |= . + " (changed)"' "$m2w/tasks.json" >"$tmp/tasks2.json"
code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/tasks2.json" "$base/api/tasksets?name=m2w")
[ "$code" = 201 ] || kn_fail "taskset v2: $code $(cat "$tmp/ts.json")"
get 1
[ "$code" = 200 ] && jq -e '.task_version == 2 and ([.versions[] | .version] == [2, 1]) and ([.versions[] | .current] == [false, false])
   and ([.versions[] | .task_version] == [1, 1]) and .versions[1].viewport == "1280x800" and (.versions[0].uploaded | test("^20"))
   and (.body | test("press: Enter"))' "$tmp/g.json" >/dev/null &&
  kn_ok "GET /api/tasks/1/workflow: versions newest first, recorded against task version 1, no longer current" || kn_fail "GET: $code $(cat "$tmp/g.json")"
{ echo 'workflow: 1'; echo 'task: "1"'; echo 'recorded_at: "2026-11-25T01:00:00Z"'; sed '1,/^task:/d' "$m2w/workflows/1.yaml"; } >"$tmp/1c.yaml"
post "$tmp/1c.yaml"
get 1
[ "$code" = 200 ] && jq -e '.versions[0].version == 3 and .versions[0].current and .versions[0].task_version == 2
   and .versions[0].recorded_at == "2026-11-25T01:00:00Z"' "$tmp/g.json" >/dev/null &&
  kn_ok "a workflow recorded against the changed task: version 3, current, its recorded_at kept" || kn_fail "GET v3: $(cat "$tmp/g.json")"

# malformed uploads: clear errors with positions, never stored
bad() { # bad NAME FILE STATUS REGEX
  post "$2"
  [ "$code" = "$3" ] && jq -e --arg re "$4" '(.error | length > 0) and (.detail | test($re))' "$tmp/r.json" >/dev/null &&
    kn_ok "$1: $3 $(jq -r .detail "$tmp/r.json")" || kn_fail "$1: $code $(cat "$tmp/r.json")"
}
printf 'workflow: 1\ntask: "1"\nsteps:\n  - click: { selector: "#a", text: "x"\n' >"$tmp/b1.yaml"
bad "unclosed flow mapping" "$tmp/b1.yaml" 422 '^workflow\.yaml:[0-9]+:[0-9]+'
printf 'workflow: 1\ntask: "1"\ncolour: blue\nsteps:\n  - goto: "http://127.0.0.1:1/"\n' >"$tmp/b2.yaml"
bad "unknown key" "$tmp/b2.yaml" 422 '^workflow\.yaml:3:[0-9]+: .*colour'
printf 'workflow: 1\ntask: "1"\nsteps:\n  - goto: "http://127.0.0.1:1/"\n  - click: { selector: "div[[x", text: "x" }\n' >"$tmp/b3.yaml"
bad "invalid selector" "$tmp/b3.yaml" 422 '^workflow\.yaml:5:[0-9]+: step 2: '
printf 'workflow: 1\ntask: "no-such-task"\nsteps:\n  - goto: "http://127.0.0.1:1/"\n' >"$tmp/b4.yaml"
bad "unknown task" "$tmp/b4.yaml" 404 "no task 'no-such-task'"
printf 'workflow: 1\ntask: "1"\x00\nsteps: []\n' >"$tmp/b5.yaml"
bad "a NUL byte" "$tmp/b5.yaml" 422 '^workflow\.yaml:2:10: a NUL byte'
: >"$tmp/b6.yaml"
bad "empty body" "$tmp/b6.yaml" 400 'workflow file'
code=$(curl -s -o "$tmp/r.json" -w '%{http_code}' --data-binary @"$m2w/workflows/2.yaml" "$base/api/workflows")
[ "$code" = 401 ] && kn_ok "no token: 401" || kn_fail "no token: $code"
get no-such-task
[ "$code" = 404 ] && kn_ok "GET workflow of an unknown task: 404" || kn_fail "GET unknown: $code"
[ "$(kn_psql "SELECT count(*) FROM task_workflows")" = 3 ] && kn_ok "only the three good uploads are stored" ||
  kn_fail "task_workflows rows: $(kn_psql "SELECT count(*) FROM task_workflows")"

# the dashboard's task page shows it (a real Chromium; text set with textContent, so markup stays text)
here=$(cd "$(dirname "$0")" && pwd)
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_psql "INSERT INTO replay_results (task_version, status, report)
  SELECT current_version, 'broken', '{\"broken\": {\"step\": 2, \"reason\": \"element not found\"}, \"drift\": []}'
  FROM tasks WHERE task_key = '1'" >/dev/null || kn_fail "replay result not written"
node "$here/workflow-page.mjs" "$cdp" "$base" 1 >"$tmp/page.json" 2>"$tmp/page.err"
jq -e '.has == "yes" and (.workflow | test("version 3 of 3")) and (.recorded | test("2026")) and (.task_version | test("^2 \\(current\\)"))
   and .versions == 2 and .replays == 1' "$tmp/page.json" >/dev/null &&
  kn_ok "dashboard task page: has a workflow, when recorded, its task version, older versions, replay history" ||
  kn_fail "dashboard task page: $(cat "$tmp/page.json" "$tmp/page.err")"
node "$here/workflow-page.mjs" "$cdp" "$base" 0 >"$tmp/page0.json" 2>"$tmp/page0.err"
jq -e '.has == "no" and .replays == 0' "$tmp/page0.json" >/dev/null &&
  kn_ok "dashboard task page of a task without a workflow says so" || kn_fail "dashboard task 0: $(cat "$tmp/page0.json" "$tmp/page0.err")"
kn_stop "$serve_pid"
kn_finish
