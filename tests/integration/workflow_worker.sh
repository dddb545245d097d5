#!/bin/bash
# workflow_worker.sh — `keynode worker` replays the workflows uploaded through the API:
# the Mind2Web-Live task file of tests/sites/mind2web-live (key nodes only, no steps) is uploaded to
# a real `keynode serve`, a real worker (real headless Chromium, real PostgreSQL) replays its task 0:
#   - before any workflow is uploaded: an error result at once, "no steps to replay";
#   - after two workflow versions were uploaded (POST /api/workflows): passed, driven by version 2
#     (the report's "workflow" and replay_results.workflow_version say so, every step of it ran);
#   - on the changed sites (tests/sites/v2, served on another port: the task file and its workflow
#     uploaded again, task version 2, workflow version 3): broken at the step and with the reason of
#     tests/sites/v2/expected-workflows.json, by workflow version 3;
#   - a stored workflow that does not load (inserted past the API): an error result naming it and the
#     position, the worker still running;
#   - the dashboard's task page lists the four replays with the workflow each drove.
# usage: workflow_worker.sh KEYNODE SOURCE_DIR
#
# ctest: integration.workflow_worker ARGS=keynode,repo TIMEOUT=180
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init wfworker
here=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
sites=$src/tests/sites
m2w=$sites/mind2web-live
task=0
kn_api_start "$kn" || kn_finish
[ "$(kn_psql "SELECT count(*) FROM schema_migrations WHERE version = 100")" = 1 ] &&
  kn_ok "migration 100 (replay_results.workflow_version) applied" || kn_fail "migration 100 not applied"
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$tmp/keynode.yaml"
kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200 --element-timeout 3000 \
  --settle-timeout 20000
worker_pid=$kn_pid

# upload_tasks PORT — the task file with its URLs on PORT (a new task version when PORT changed)
upload_tasks() {
  kn_task_at_site "$m2w/tasks.json" "$tmp/tasks.json" "$1"
  code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/tasks.json" "$base/api/tasksets?name=m2w")
  [ "$code" = 201 ] || kn_fail "taskset upload: $code $(cat "$tmp/ts.json")"
}
# upload_workflow PORT RECORDED_AT — workflows/0.yaml on PORT, its recorded_at set; sets wv (its version)
upload_workflow() {
  { echo 'workflow: 1'; echo "task: \"$task\""; echo "recorded_at: \"$2\""; sed '1,/^task:/d' "$m2w/workflows/$task.yaml"; } |
    kn_task_at_site - "$tmp/wf.yaml" "$1"
  code=$(curl -s -o "$tmp/wf.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/yaml' --data-binary @"$tmp/wf.yaml" "$base/api/workflows?taskset=m2w")
  wv=$(jq -r .version "$tmp/wf.json" 2>/dev/null)
  [ "$code" = 201 ] || kn_fail "workflow upload: $code $(cat "$tmp/wf.json")"
}
# results_at_least_ N — replay_results holds N rows or more
results_at_least_() { local n; n=$(kn_psql "SELECT count(*) FROM replay_results"); [ "${n:-0}" -ge "$1" ]; }
# replay N — POST /api/replays for the task, wait (up to 120 s) for its Nth result; sets row (JSON of it)
replay() {
  code=$(curl -s -o "$tmp/rp.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' --data "{\"task\": \"$task\"}" "$base/api/replays")
  [ "$code" = 202 ] || kn_fail "POST /api/replays: $code $(cat "$tmp/rp.json")"
  local n=0
  kn_wait_for "replay $1's result" 120 kn_ended_or "$worker_pid" results_at_least_ "$1"
  n=$(kn_psql "SELECT count(*) FROM replay_results")
  [ "${n:-0}" -ge "$1" ] || kn_fail "replay $1: no result (worker: $(tail -3 "$tmp/worker.log"))"
  row=$(kn_psql "SELECT json_build_object('status', status, 'workflow_version', workflow_version, 'report', report)
                 FROM replay_results ORDER BY id DESC LIMIT 1")
}
show() { jq -c '{status, workflow_version, workflow: .report.workflow, error: .report.error, broken: (.report.broken // {} | del(.dom_excerpt))}' <<<"$row"; }

kn_sites_start "$kn" "$sites" "$tmp/sites-v1.log" || kn_finish
upload_tasks "$port"
replay 1
jq -e '.status == "error" and .workflow_version == null and (.report.error.reason | test("no steps to replay.*no workflow was uploaded"))' <<<"$row" >/dev/null &&
  kn_ok "no workflow uploaded: an error result at once ($(jq -r .report.error.reason <<<"$row"))" || kn_fail "without a workflow: $(show)"

upload_workflow "$port" "2026-11-25T01:00:00Z"
[ "$wv" = 1 ] || kn_fail "first workflow upload: version $wv"
upload_workflow "$port" "2026-11-25T02:00:00Z"
[ "$wv" = 2 ] && kn_ok "two workflow versions uploaded through the API" || kn_fail "second workflow upload: version $wv"
nsteps=$(grep -c '^  - ' "$tmp/wf.yaml")
replay 2
jq -e --argjson n "$nsteps" '.status == "passed" and .workflow_version == 2
   and .report.workflow == {"source": "stored", "version": 2, "task_version": 1, "recorded_at": "2026-11-25T02:00:00Z"}
   and (.report.replay.steps | length) == $n and ([.report.replay.steps[] | .outcome == "ok"] | all)' <<<"$row" >/dev/null &&
  kn_ok "the worker replayed stored workflow version 2 ($nsteps steps): passed" || kn_fail "v1 sites: $(show)"
grep -q 'msg="replaying the stored workflow" task=0 workflow_version=2' "$tmp/worker.log" &&
  kn_ok "the worker logs the stored workflow it replays" || kn_fail "worker log: $(grep -c . "$tmp/worker.log") lines, no workflow line"
kn_stop "$sites_pid"

# the changed sites, on another port: the task file and the workflow are uploaded again
root=$tmp/v2root
kn_sites_v2_root "$sites" "$root"
kn_sites_start "$kn" "$root" "$tmp/sites-v2.log" || kn_finish
upload_tasks "$port"
upload_workflow "$port" "2026-11-25T03:00:00Z"
[ "$wv" = 3 ] || kn_fail "workflow upload on v2: version $wv"
e=$(jq -c --arg t "$task" '.[$t]' "$sites/v2/expected-workflows.json")
replay 3
jq -e --argjson e "$e" '.status == $e.status and .workflow_version == 3 and .report.workflow.task_version == 2
   and .report.broken.step == $e.step and .report.broken.reason == $e.reason and .report.broken.key_node == $e.key_node' <<<"$row" >/dev/null &&
  kn_ok "changed site: broken at step $(jq .step <<<"$e") ($(jq -r .reason <<<"$e")) by stored workflow version 3" ||
  kn_fail "v2 sites: $(show), want $e"

# a stored workflow that does not load (written past the API, which refuses it): an error result at once
# naming it and the position, never a crash, never the inline steps instead
kn_psql "INSERT INTO task_workflows (task_id, version, task_version, steps, hash, body)
  SELECT t.id, 4, t.current_version, 1, 'x', E'workflow: 1\\ntask: \"0\"\\nsteps:\\n  - click: { selector: \"div[[x\", text: x }\\n'
  FROM tasks t WHERE t.task_key = '$task'" >/dev/null || kn_fail "bad workflow row not inserted"
replay 4
jq -e '.status == "error" and (.report.error.reason | test("stored workflow version 4:4:[0-9]+: step 1"))' <<<"$row" >/dev/null &&
  kn_ok "a stored workflow that does not load: error ($(jq -r .report.error.reason <<<"$row"))" || kn_fail "bad stored workflow: $(show)"
kill -0 "$worker_pid" 2>/dev/null && kn_ok "the worker is still running" || kn_fail "the worker died: $(tail -3 "$tmp/worker.log")"
kn_stop "$sites_pid"

# the dashboard's task page: the replay history says which workflow each replay drove
node "$here/workflow-page.mjs" "$cdp" "$base" "$task" >"$tmp/page.json" 2>"$tmp/page.err"
jq -e '.has == "yes" and .replays == 4 and .replay_workflows == ["—", "version 3", "version 2", "—"]' "$tmp/page.json" >/dev/null &&
  kn_ok "dashboard replay history: none (the bad one), version 3, version 2, none" || kn_fail "dashboard: $(cat "$tmp/page.json" "$tmp/page.err")"
kn_stop "$worker_pid"
kn_stop "$serve_pid"
kn_finish
