#!/usr/bin/env bash
# drift.sh — worker replay traces and the drift diff, end to end: a private
# PostgreSQL (migrated), `keynode sites` serving a copy of tests/sites whose forum post page sets a hostile
# title, keynode.yaml with `trace: {mode: on, dir, keep_days, max_mb}` read by both `keynode serve` (no
# trace flags) and `keynode worker`, a task uploaded over the API and replayed by `keynode worker --once`:
#   1. on v1: passed; its trace folder and `traces` row (kind replay), GET /api/runs/{run}/trace; no drift
#      yet (404);
#   2. the copy switched to its v2 change in place (the forum's post.html?id=N renamed post.html?post=N,
#      as worker.sh and replay.sh use it) and replayed again: broken (retried once: one trace kept per
#      stored replay); GET /api/tasks/{id}/drift names step 2 (outcome, URL, resolved selector, drift flag
#      differ), the URLs of both sides, the recorded fingerprint, key node "post" changed, and both
#      screenshots are served; the flaky alert links the drift diff;
#   3. malformed ids and missing replays: clear 4xx, serve still up;
#   4. the dashboard's drift page in headless Chromium (drift-page.mjs): screenshots load, the hostile title
#      and a repair proposal injected into the stored report render as text, the requests of both sides (a
#      held order injected into the passing trace, the same order sent with another quantity into the
#      failing one) paired as changed, no console error; the task page and the alert link to it. Screenshot of the page to ARTIFACT_DIR (KN_UPDATE_DOCS=1: docs/img/).
#
#   tests/integration/drift.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR
#
# ctest: integration.drift ARGS=keynode,repo,build:artifacts/drift TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: drift.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR}
repo=$(cd "${2:?usage}" && pwd)
out=${3:?usage}
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init drift
export TMPDIR=$tmp # the worker's browser profile lives here and goes with it
export KEYNODE_CHROMIUM=$kn_chromium
for tool in curl jq node psql; do command -v "$tool" >/dev/null 2>&1 || { kn_fail "$tool not found"; kn_finish; }; done
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node/ensure.sh: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
mkdir -p "$out"
[ "${KN_UPDATE_DOCS:-0}" = 1 ] && out=$repo/docs/img && mkdir -p "$out"

check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }
xss_title='<img src=x onerror="window.__pwned=1">"'"'"' & post'
xss_yaml='- click: { selector: "<script>window.__pwned=3</script>" }'

# site LAYOUT — lay tests/sites (v1) or its v2 change over $tmp/site in place, then make the forum's
# page titles hostile (the same line on both: only the site's change differs between the replays)
site() {
  if [ "$1" = v1 ]; then
    mkdir -p "$tmp/site" && cp -r "$repo/tests/sites/." "$tmp/site/" && rm -rf "$tmp/site/v2" "$tmp/site/v3"
  else
    kn_sites_v2_root "$repo/tests/sites" "$tmp/site" && rm -rf "$tmp/site/v2" "$tmp/site/v3"
  fi
  local f
  # the list and the post page both: a step's title is read whenever its probe runs, before or after
  # the click's navigation
  for f in list post; do
    printf '\ndocument.title = %s;\n' "$(jq -Rn --arg t "$xss_title" '$t')" >>"$tmp/site/forum/js/$f.js"
  done
}

kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
site v1 || { kn_fail "site copy"; kn_finish; }
kn_sites_start "$kn" "$tmp/site" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
mkdir -p "$tmp/viewb"
kn_chromium_start "$tmp/viewb" || kn_finish
view_cdp=$cdp
TOKEN=drift-token-$$
export KEYNODE_API_TOKEN=$TOKEN
cat >"$tmp/keynode.yaml" <<EOF
# the database comes from KEYNODE_DATABASE_URL, the token from KEYNODE_API_TOKEN
health: { broken_after: 2 }
trace:
  mode: on
  dir: $tmp/traces
  keep_days: 7
  max_mb: 20
EOF
cat >"$tmp/tasks.yaml" <<EOF
tasks:
  - id: forum-open-post
    intent: "Open the forum post about stoves"
    start_url: $base/forum/
    key_nodes:
      - id: post
        url: { key: id, exact: "3" }
    steps:
      - goto: $base/forum/
      - click: { selector: "#post-3 a.post-title", text: "Winter camping stove advice", href: "post.html?id=3", tag: "a" }
        after: { url: "$base/forum/post.html?id=3", navigated: true }
EOF

# serve with no trace flag: keynode.yaml's trace: decides (mode on, dir)
kn_serve_start "$kn" "$tmp/serve.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
B=$api_base
W=(-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
c=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${W[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=drift")
[ "$c" = 201 ] || { kn_fail "POST /api/tasksets: $c $(cat "$tmp/ts.json")"; kn_finish; }
ref=drift:forum-open-post
eref=drift%3Aforum-open-post

# replay_now — queue a replay over the API and run one worker until the queue is empty
replay_now() {
  c=$(curl -s -o "$tmp/q.json" -w '%{http_code}' "${W[@]}" --data "{\"task\": \"$ref\"}" "$B/api/replays")
  [ "$c" = 202 ] || kn_fail "POST /api/replays: $c $(cat "$tmp/q.json")"
  # no --step-delay: every trace step has its screenshot however fast the replay goes (the screencast)
  "$kn" worker --config "$tmp/keynode.yaml" --id wd --once --element-timeout 3000 --settle-timeout 20000 \
    >/dev/null 2>>"$tmp/worker.log"
  check "worker --once: exit 0" "$?" 0
}
last() { kn_psql "SELECT $1 FROM replay_results ORDER BY id DESC LIMIT 1"; }

# ---- 1. passing on v1 --------------------------------------------------------------------------------
replay_now
check "v1: the replay passed" "$(last status)" passed
run1=$(last run_id)
[ -n "$run1" ] && [ -f "$tmp/traces/$run1/index.json" ] && kn_ok "v1: the worker traced the replay in trace.dir/<run>/" ||
  kn_fail "v1: no trace for run '$run1': $(ls "$tmp/traces" 2>&1)"
check "v1: the trace's row (kind replay, status passed)" \
  "$(kn_psql "SELECT kind || ' ' || status || ' ' || (steps >= 2) || ' ' || (shots >= 1) FROM traces WHERE run_id = '$run1'")" \
  "replay passed true true"
c=$(curl -s -o "$tmp/t1.json" -w '%{http_code}' "$B/api/runs/$run1/trace")
[ "$c" = 200 ] && [ "$(jq -r '.kind + " " + .status' "$tmp/t1.json")" = "replay passed" ] &&
  kn_ok "GET /api/runs/{replay run}/trace: the worker's trace through serve" || kn_fail "GET replay trace: $c $(head -c 200 "$tmp/t1.json")"
node "$here/trace-validate.mjs" "$repo" "$tmp/t1.json" >"$tmp/validate.log" 2>&1 &&
  kn_ok "the worker's trace validates against schemas/trace.schema.json" || kn_fail "schema: $(cat "$tmp/validate.log")"
c=$(curl -s -o "$tmp/d0.json" -w '%{http_code}' "$B/api/tasks/$eref/drift")
[ "$c" = 404 ] && jq -e '.detail | test("no broken replay")' "$tmp/d0.json" >/dev/null &&
  kn_ok "drift before any failure: 404, the task has no broken replay" || kn_fail "drift before failure: $c $(cat "$tmp/d0.json")"

# ---- 2. the site changes: broken ---------------------------------------------------------------------
site v2 || kn_fail "v2 overlay"
replay_now
check "v2: the replay is broken" "$(last status)" broken
grep -q 'msg="replay failed, retrying in a fresh context"' "$tmp/worker.log" && kn_ok "v2: retried once in a fresh context" ||
  kn_fail "v2: not retried"
run2=$(last run_id)
check "one trace folder per stored replay (the retried attempt's removed)" \
  "$(find "$tmp/traces" -mindepth 1 -maxdepth 1 -type d | wc -l) $(kn_psql "SELECT count(*) FROM traces")" "2 2"
c=$(curl -s -o "$tmp/d.json" -w '%{http_code}' "$B/api/tasks/$eref/drift")
[ "$c" = 200 ] || { kn_fail "GET drift: $c $(cat "$tmp/d.json")"; kn_finish; }
kn_ok "GET /api/tasks/{id}/drift: 200"
check "drift: the first step that differs is step 2 (click)" "$(jq -r '"\(.step) \(.verb)"' "$tmp/d.json")" "2 click"
# the recorded selector still matches on v2 (the href disagrees): found by the same locator, so the
# resolved selector is no difference here; the outcome (ok → ok-by-fallback), URL and drift flag are
check "drift: what differs there" "$(jq -r '.differs | join(",")' "$tmp/d.json")" "status,url,drift"
check "drift: the failing side found the element by its recorded selector" \
  "$(jq -r '"\(.failing.resolved) \(.failing.selector)"' "$tmp/d.json")" "selector #post-3 a.post-title"
check "drift: the two replays" "$(jq -r '"\(.passing_replay.run) \(.failing_replay.run)"' "$tmp/d.json")" "$run1 $run2"
check "drift: the passing side ended at post.html?id=3" "$(jq -r '.passing.url' "$tmp/d.json")" "$base/forum/post.html?id=3"
check "drift: the failing side ended at post.html?post=3" "$(jq -r '.failing.url' "$tmp/d.json")" "$base/forum/post.html?post=3"
check "drift: outcomes" "$(jq -r '"\(.passing.outcome) / \(.failing.outcome)"' "$tmp/d.json")" "ok / ok-by-fallback"
check "drift: the recorded fingerprint" "$(jq -r '"\(.recorded.href) \(.recorded.tag) \(.recorded.text)"' "$tmp/d.json")" \
  "post.html?id=3 a Winter camping stove advice"
check "drift: key node post changed (reached, then not)" \
  "$(jq -r '[.changed_key_nodes[]] | join(",")' "$tmp/d.json") $(jq -r '.key_nodes[0] | "\(.passing.reached) \(.failing.reached)"' "$tmp/d.json")" \
  "post true false"
# the worker proposes repairs (services/replay/repair.c): the renamed parameter, verified by replay
check "drift: the worker's verified proposals (selector hint, renamed key)" \
  "$(jq -r '[.repairs[] | select(.verified) | "\(.step) \(.kind) \(.key_node) \(.proposed)"] | join("; ")' "$tmp/d.json")" \
  '2 selector null href: "/forum/post.html?post=3"; 2 url_key_node post key: post'
check "drift: the failing step's title, verbatim" "$(jq -r '.failing.title' "$tmp/d.json")" "$xss_title"
for s in passing failing; do
  u=$(jq -r ".$s.screenshot_url // empty" "$tmp/d.json")
  c=$(curl -s -o "$tmp/$s.img" -w '%{http_code} %{content_type}' "$B$u")
  [ -n "$u" ] && [ "$c" = "200 image/jpeg" ] && [ "$(head -c 2 "$tmp/$s.img" | od -An -tx1 | tr -d ' ')" = ffd8 ] &&
    kn_ok "drift: the $s screenshot is served ($u)" || kn_fail "drift: $s screenshot '$u': $c"
done
flaky_drift_page_() {
  curl -s "$B/api/alerts?all=1" | jq -r '[.alerts[] | select(.dedupe_key == "health:drift:forum-open-post:flaky")][0].detail.drift_page // empty' | grep .
}
kn_wait_for "the flaky alert's drift page" 10 flaky_drift_page_
a=$(flaky_drift_page_)
check "the flaky alert links the drift diff" "$a" "/#/tasks/$eref/drift"

# ---- 3. malformed and missing ------------------------------------------------------------------------
code() { curl -s -o "$tmp/e.json" -w '%{http_code}' "$B$1"; }
check "drift of an unknown task: 404" "$(code /api/tasks/no-such-task/drift)" 404
check "drift ?replay=abc: 400" "$(code "/api/tasks/$eref/drift?replay=abc")" 400
check "drift ?replay=-1: 400" "$(code "/api/tasks/$eref/drift?replay=-1")" 400
check "drift ?replay=<another task's or no replay>: 404" "$(code "/api/tasks/$eref/drift?replay=999999")" 404
first=$(kn_psql "SELECT min(id) FROM replay_results")
check "drift ?replay=<the passing one>: 404, nothing passed before it" "$(code "/api/tasks/$eref/drift?replay=$first")" 404
check "drift of '..': 404" "$(code /api/tasks/..%2F..%2Fetc/drift)" 404
check "drift of an id with a control byte: 400" "$(code /api/tasks/a%01b/drift)" 400
# a stored report that is not what a replay writes: still an answer, no crash
kn_psql "INSERT INTO replay_results (task_version, status, report) SELECT task_version, 'broken', '[1,2]'::jsonb FROM replay_results ORDER BY id DESC LIMIT 1" >/dev/null
check "drift over a damaged stored report: 500 with a reason" "$(code "/api/tasks/$eref/drift")" 500
kn_psql "DELETE FROM replay_results WHERE report = '[1,2]'::jsonb" >/dev/null
check "serve still answers" "$(code /healthz)" 200

# ---- 4. the dashboard --------------------------------------------------------------------------------
# a repair proposal in the failing report (what h16r's replay writes; shown as text only)
repairs=$(jq -nc --arg y "$xss_yaml" '[{step: 2, kind: "url_key_node", key_node: "post", was: "url: { key: id, exact: \"3\" }",
  proposed: "url: { key: post, exact: \"3\" }", yaml: $y, verified: true, verified_at: "2026-11-25T04:00:00Z",
  verify_report: {status: "passed", drift_steps: []}}]')
[ -n "$(kn_psql "UPDATE replay_results SET report = report || jsonb_build_object('repairs', \$r\$$repairs\$r\$::jsonb) WHERE run_id = '$run2' RETURNING id")" ] ||
  kn_fail "a repair proposal put into the failing report"
# requests: the passing replay's trace holds the order held by keynode and matching key node
# "order", the failing one's the same order sent, with another quantity and no key node matched (written
# into both trace indexes as a guarded replay's trace holds them); the route pairs them as "changed"
for r in "$run1 true order 2" "$run2 false - 3"; do
  read -r rid held node qty <<<"$r"
  jq --arg u "$base/api/orders?n=$rid" --argjson held "$held" --arg node "$node" --arg qty "$qty" \
    '.steps[-1].events += [{type: "request", url: .steps[-1].page_url, request: {method: "POST", url: $u, held: $held,
      matched: (if $node == "-" then [] else [$node] end), fields: [["item", "lamp"], ["qty", $qty], ["card", "[redacted]"]]}}]' \
    "$tmp/traces/$rid/index.json" >"$tmp/idx.json" && mv "$tmp/idx.json" "$tmp/traces/$rid/index.json" ||
    kn_fail "requests written into the trace of $rid"
done
curl -s -o "$tmp/dr.json" "$B/api/tasks/$eref/drift"
check "drift: the requests of both replays paired, the order changed (held, matched key nodes, qty)" \
  "$(jq -r '"\(.changed_requests) " + ([.requests[] | "\(.method) \(.url_form) \(.change) \(.differs | join(",")) \(.fields_changed | join(",")) \(.passing.held) \(.failing.held)"] | join("; "))' "$tmp/dr.json")" \
  "1 POST /api/orders?n changed held,matched,fields qty true false"
node "$here/drift-page.mjs" "$view_cdp" "$B" "$ref" "$xss_title" "$xss_yaml" "$out" >"$tmp/page.log" 2>&1
prc=$?
while IFS= read -r line; do case $line in ok*) kn_ok "${line#ok   }";; FAIL*) kn_fail "${line#FAIL }";; esac; done <"$tmp/page.log"
[ "$prc" = 0 ] || kn_fail "drift-page.mjs exit $prc: $(tail -3 "$tmp/page.log")"
kn_stop "$serve_pid" TERM
kn_finish
