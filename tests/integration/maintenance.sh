#!/usr/bin/env bash
# maintenance.sh — the maintenance loop, end to end: a private PostgreSQL (migrated), `keynode sites`
# serving a copy of tests/sites, `keynode serve` with two tokens (KEYNODE_API_TOKEN, named "default", and
# http.tokens alice), a webhook and a Slack receiver (alert-receiver.mjs), `keynode worker --once` replays:
#   1. the task shop-red-runner-cart uploaded by alice: a changelog row (upload, alice); replayed on the site:
#      passed;
#   2. the site changed in place (tests/integration/repair-fixtures: #size renamed #shoe-size): broken, health
#      broken; the alert (API, webhook, Slack text) links the drift diff and says a verified proposal exists;
#      the drift diff lists the two verified proposals; the worker's alert reaches the /api/stream of this
#      serve and of a second one on the same database, once each;
#   3. a reader without a token: POST …/repairs and …/edits are 401 and nothing changes in the database; the
#      dashboard's Apply without the token says refused (401) and nothing changes; malformed bodies: 400;
#      an unverified proposal (put into the stored report): 409 without override;
#   4. the dashboard (maintenance-page.mjs, headless Chromium, alice's token): Apply on the key-node proposal →
#      a new task version in the changelog by alice with the replay as evidence, a validation replay queued;
#      the worker runs it: passed, health broken → recovered; the task page shows the changelog, and its edit
#      form refuses a key node with a YAML error at its position (nothing stored);
#   5. the same through the API (the default token): the selector proposal → a new task version, validated;
#      the unverified one with override: applied, recorded as an override;
#   6. edits: a key node with a YAML error → 400 key_node:LINE:COL; a step with a bad selector → 400 step:…;
#      valid ones → new versions (kind edit); a workflow uploaded (kind workflow) and a step edit on it → a new
#      workflow version; GET …/versions, GET /api/tasksets/maint/changelog as JSON and Markdown;
#   7. every write one transaction: serve with KN_TEST_CHANGE_PAUSE stops inside an edit's transaction (after
#      the version, before its changelog row), is killed -9 there: the database holds the old version only,
#      no row, no job; the same edit on a restarted serve is written whole.
#
#   tests/integration/maintenance.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR
#
# 210 s at load 5-6 on 2 cores in the -Werror build; more time in the sanitizer build.
# ctest: integration.maintenance ARGS=keynode,repo,build:artifacts/maintenance TIMEOUT=300 SANITIZE_TIMEOUT=480
set -u -o pipefail
kn=${1:?usage: maintenance.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR}
repo=$(cd "${2:?usage}" && pwd)
out=${3:?usage}
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init maintenance
export TMPDIR=$tmp
export KEYNODE_CHROMIUM=$kn_chromium
for tool in curl jq node psql; do command -v "$tool" >/dev/null 2>&1 || { kn_fail "$tool not found"; kn_finish; }; done
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node/ensure.sh: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
mkdir -p "$out"
check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
mkdir -p "$tmp/site" && (cd "$repo/tests/sites" && tar cf - --exclude=./v2 --exclude=./v3 .) | tar xf - -C "$tmp/site" ||
  { kn_fail "site copy"; kn_finish; }
kn_sites_start "$kn" "$tmp/site" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
mkdir -p "$tmp/viewb"
kn_chromium_start "$tmp/viewb" || kn_finish
view_cdp=$cdp
kn_spawn -o "$tmp/recv.out" recv node "$here/alert-receiver.mjs" "$tmp/recv.port" "$tmp/recv.log"
kn_wait_for "the alert receiver's port" 20 test -s "$tmp/recv.port"
recv=http://127.0.0.1:$(cat "$tmp/recv.port")

TOKEN=maint-default-$$ ALICE=maint-alice-$$
export KEYNODE_API_TOKEN=$TOKEN
cat >"$tmp/keynode.yaml" <<EOF
# the database comes from KEYNODE_DATABASE_URL, the default token from KEYNODE_API_TOKEN
http:
  tokens:
    - { name: alice, token: "$ALICE" }
health: { broken_after: 1 }
alerts:
  - { type: webhook, url: "$recv/hook/fail-0" }
  - { type: slack, url: "$recv/slack/429-0" }
EOF
awk '/^  - id: shop-red-runner-cart$/ {p=1; print "tasks:"} p && /^  - id: / && !/shop-red-runner-cart/ {p=0} p' \
  "$repo/tests/sites/tasks.yaml" | kn_task_at_site - "$tmp/tasks.yaml" "$port"
grep -q 'id: size' "$tmp/tasks.yaml" || { kn_fail "task file: $(cat "$tmp/tasks.yaml")"; kn_finish; }

kn_serve_start "$kn" "$tmp/serve.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
B=$api_base
D=(-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
A=(-H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json')
ref=maint:shop-red-runner-cart
eref=maint%3Ashop-red-runner-cart
code() { curl -s -o "$tmp/c.json" -w '%{http_code}' "$@"; }
counts() { kn_psql "SELECT (SELECT count(*) FROM task_versions) || ' ' || (SELECT count(*) FROM task_changes) || ' ' ||
  (SELECT count(*) FROM task_workflows) || ' ' || (SELECT count(*) FROM jobs) || ' ' || (SELECT current_version FROM tasks)"; }
replay_now() { # run one worker until the queue is empty
  "$kn" worker --config "$tmp/keynode.yaml" --id wm --once --element-timeout 3000 --settle-timeout 20000 \
    >/dev/null 2>>"$tmp/worker.log"
  check "worker --once: exit 0" "$?" 0
}
last() { kn_psql "SELECT $1 FROM replay_results ORDER BY id DESC LIMIT 1"; }
health() { kn_psql "SELECT state FROM task_health"; }

# ---- 1. uploaded by alice, passing --------------------------------------------------------------------
check "POST /api/tasksets with alice's token" "$(code "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=maint")" 201
check "the upload's changelog row: kind upload by alice, every key node and step added" \
  "$(kn_psql "SELECT kind || ' ' || author || ' ' || json_array_length(diff->'key_nodes') || ' ' || json_array_length(diff->'steps') FROM task_changes")" \
  "upload alice 5 5"
check "the same file again: no new version, no row" \
  "$(code "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=maint")/$(kn_psql "SELECT count(*) FROM task_changes")" "201/1"
check "POST /api/replays" "$(code "${D[@]}" --data "{\"task\": \"$ref\"}" "$B/api/replays")" 202
replay_now
check "v1: the replay passed" "$(last status)" passed

# ---- 2. the site changes: broken, alert, drift diff ---------------------------------------------------
# the live feed of both serves (a second one on the same database): the worker's alert reaches each once
serve1_pid=$serve_pid
kn_serve_start "$kn" "$tmp/serve-feed.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool-feed" || kn_finish
B2=$api_base feed_serve=$serve_pid serve_pid=$serve1_pid
for b in "$B" "$B2"; do
  kn_spawn "feed-${b##*:}" node "$here/stream-client.mjs" "ws://${b#http://}/api/stream" "$tmp/feed-${b##*:}.out" "" 240
  kn_wait_for "the live feed of serve ${b##*:} to open" 10 grep -q '"type":"open"' "$tmp/feed-${b##*:}.out"
done
cp -r "$here/repair-fixtures/." "$tmp/site/" && rm -f "$tmp/site/README.md"
check "POST /api/replays" "$(code "${D[@]}" --data "{\"task\": \"$ref\"}" "$B/api/replays")" 202
replay_now
check "the changed site: broken" "$(last status)" broken
check "health broken" "$(health)" broken
broken_replay=$(last id)
check "the broken replay proposes the two verified repairs" \
  "$(kn_psql "SELECT string_agg((r->>'kind') || ':' || (r->>'verified'), ' ') FROM replay_results, jsonb_array_elements(report->'repairs') r WHERE id = $broken_replay")" \
  "selector:true element_key_node:true"
curl -s "$B/api/alerts" >"$tmp/alerts.json"
check "the broken alert links the drift diff and says a verified proposal exists" \
  "$(jq -r --arg r "$eref" '.alerts[] | select(.severity == "critical") | .detail | "\(.drift_page == "/#/tasks/\($r)/drift") \(.repair.verified) \(.repair.proposals) \(.repair.apply == "/api/tasks/\($r)/repairs")"' "$tmp/alerts.json")" \
  "true 2 2 true"
delivered_twice_() { [ "$(grep -c '"status":200' "$tmp/recv.log" 2>/dev/null)" -ge 2 ]; }
kn_wait_for "two webhook deliveries" 10 delivered_twice_
check "the webhook payload carries the drift link and the repair" \
  "$(grep '/hook/' "$tmp/recv.log" | jq -r '.body | fromjson | select(.severity == "critical") | "\(.detail.drift_page) \(.detail.repair.verified)"' | head -1)" \
  "/#/tasks/$eref/drift 2"
grep '/slack/' "$tmp/recv.log" | jq -r '.body | fromjson | .blocks[0].text.text' | grep -q "drift diff: \`/#/tasks/$eref/drift\` · a repair proposal verified by replay is there" &&
  kn_ok "the Slack text names the drift diff and the verified proposal" || kn_fail "Slack: $(grep '/slack/' "$tmp/recv.log" | tail -2)"
for b in "$B" "$B2"; do # the worker's alert on the feed of each serve, in the API's shape, once
  f=$tmp/feed-${b##*:}.out
  kn_wait_for "the alert on the live feed of serve ${b##*:}" 10 grep -q '"type":"alert"' "$f"
  check "the worker's broken alert on the live feed of serve ${b##*:}, once" \
    "$(jq -r 'select(.type == "alert" and .alert.severity == "critical") | "\(.alert.id) \(.alert.detail.repair.verified) \(.alert.acked)"' "$f")" \
    "$(jq -r '.alerts[] | select(.severity == "critical") | "\(.id) 2 false"' "$tmp/alerts.json")"
done
kn_stop "$feed_serve" TERM
check "GET /api/tasks/{id}/drift lists both proposals" \
  "$(code "$B/api/tasks/$eref/drift")/$(jq -r '[.repairs[].kind] | join(",")' "$tmp/c.json")/$(jq -r .failing_replay.id "$tmp/c.json")" \
  "200/selector,element_key_node/$broken_replay"

# ---- 3. refused: no token, malformed bodies, an unverified proposal ----------------------------------
before=$(counts)
check "apply without a token: 401" "$(code -H 'Content-Type: application/json' --data "{\"replay\": $broken_replay, \"proposal\": 1}" "$B/api/tasks/$eref/repairs")" 401
check "apply with a wrong token: 401" "$(code -H 'Authorization: Bearer nope' --data "{\"replay\": $broken_replay, \"proposal\": 1}" "$B/api/tasks/$eref/repairs")" 401
check "edit without a token: 401" "$(code --data '{"key_node": "size", "yaml": "url: {include: x}"}' "$B/api/tasks/$eref/edits")" 401
for body in '{' '[]' '"x"' '{"replay": "1", "proposal": 0}' '{"replay": 0, "proposal": 0}' '{"replay": 1}' \
  '{"replay": 1, "proposal": -1}' '{"replay": 1, "proposal": 0, "override": "yes"}' '{"replay": 1, "proposal": 0, "reason": 5}' \
  "$(printf '{"replay": 1, "proposal": 0, "reason": "a\\u0001b"}')" "$(python3 -c 'print("["*40 + "]"*40)')"; do
  c=$(code "${D[@]}" --data "$body" "$B/api/tasks/$eref/repairs")
  [ "$c" = 400 ] || kn_fail "repairs body $body: $c $(cat "$tmp/c.json")"
done
kn_ok "malformed repair bodies: 400"
for body in '{' '{"yaml": "x"}' '{"key_node": "size"}' '{"key_node": "size", "step": 1, "yaml": "x"}' '{"step": 0, "yaml": "x"}' \
  '{"step": "1", "yaml": "x"}' '{"key_node": 3, "yaml": "x"}' '{"key_node": "size", "yaml": ""}'; do
  c=$(code "${D[@]}" --data "$body" "$B/api/tasks/$eref/edits")
  [ "$c" = 400 ] || kn_fail "edits body $body: $c $(cat "$tmp/c.json")"
done
kn_ok "malformed edit bodies: 400"
printf '{"replay": 1, "proposal": 0\0}' >"$tmp/nul.json"
check "a NUL byte in the body: 400" "$(code "${D[@]}" --data-binary @"$tmp/nul.json" "$B/api/tasks/$eref/repairs")" 400
check "a replay of no such task: 404" "$(code "${D[@]}" --data '{"replay": 999999, "proposal": 0}' "$B/api/tasks/$eref/repairs")" 404
check "no such proposal: 404" "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 7}" "$B/api/tasks/$eref/repairs")" 404
check "no such task: 404" "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 0}" "$B/api/tasks/nope/repairs")" 404
# an unverified proposal in the stored report (what a replay writes when its verification failed)
unv='{"step": 5, "kind": "element_key_node", "key_node": "add", "was": "#add-to-cart", "proposed": "button#add-to-cart",
  "yaml": "- id: \"add\"\n  element_path: { exact: \"button#add-to-cart\", netloc: \"127\" }\n", "verified": false,
  "verified_at": null, "verify_report": {"status": "broken", "drift_steps": [5]}}'
kn_psql "UPDATE replay_results SET report = jsonb_set(report, '{repairs}', (report->'repairs') || \$j\$[$unv]\$j\$::jsonb) WHERE id = $broken_replay" >/dev/null
check "the unverified proposal without override: 409" \
  "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 2}" "$B/api/tasks/$eref/repairs")" 409
jq -r .detail "$tmp/c.json" | grep -q 'was not verified by replay (its verification replay: broken).*"override": true' &&
  kn_ok "409 says why and how to override" || kn_fail "409 detail: $(cat "$tmp/c.json")"
check "nothing changed in the database (versions, changes, workflows, jobs, current version)" "$(counts)" "$before"

# ---- 4. the dashboard: Apply with alice's token ---------------------------------------------------------
node "$here/maintenance-page.mjs" "$view_cdp" "$B" "$ref" "$ALICE" "$out" apply >"$tmp/page.log" 2>&1
prc=$?
while IFS= read -r line; do case $line in ok*) kn_ok "${line#ok   }";; FAIL*) kn_fail "${line#FAIL }";; esac; done <"$tmp/page.log"
[ "$prc" = 0 ] || kn_fail "maintenance-page.mjs apply: exit $prc: $(tail -3 "$tmp/page.log")"
check "the dashboard's Apply: a repair version by alice, the broken replay as evidence, verified, a validation job" \
  "$(kn_psql "SELECT c.kind || ' ' || c.author || ' ' || (c.evidence_replay = $broken_replay) || ' ' || c.override || ' ' || v.version || ' ' || (c.validation_job IS NOT NULL) || ' ' || (t.current_version = v.id)
    FROM task_changes c JOIN task_versions v ON v.id = c.task_version JOIN tasks t ON t.id = c.task_id ORDER BY c.id DESC LIMIT 1")" \
  "repair alice true false 2 true true"
check "exactly the key node changed: size's path #size → #shoe-size" \
  "$(kn_psql "SELECT (diff->'key_nodes'->0->>'id') || ' ' || (diff->'key_nodes'->0->'before'->>'path') || ' ' || (diff->'key_nodes'->0->'after'->>'path') || ' ' || json_array_length(diff->'key_nodes') || ' ' || json_array_length(diff->'steps') FROM task_changes ORDER BY id DESC LIMIT 1")" \
  "size #size #shoe-size 1 0"
replay_now
check "the validation replay of version 2: passed" \
  "$(kn_psql "SELECT r.status || ' ' || v.version FROM task_changes c JOIN jobs j ON j.id = c.validation_job JOIN replay_results r ON r.id = j.replay_id JOIN task_versions v ON v.id = r.task_version ORDER BY c.id DESC LIMIT 1")" \
  "passed 2"
check "health broken → recovered" "$(health)/$(kn_psql "SELECT from_state || '>' || to_state FROM health_transitions ORDER BY id DESC LIMIT 1")" "recovered/broken>recovered"
before=$(counts)
node "$here/maintenance-page.mjs" "$view_cdp" "$B" "$ref" "$ALICE" "$out" changelog >"$tmp/page2.log" 2>&1
prc=$?
check "the refused edit on the task page stored nothing" "$(counts)" "$before"
while IFS= read -r line; do case $line in ok*) kn_ok "${line#ok   }";; FAIL*) kn_fail "${line#FAIL }";; esac; done <"$tmp/page2.log"
[ "$prc" = 0 ] || kn_fail "maintenance-page.mjs changelog: exit $prc: $(tail -3 "$tmp/page2.log")"

# ---- 5. the same through the API: the selector proposal, then the unverified one with override ---------
check "apply the selector proposal again from the same replay" \
  "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 0, \"reason\": \"#size renamed #shoe-size\"}" "$B/api/tasks/$eref/repairs")" 201
check "201: version 3 by default, not an override, a validation job" "$(jq -r '"\(.kind) \(.version) \(.author) \(.override) \(.validation_job > 0)"' "$tmp/c.json")" "repair 3 default false true"
check "exactly step 4 changed: its selector #size → #shoe-size" \
  "$(kn_psql "SELECT (diff->'steps'->0->>'step') || ' ' || (diff->'steps'->0->'before'->>'selector') || ' ' || (diff->'steps'->0->'after'->>'selector') || ' ' || json_array_length(diff->'key_nodes') || ' ' || json_array_length(diff->'steps') || ' ' || reason FROM task_changes ORDER BY id DESC LIMIT 1")" \
  "4 #size #shoe-size 0 1 #size renamed #shoe-size"
check "the same proposal again: nothing changes, 409" \
  "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 1}" "$B/api/tasks/$eref/repairs")" 409
replay_now
check "the validation replay of version 3: passed, no drift" \
  "$(kn_psql "SELECT r.status || ' ' || v.version || ' ' || jsonb_array_length(r.report->'replay'->'drift') FROM replay_results r JOIN task_versions v ON v.id = r.task_version ORDER BY r.id DESC LIMIT 1")" \
  "passed 3 0"
check "the unverified proposal with override: applied" \
  "$(code "${D[@]}" --data "{\"replay\": $broken_replay, \"proposal\": 2, \"override\": true, \"reason\": \"known flaky id\"}" "$B/api/tasks/$eref/repairs")/$(jq -r '"\(.version) \(.override)"' "$tmp/c.json")" \
  "201/4 true"
check "recorded as an override" "$(kn_psql "SELECT override || ' ' || (diff->'key_nodes'->0->'after'->>'expect') FROM task_changes ORDER BY id DESC LIMIT 1")" "true button#add-to-cart"

# ---- 6. edits, a workflow, versions and the changelog ----------------------------------------------------
check "a key node with a YAML error: 400" \
  "$(code "${D[@]}" --data '{"key_node": "add", "yaml": "element_path:\n  exact: \"#add-to-cart\"\n  fuzzy: 1\n"}' "$B/api/tasks/$eref/edits")" 400
jq -r .detail "$tmp/c.json" | grep -q '^key_node:3:3: ' && kn_ok "the error is at key_node:3:3 (the snippet's own line and column)" ||
  kn_fail "key node error position: $(cat "$tmp/c.json")"
check "a step with a bad selector: 400" \
  "$(code "${D[@]}" --data '{"step": 5, "yaml": "click: { selector: \"#add-to-cart[\" }"}' "$B/api/tasks/$eref/edits")" 400
jq -r .detail "$tmp/c.json" | grep -q '^step:1:' && kn_ok "the error is at step:1:…" || kn_fail "step error: $(cat "$tmp/c.json")"
check "an unknown key node: 404" "$(code "${D[@]}" --data '{"key_node": "nope", "yaml": "url: {include: x}"}' "$B/api/tasks/$eref/edits")" 404
check "a step past the end: 404" "$(code "${D[@]}" --data '{"step": 9, "yaml": "back"}' "$B/api/tasks/$eref/edits")" 404
check "edit key node add back (kind edit, by alice)" \
  "$(code "${A[@]}" --data '{"key_node": "add", "yaml": "- element_path: { exact: \"#add-to-cart\", netloc: \"127\" }", "reason": "revert the override"}' "$B/api/tasks/$eref/edits")/$(jq -r '"\(.kind) \(.version) \(.author)"' "$tmp/c.json")" \
  "201/edit 5 alice"
cat >"$tmp/wf.yaml" <<EOF
workflow: 1
task: shop-red-runner-cart
viewport: "1280x800"
steps:
  - goto: "$base/shop/"
  - type: { selector: "#q", value: "red running shoes", enter: true, id: "q", name: "q" }
  - click: { selector: ".results li:nth-child(2) a", text: "Red Runner", href: "/shop/item.html?id=3", role: "link" }
  - select: { selector: "#shoe-size", value: "9", name: "size" }
  - click: { selector: "#add-to-cart", text: "Add to cart", id: "add-to-cart", role: "button" }
EOF
check "POST /api/workflows?reason=… by alice" \
  "$(code -H "Authorization: Bearer $ALICE" --data-binary @"$tmp/wf.yaml" "$B/api/workflows?taskset=maint&reason=recorded%20again")/$(jq -r '"\(.version) \(.created)"' "$tmp/c.json")" \
  "201/1 true"
check "its changelog row: kind workflow, workflow version 1, by alice, the reason" \
  "$(kn_psql "SELECT kind || ' ' || workflow_version || ' ' || author || ' ' || reason FROM task_changes ORDER BY id DESC LIMIT 1")" \
  "workflow 1 alice recorded again"
check "the same workflow again: 200, no new row" \
  "$(code -H "Authorization: Bearer $ALICE" --data-binary @"$tmp/wf.yaml" "$B/api/workflows?taskset=maint")/$(kn_psql "SELECT count(*) FROM task_changes WHERE kind = 'workflow'")" "200/1"
check "edit step 4 of the stored workflow: a new workflow version" \
  "$(code "${D[@]}" --data '{"step": 4, "yaml": "select: { selector: \"select[name=size]\", value: \"9\", name: \"size\" }", "reason": "by name"}' "$B/api/tasks/$eref/edits")/$(jq -r '"\(.workflow_version) \(.version)"' "$tmp/c.json")" \
  "201/2 5"
check "the stored workflow's step 4 is the edit, the others as they were" \
  "$(curl -s "$B/api/tasks/$eref/workflow" | jq -r .body | grep -c -e 'select\[name=size\]' -e 'Red Runner' -e '#shoe-size')" "2"
replay_now
check "the validation replay of the edited workflow: passed" "$(last status)" passed
curl -s -o "$tmp/versions.json" "$B/api/tasks/$eref/versions"
check "GET /api/tasks/{id}/versions: 5 versions, 7 changes newest first, kinds" \
  "$(jq -r '"\(.current_version) \(.versions | length) \([.changes[].kind] | join(","))"' "$tmp/versions.json")" \
  "5 5 edit,workflow,edit,repair,repair,repair,upload"
check "versions: every repair and edit has its validation replay, the newest passed, the first two passed" \
  "$(jq -r '[.changes[] | select(.validation)] | "\(length) \(.[0].validation.status) \(.[-1].validation.status) \(.[-2].validation.status)"' "$tmp/versions.json")" "5 passed passed passed"
check "GET /api/tasksets/maint/changelog: JSON" "$(code "$B/api/tasksets/maint/changelog")/$(jq -r '[.changes[] | .task] | unique | join(",")' "$tmp/c.json")" "200/shop-red-runner-cart"
check "GET …/changelog?format=md" "$(code "$B/api/tasksets/maint/changelog?format=md")" 200
cp "$tmp/c.json" "$out/changelog.md"
day=$(date -u +%Y-%m-%d)
grep -q "^# Maintenance log: task set maint" "$out/changelog.md" && grep -q "^## $day" "$out/changelog.md" &&
  grep -q "repair by alice" "$out/changelog.md" && grep -q 'key node `size`: path `#size` → `#shoe-size`' "$out/changelog.md" &&
  grep -q "applied by override: not verified" "$out/changelog.md" && grep -q "upload by alice" "$out/changelog.md" &&
  kn_ok "the Markdown log: dated, who, what, before → after, the override" || kn_fail "changelog.md: $(cat "$out/changelog.md")"
check "Accept: text/markdown gives Markdown" \
  "$(curl -s -H 'Accept: text/markdown' "$B/api/tasksets/maint/changelog" | head -1)" "# Maintenance log: task set maint"
check "an unknown task set: 404" "$(code "$B/api/tasksets/nope/changelog")" 404
check "a bad format: 400" "$(code "$B/api/tasksets/maint/changelog?format=xml")" 400

# ---- 7. kill -9 inside the transaction --------------------------------------------------------------------
kn_stop "$serve_pid" TERM
before=$(counts)
KN_TEST_CHANGE_PAUSE=$tmp/paused kn_serve_start "$kn" "$tmp/serve2.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 \
  --spool-dir "$tmp/spool" || kn_finish
edit='{"key_node": "query", "yaml": "url: { key: q, include: \"running\" }", "reason": "crash test"}'
kn_spawn -o /dev/null edit curl -s -m 120 "${D[@]}" --data "$edit" "$api_base/api/tasks/$eref/edits"
cpid=$kn_pid
kn_wait_for "serve to pause inside the edit's transaction" 30 test -f "$tmp/paused"
[ -f "$tmp/paused" ] && kn_ok "serve paused inside the edit's transaction (version inserted, no changelog row yet)" ||
  kn_fail "serve never reached the pause"
check "meanwhile the database shows the old version (the transaction is not committed)" "$(counts)" "$before"
kill -9 "$serve_pid"
wait "$cpid" 2>/dev/null
kn_wait_sql 10 "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'" 0
check "after kill -9: the old version only, no changelog row, no job (versions changes workflows jobs current)" "$(counts)" "$before"
rm -f "$tmp/paused"
kn_serve_start "$kn" "$tmp/serve3.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
check "the same edit on a restarted serve: 201" "$(code "${D[@]}" --data "$edit" "$api_base/api/tasks/$eref/edits")" 201
check "written whole: one version, its row, its job" \
  "$(kn_psql "SELECT (SELECT count(*) FROM task_versions) - ${before%% *} || ' ' || (SELECT count(*) FROM task_changes WHERE reason = 'crash test') || ' ' || (SELECT count(*) FROM jobs j JOIN task_changes c ON c.validation_job = j.id WHERE c.reason = 'crash test')")" \
  "1 1 1"
kn_stop "$serve_pid" TERM
kn_finish
