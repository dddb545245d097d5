#!/usr/bin/env bash
# trace-dashboard.sh — run traces under the service and the dashboard's trace page, end to end:
# a private PostgreSQL (migrated), `keynode sites` (tests/sites plus a page whose title is markup),
# `keynode serve --trace on`, a run watched by the service (POST /api/runs) in one headless Chromium with a
# Playwright agent (agents/trace.mjs), its answer (markup) posted over the API, then:
#   - GET /api/runs/{id}/trace: the index, valid against schemas/trace.schema.json, with the node paragraphs;
#     /trace-shot?step=N a JPEG; /trace.tar an archive tar reads; bad ids and steps 404/400;
#   - the dashboard's trace page in a second headless Chromium (trace-dashboard.mjs): film strip, evidence
#     panel, step details, hostile title and answer as text, no console error; screenshots of the film strip
#     and the evidence panel (ARTIFACT_DIR; KN_UPDATE_DOCS=1 writes them to docs/img/ for the README);
#   - the trace's index row in PostgreSQL (schemas/sql/050_traces.sql: kind, status, steps, shots, bytes);
#   - retention: serve with --trace-keep-days 1 removes a trace folder older than a day at start, and its row;
#   - a guarded run on tests/sites/guard (agents/guard.mjs, checkout): the held order and the sent
#     beacon in the stored events (the key nodes they matched, the card redacted), the trace, `keynode trace
#     show` and the run page's Requests card (run-requests.mjs).
#
#   tests/integration/trace-dashboard.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR
#
# ctest: integration.trace_dashboard ARGS=keynode,repo,build:artifacts/trace TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: trace-dashboard.sh KEYNODE_BIN REPO_DIR ARTIFACT_DIR}
repo=$(cd "${2:?usage}" && pwd)
out=${3:?usage}
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init trace-dash
for tool in curl jq node psql tar; do command -v "$tool" >/dev/null 2>&1 || { kn_fail "$tool not found"; kn_finish; }; done
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node/ensure.sh: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
mkdir -p "$out"
[ "${KN_UPDATE_DOCS:-0}" = 1 ] && out=$repo/docs/img && mkdir -p "$out"

kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
mkdir -p "$tmp/sites"
cp -r "$repo/tests/sites/." "$tmp/sites/"
cp "$here/trace-fixtures/xss.html" "$tmp/sites/xss.html"
kn_sites_start "$kn" "$tmp/sites" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$port"
mkdir -p "$tmp/agentb" "$tmp/viewb"
kn_chromium_start "$tmp/agentb" || kn_finish
agent_cdp=$cdp
kn_chromium_start "$tmp/viewb" || kn_finish
view_cdp=$cdp
xss_title='<img src=x onerror="window.__pwned=1">"'"'"
xss_answer='<img src=x onerror="window.__pwned=2">answer & "quotes"'
TOKEN=trace-token-$$

# an old trace folder, for retention
mkdir -p "$tmp/traces/old-run/shots" && cp "$repo/tests/data/schema-valid/trace--watch-shop.json" "$tmp/traces/old-run/index.json" &&
  touch -d '3 days ago' "$tmp/traces/old-run/index.json"
kn_psql "INSERT INTO traces (run_id, path, kind, status, steps, shots, skipped, bytes) VALUES ('old-run', '$tmp/traces/old-run', 'run', 'finished', 6, 6, 0, 1)"
mkdir -p "$tmp/traces/not-a-trace" && touch -d '3 days ago' "$tmp/traces/not-a-trace"
sport=$(kn_free_port)
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_spawn -o "$tmp/serve.err" serve "$kn" serve \
  --listen "127.0.0.1:$sport" --spool-dir "$tmp/spool" --trace on --trace-dir "$tmp/traces" --trace-keep-days 1
spid=$kn_pid
B=http://127.0.0.1:$sport
kn_wait_for "serve's /healthz" 20 curl -s -o /dev/null "$B/healthz"
curl -s -o /dev/null "$B/healthz" || { kn_fail "serve did not start: $(tail -3 "$tmp/serve.err")"; kn_finish; }
kn_wait_for "the old trace removed" 10 test ! -e "$tmp/traces/old-run"
kn_wait_sql 10 "SELECT count(*) FROM traces WHERE run_id = 'old-run'" 0
[ ! -e "$tmp/traces/old-run" ] && [ -d "$tmp/traces/not-a-trace" ] &&
  [ "$(kn_psql "SELECT count(*) FROM traces WHERE run_id = 'old-run'")" = 0 ] &&
  kn_ok "retention: a trace older than --trace-keep-days removed at start with its index row, other folders left alone" ||
  kn_fail "retention: $(ls "$tmp/traces"); rows: $(kn_psql "SELECT run_id FROM traces")"
W=(-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
c=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${W[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] || { kn_fail "POST /api/tasksets: $c $(cat "$tmp/ts.json")"; kn_finish; }

# the watched run: the agent attaches first and waits for the go file
KN_AGENT_GO=$tmp/go kn_spawn agent node "$here/agents/trace.mjs" "$agent_cdp" "$base" "$tmp/marks" -
apid=$kn_pid
kn_wait_for "the agent to connect" 60 grep -q '^connected' "$tmp/marks"
c=$(curl -s -o "$tmp/run.json" -w '%{http_code}' "${W[@]}" \
  --data "{\"task\": \"shop-red-runner-cart\", \"browser\": \"$agent_cdp\"}" "$B/api/runs")
run=$(jq -r '.id // empty' "$tmp/run.json")
[ "$c" = 201 ] && [ -n "$run" ] || { kn_fail "POST /api/runs: $c $(cat "$tmp/run.json")"; kn_finish; }
touch "$tmp/go"
wait "$apid"; arc=$?; kn_forget "$apid"
[ "$arc" = 0 ] || kn_fail "agent failed: $(tail -3 "$tmp/agent.log")"
curl -s -o /dev/null "${W[@]}" --data "$(jq -nc --arg t "$xss_answer" '{text: $t}')" "$B/api/runs/$run/answer"
# the answer is an event: wait until the run holds it, then stop
run_has_() { curl -s "$B/api/runs/$1" | jq -e "$2" >/dev/null; } # run_has_ RUN JQ — the run's GET satisfies JQ
kn_wait_for "the run to hold the answer" 30 run_has_ "$run" '[.events[]? | select(.type == "answer")] | length == 1'
curl -s -o /dev/null "${W[@]}" -X POST "$B/api/runs/$run/stop"
trace_ok_() { [ "$(curl -s -o "$2" -w '%{http_code}' "$B/api/runs/$1/trace")" = 200 ]; } # trace_ok_ RUN FILE — GET …/trace is 200 (body in FILE)
kn_wait_for "the run's trace" 30 trace_ok_ "$run" "$tmp/index.json"
c=$(curl -s -o "$tmp/index.json" -w '%{http_code}' "$B/api/runs/$run/trace")
[ "$c" = 200 ] && kn_ok "GET /api/runs/$run/trace: 200" || { kn_fail "GET trace: $c $(head -c 300 "$tmp/index.json")"; kn_finish; }
node "$here/trace-validate.mjs" "$repo" "$tmp/index.json" >"$tmp/validate.log" 2>&1 &&
  kn_ok "the service's trace validates against schemas/trace.schema.json" || kn_fail "schema: $(cat "$tmp/validate.log")"
steps=$(curl -s "$B/api/runs/$run" | jq .steps)
# the index row in PostgreSQL (schemas/sql/050_traces.sql), written once index.json is there
want="run|$(jq -r .status "$tmp/index.json")|$steps|$(jq .capture.shots "$tmp/index.json")|t"
trace_row_() { kn_psql "SELECT kind, status, steps, shots, bytes > 10000 FROM traces WHERE run_id = '$run'" | tr -d ' '; }
trace_row_is_() { [ "$(trace_row_)" = "$want" ]; }
kn_wait_for "the trace's index row" 10 trace_row_is_
row=$(trace_row_)
[ "$row" = "$want" ] && kn_ok "the trace's index row in PostgreSQL: $row" || kn_fail "traces row: '$row', want '$want'"
jq -e --argjson n "$steps" '[.steps[] | select(.step > 0)] | length == $n' "$tmp/index.json" >/dev/null &&
  kn_ok "one trace step per run step ($steps)" || kn_fail "steps: run $steps, trace $(jq '.steps | length' "$tmp/index.json")"
[ "$(jq -r .answer "$tmp/index.json")" = "$xss_answer" ] && kn_ok "the posted answer is in the trace" ||
  kn_fail "answer: $(jq -r .answer "$tmp/index.json")"
shot=$(jq -r '[.steps[] | select(.screenshot != null)][0].step' "$tmp/index.json")
c=$(curl -s -o "$tmp/shot.jpg" -w '%{http_code} %{content_type}' "$B/api/runs/$run/trace-shot?step=$shot")
[ "$c" = "200 image/jpeg" ] && [ "$(head -c 2 "$tmp/shot.jpg" | od -An -tx1 | tr -d ' ')" = ffd8 ] &&
  kn_ok "GET trace-shot?step=$shot: a JPEG" || kn_fail "trace-shot: $c"
c=$(curl -s -o "$tmp/t.tar" -w '%{http_code} %{content_type}' "$B/api/runs/$run/trace.tar")
[ "$c" = "200 application/x-tar" ] && tar -tf "$tmp/t.tar" >"$tmp/tar.txt" 2>&1 && grep -qx "trace-$run/index.json" "$tmp/tar.txt" &&
  [ "$(grep -c '\.jpg$' "$tmp/tar.txt")" = "$(jq '.capture.shots' "$tmp/index.json")" ] &&
  kn_ok "GET trace.tar: an archive with the index and every screenshot" || kn_fail "trace.tar: $c $(head -5 "$tmp/tar.txt")"
for bad in "..%2F..%2Fetc" ".hidden" "no-such-run"; do
  c=$(curl -s -o /dev/null -w '%{http_code}' "$B/api/runs/$bad/trace"); [ "$c" = 404 ] || kn_fail "GET /api/runs/$bad/trace: $c (want 404)"
done
kn_ok "traces of unknown or unsafe run ids: 404"
c=$(curl -s -o /dev/null -w '%{http_code}' "$B/api/runs/$run/trace-shot?step=x"); [ "$c" = 400 ] && kn_ok "trace-shot?step=x: 400" || kn_fail "trace-shot?step=x: $c"
c=$(curl -s -o /dev/null -w '%{http_code}' "$B/api/runs/$run/trace-shot?step=9999"); [ "$c" = 404 ] && kn_ok "trace-shot of a step without one: 404" || kn_fail "trace-shot?step=9999: $c"

# ---- a guarded run: tests/sites/guard served as its own root, a watched run whose guard holds the
# order (its card typed in clear) while the beacon is sent; its requests in the stored events, the trace,
# `keynode trace show` and the run page
kn_sites_start "$kn" "$repo/tests/sites/guard" "$tmp/gsites.log" || kn_finish
gbase=http://127.0.0.1:$port
cat >"$tmp/guard.yaml" <<YAML
tasks:
  - id: guard-dash
    intent: Order two blue lamps; the order is held
    start_url: $gbase/checkout.html
    key_nodes:
      - id: order
        request: { method: POST, url: { include: /api/orders }, body: { item: { exact: lamp }, qty: { exact: "2" } } }
      - id: beacon
        request: { method: POST, url: { include: /api/beacon }, body: { event: { exact: checkout } } }
      - id: click-order
        element_path: { exact: "#place-order" }
    end_on_guard: false
    guard:
      - { method: POST, url: { include: /api/orders } }
YAML
c=$(curl -s -o "$tmp/gts.json" -w '%{http_code}' "${W[@]}" --data-binary @"$tmp/guard.yaml" "$B/api/tasksets?name=guard")
[ "$c" = 201 ] || kn_fail "POST /api/tasksets guard: $c $(cat "$tmp/gts.json")"
: >"$tmp/gmarks"
KN_AGENT_GO=$tmp/ggo kn_spawn gagent node "$here/agents/guard.mjs" "$agent_cdp" "$gbase" "$tmp/gmarks" checkout
apid=$kn_pid
kn_wait_for "the guard agent to connect" 60 grep -q '^connected' "$tmp/gmarks"
c=$(curl -s -o "$tmp/grun.json" -w '%{http_code}' "${W[@]}" \
  --data "{\"task\": \"guard:guard-dash\", \"browser\": \"$agent_cdp\"}" "$B/api/runs")
grun=$(jq -r '.id // empty' "$tmp/grun.json")
[ "$c" = 201 ] && [ -n "$grun" ] || { kn_fail "POST /api/runs guard: $c $(cat "$tmp/grun.json")"; kn_finish; }
touch "$tmp/ggo"
wait "$apid"; arc=$?; kn_forget "$apid"
[ "$arc" = 0 ] && grep -q '^order-held' "$tmp/gmarks" && kn_ok "guarded run: the page got keynode's answer to the order" ||
  kn_fail "guard agent: $arc $(tail -3 "$tmp/gagent.log")"
# both POSTs stored (the order held, the beacon sent), then the run stopped: its trace is written
kn_wait_for "both POSTs in the guarded run" 30 run_has_ "$grun" '[.events[]? | select(.type == "request" and .request.method == "POST")] | length == 2'
curl -s -o /dev/null "${W[@]}" -X POST "$B/api/runs/$grun/stop"
kn_wait_for "the guarded run's trace" 30 trace_ok_ "$grun" "$tmp/gindex.json"
c=$(curl -s -o "$tmp/gindex.json" -w '%{http_code}' "$B/api/runs/$grun/trace")
[ "$c" = 200 ] || kn_fail "guarded run: no trace ($c)"
curl -s "$B/api/runs/$grun" >"$tmp/grun-get.json"
check_jq() { # NAME FILTER FILE WANT
  local got
  got=$(jq -r "$2" "$3" 2>&1)
  [ "$got" = "$4" ] && kn_ok "$1" || kn_fail "$1: got '$got', want '$4'"
}
check_jq "stored events: the order held, matched order; the beacon sent, matched beacon" \
  '[.events[] | select(.type == "request" and .request.method == "POST") | "\(.request.url | sub(".*/api/"; "")) \(.request.held // false) \(.matched // [] | join(","))"] | sort | join("; ")' \
  "$tmp/grun-get.json" "beacon false beacon; orders true order"
check_jq "stored events: the card number redacted" \
  '[.events[] | select(.type == "request") | .request.fields[]? | select(.[0] == "card.number") | .[1]] | join(",")' \
  "$tmp/grun-get.json" "[redacted]"
check_jq "the trace: the held order with the key node it matched, credited to the click that sent it" \
  '[.steps[] | .step as $s | .events[]? | select(.request.held) | "\($s) \(.request.matched | join(","))"] | join(";")' \
  "$tmp/gindex.json" "$(jq -r '[.key_nodes[] | select(.id == "click-order") | .reached_at_step] | first' "$tmp/gindex.json") order"
"$kn" trace show "$tmp/traces/$grun" >"$tmp/gshow.txt" 2>&1
grep -qE '^  step [0-9]+  POST http://127\.0\.0\.1:[0-9]+/api/orders  HELD by keynode \(never sent\), matched order$' "$tmp/gshow.txt" &&
  grep -qE '^  step [0-9]+  POST http://127\.0\.0\.1:[0-9]+/api/beacon  sent, matched beacon$' "$tmp/gshow.txt" &&
  grep -qxF '      card.number = "[redacted]"' "$tmp/gshow.txt" && ! grep -q '4111' "$tmp/gshow.txt" &&
  kn_ok "keynode trace show lists the requests: held or sent, the key node matched, the card redacted" ||
  kn_fail "trace show: $(sed -n '/^requests:/,/^key nodes:/p' "$tmp/gshow.txt" | head -20)"
node "$here/run-requests.mjs" "$view_cdp" "$B" "$grun" "$out" >"$tmp/rpage.log" 2>&1
prc=$?
while IFS= read -r line; do case $line in ok*) kn_ok "${line#ok   }";; FAIL*) kn_fail "${line#FAIL }";; esac; done <"$tmp/rpage.log"
[ "$prc" = 0 ] || kn_fail "run-requests.mjs exit $prc: $(tail -3 "$tmp/rpage.log")"

node "$here/trace-dashboard.mjs" "$view_cdp" "$B" "$run" "$steps" "$xss_title" "$xss_answer" "$out" >"$tmp/page.log" 2>&1
prc=$?
while IFS= read -r line; do case $line in ok*) kn_ok "${line#ok   }";; FAIL*) kn_fail "${line#FAIL }";; esac; done <"$tmp/page.log"
[ "$prc" = 0 ] || kn_fail "trace-dashboard.mjs exit $prc: $(tail -3 "$tmp/page.log")"
kn_stop "$spid" TERM
kn_finish
