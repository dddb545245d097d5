#!/usr/bin/env bash
# dashboard.sh — the maintainer dashboard end to end (services/http/dashboard). Sets up the real
# thing with lib.sh: a private PostgreSQL, `keynode migrate`, `keynode serve` on a free port,
# `keynode sites` with tests/sites/tasks.yaml (port substituted) plus a task whose intent is an XSS
# payload, loaded with POST /api/tasksets; three alerts (one carrying markup) written to the
# alerts table; history: runs driven by `keynode replay` and one left idle, `keynode worker` (on its
# own browser) replaying a passing task and a broken one twice (health, screenshot, alerts); an
# "agent" headless Chromium with a live run started by POST /api/runs and a Playwright agent
# (agents/shop.mjs) that attaches and then waits for the test's go file. Then dashboard_test drives
# another headless Chromium through keynode's CDP client over every page; then a run of 1500 events
# whose page follows the event pages ("load more", dashboard-pages.mjs), and an external run of a
# purchase task whose page shows its reward (dashboard-reward.mjs). Ends with serve's SIGTERM
# stop (exit 0).
#
#   tests/integration/dashboard.sh KEYNODE_BIN DASHBOARD_TEST_BIN REPO_DIR ARTIFACT_DIR
#
# Screenshots land in ARTIFACT_DIR. KN_UPDATE_DOCS=1 also writes the overview to docs/dashboard.png
# (the README's picture; off by default so a test run leaves the checkout clean). KN_KEEP=1 keeps
# the scratch dir with every log. A missing tool (PostgreSQL, Chromium, node, curl, jq) is a failure.
#
# ctest: integration.dashboard ARGS=keynode,target:dashboard_test,repo,build:tests/integration/dashboard-artifacts TIMEOUT=400
set -u -o pipefail
kn=${1:?usage: dashboard.sh KEYNODE_BIN DASHBOARD_TEST_BIN REPO_DIR ARTIFACT_DIR}
test_bin=${2:?usage}
repo=$(cd "${3:?usage}" && pwd)
out=${4:?usage}
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init dashboard

for tool in curl jq node psql; do
  command -v "$tool" >/dev/null 2>&1 || { kn_fail "$tool not found"; kn_finish; }
done
[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
[ -x "$test_bin" ] || { kn_fail "no dashboard_test at $test_bin"; kn_finish; }
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node/ensure.sh: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
mkdir -p "$out"

# the dashboard builds DOM from text only: no HTML-parsing sink in its code (comments aside)
sinks=$(grep -nE 'innerHTML|outerHTML|insertAdjacentHTML|document\.write' "$repo"/services/http/dashboard/*.js |
  grep -vE '^[^:]*:[0-9]+: *//')
if [ -z "$sinks" ]; then kn_ok "dashboard code has no HTML sink"; else kn_fail "HTML sinks in the dashboard: $sinks"; fi

# --- database and service ---
kn_pg_start || kn_finish
if "$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1; then kn_ok "keynode migrate"; else
  kn_fail "keynode migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish
fi
token="dash-$RANDOM$RANDOM$RANDOM"
KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
  kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
base=$api_base
if curl -sf "$base/healthz" | jq -e '.ok == true and .database == true' >/dev/null; then kn_ok "serve: /healthz ok"; else
  kn_fail "serve: /healthz: $(curl -s "$base/healthz")"
fi
ctype=$(curl -s -o /dev/null -w '%{content_type}' "$base/static/app.js")
case "$ctype" in *javascript*) kn_ok "serve: the dashboard's app.js is served as JavaScript" ;;
  *) kn_fail "serve: /static/app.js content type '$ctype'" ;; esac

# --- sites and the task set (with the XSS intent) ---
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
site_port=$port
intent='<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2;alert(2)</script> & "quotes" </td></tr>'
kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$site_port"
yaml_intent=${intent//\'/\'\'}
cat >>"$tmp/tasks.yaml" <<EOF

  - id: xss-intent
    intent: '$yaml_intent'
    start_url: http://127.0.0.1:$site_port/
    key_nodes:
      - url: { include: "/never-reached" }

  - id: broken-demo
    intent: "Open the shop's gift card page (the shop has no such link: every replay breaks)"
    start_url: http://127.0.0.1:$site_port/shop/
    key_nodes:
      - url: { include: "/shop/gift-cards.html" }
    steps:
      - goto: http://127.0.0.1:$site_port/shop/
      - click: { selector: "#gift-cards", text: "Gift cards" }
EOF
n_tasks=$(grep -c '^  - id:' "$tmp/tasks.yaml")
code=$(curl -s -o "$tmp/taskset.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/yaml' --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=sites")
if [ "$code" = 201 ] && jq -e --argjson n "$n_tasks" '.tasks == $n' "$tmp/taskset.json" >/dev/null; then
  kn_ok "POST /api/tasksets: $n_tasks tasks"
else
  kn_fail "POST /api/tasksets: $code $(head -c 300 "$tmp/taskset.json")"; kn_finish
fi

# --- alerts (severity colours, markup in a title and a detail, one acknowledged) ---
if kn_psql "INSERT INTO alerts (dedupe_key, severity, title, detail, created) VALUES
  ('dash-1', 'critical', 'task shop-checkout is broken',
   '{\"task\": \"shop-checkout\", \"evidence\": \"<img src=x onerror=window.__pwned=3>\"}', now() - interval '2 hours'),
  ('dash-2', 'warning', '<script>window.__pwned=4</script> forum-reply is flaky', '{\"task\": \"forum-reply\"}', now() - interval '1 hour'),
  ('dash-3', 'info', 'spa-settings recovered', '{\"task\": \"spa-settings\"}', now() - interval '30 minutes');
  UPDATE alerts SET acked_at = now() WHERE dedupe_key = 'dash-3';
  INSERT INTO alert_deliveries (alert_id, channel, ok, attempts)
    SELECT id, 'webhook', true, 1 FROM alerts WHERE dedupe_key = 'dash-1';" >"$tmp/alerts.log" 2>&1; then
  kn_ok "alerts written"
else
  kn_fail "alerts: $(tail -3 "$tmp/alerts.log")"
fi

# --- history, so the overview has more than one run: two runs driven by `keynode replay` (finished)
# and one nobody acts in (ends idle, incomplete), each on a browser of its own ---
# post_run TASK CDP UNTIL — POST /api/runs; sets run_id or fails
post_run() {
  local code
  run_id=
  code=$(curl -s -o "$tmp/run.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' \
    --data "{\"task\": \"$1\", \"browser\": \"$2\", \"until\": \"$3\"}" "$base/api/runs")
  run_id=$(jq -r '.id // empty' "$tmp/run.json" 2>/dev/null)
  if [ "$code" = 201 ] && [ -n "$run_id" ]; then kn_ok "POST /api/runs $1: run $run_id"; else
    kn_fail "POST /api/runs $1: $code $(head -c 300 "$tmp/run.json")"; return 1
  fi
}
run_status_() { curl -s "$base/api/runs/$1" | jq -r '.status // empty' 2>/dev/null; }
run_not_running_() { local st; st=$(run_status_ "$1"); [ -n "$st" ] && [ "$st" != running ]; }
# run_ended ID WANT_STATUS — wait (up to 60 s) until the run is not running, then compare
run_ended() {
  local st=
  kn_wait_for "run $1 to end" 60 run_not_running_ "$1"
  st=$(run_status_ "$1")
  if [ "$st" = "$2" ]; then kn_ok "run $1 ended $2"; else kn_fail "run $1 ended '$st', want $2"; fi
}
for hist in forum-gear-category:finished spa-mail-dark-theme:finished forum-new-post:incomplete; do
  htask=${hist%%:*} hwant=${hist#*:}
  kn_chromium_start "$tmp/hist-$htask" || kn_finish
  if [ "$hwant" = finished ]; then
    post_run "$htask" "$cdp" finished || continue
    "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$htask" >"$tmp/replay-$htask.log" 2>&1 ||
      kn_fail "keynode replay $htask: $(tail -3 "$tmp/replay-$htask.log")"
  else
    post_run "$htask" "$cdp" idle:2 || continue
  fi
  run_ended "$run_id" "$hwant"
  kn_stop "$cpid"
done

# --- a replay worker on its own browser, and replay results: a passing task (healthy) and one that
# breaks twice (broken after health.broken_after = 2, with a screenshot and an alert) ---
cat >"$tmp/keynode.yaml" <<EOF
database: { url: "$KN_PG_URL" }
health: { broken_after: 2 }
EOF
kn_chromium_start "$tmp/worker" || kn_finish
kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200 --element-timeout 1500 \
  --settle-timeout 3000
worker_pid=$kn_pid
declare -A want_replays=()
replays_of_() { curl -s "$base/api/tasks/$1" | jq '.replays | length' 2>/dev/null; }
replays_at_least_() { local n; n=$(replays_of_ "$1"); [ "${n:-0}" -ge "$2" ]; }
for rt in forum-gear-category broken-demo broken-demo; do
  want_replays[$rt]=$(( ${want_replays[$rt]:-0} + 1 ))
  code=$(curl -s -o "$tmp/replay.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' --data "{\"task\": \"$rt\"}" "$base/api/replays")
  [ "$code" = 202 ] || kn_fail "POST /api/replays $rt: $code $(head -c 200 "$tmp/replay.json")"
  # one at a time, so that the second broken-demo replay comes after the first (up to 90 s)
  kn_wait_for "replay of $rt" 90 kn_ended_or "$worker_pid" replays_at_least_ "$rt" "${want_replays[$rt]}"
  n=$(replays_of_ "$rt")
  [ "${n:-0}" -ge "${want_replays[$rt]}" ] || kn_fail "replay of $rt: no result (worker: $(tail -2 "$tmp/worker.log"))"
done
health=$(curl -s "$base/api/tasks" | jq -r '[.tasks[] | select(.id == "forum-gear-category" or .id == "broken-demo") | "\(.id)=\(.health)"] | sort | join(" ")')
if [ "$health" = "broken-demo=broken forum-gear-category=healthy" ]; then kn_ok "replays: health $health"; else
  kn_fail "replays: health '$health' (worker: $(tail -3 "$tmp/worker.log"))"
fi
# /metrics counts every worker's replays (from the database) and the tasks per health state
curl -s "$base/metrics" >"$tmp/metrics.txt"
grep -q '^keynode_replays_total{status="passed"} 1$' "$tmp/metrics.txt" &&
  grep -q '^keynode_replays_total{status="broken"} 2$' "$tmp/metrics.txt" &&
  grep -q '^keynode_task_health{state="broken"} 1$' "$tmp/metrics.txt" &&
  grep -q '^keynode_task_health{state="healthy"} 1$' "$tmp/metrics.txt" &&
  kn_ok "/metrics: replay outcomes and health states" ||
  kn_fail "/metrics replays/health: $(grep -E 'replays_total|task_health' "$tmp/metrics.txt" | tr '\n' ' ')"

# --- the agent's browser, the live run and the agent (waits for the test's go file) ---
kn_chromium_start "$tmp/agent" || kn_finish
agent_cdp=$cdp
go_file=$tmp/go
: >"$tmp/marks"
KN_AGENT_GO=$go_file kn_spawn -o "$tmp/agent.out" agent node "$here/agents/shop.mjs" "$agent_cdp" "http://127.0.0.1:$site_port" \
  "$tmp/marks" full
agent_pid=$kn_pid
kn_wait_for "the agent to attach" 30 kn_ended_or "$agent_pid" grep -q '^connected ' "$tmp/marks"
grep -q '^connected ' "$tmp/marks" || { kn_fail "the agent did not attach: $(tail -3 "$tmp/agent.out")"; kn_finish; }
post_run shop-red-runner-cart "$agent_cdp" finished || kn_finish
live_run=$run_id

# --- the dashboard in a second browser ---
kn_chromium_start "$tmp/dash" || kn_finish
docs=()
if [ "${KN_UPDATE_DOCS:-0}" = 1 ]; then mkdir -p "$repo/docs" && docs=(--docs "$repo/docs/dashboard.png"); fi
"$test_bin" --browser "$devtools_file" --base "$base" --out "$out" --token "$token" --tasks "$n_tasks" \
  --xss-task xss-intent --xss-intent "$intent" --live-run "$live_run" --live-task shop-red-runner-cart \
  --broken-task broken-demo --go "$go_file" "${docs[@]}" 2>"$tmp/test.err"
rc=$?
if [ "$rc" = 0 ]; then kn_ok "dashboard_test"; else
  kn_fail "dashboard_test exit $rc"; tail -5 "$tmp/test.err" | sed 's/^/    /'
fi

# a run of 1500 events: its page shows the first 1000 and follows the pages with "load more"
big=$(curl -s -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data '{"task": "shop-red-runner-cart"}' "$base/api/runs" | jq -r '.id // empty')
posted=0
for s in 0 300 600 900 1200; do
  jq -nc --argjson s "$s" '[range($s; $s + 300) | {t: (. + 1), type: "navigate", url: "http://127.0.0.1:1/big?p=\(. + 1)"}]' >"$tmp/big.json"
  c=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary @"$tmp/big.json" "$base/api/runs/$big/events")
  [ "$c" = 200 ] && posted=$((posted + 300))
done
curl -s -o /dev/null -X POST -H "Authorization: Bearer $token" "$base/api/runs/$big/stop"
if [ -n "$big" ] && [ "$posted" = 1500 ]; then
  node "$here/dashboard-pages.mjs" "$cdp" "$base" "$big" 1500 >"$tmp/pages.out" 2>&1
  while read -r line; do case $line in ok*) kn_ok "${line#ok   }" ;; FAIL*) kn_fail "${line#FAIL }" ;; esac; done <"$tmp/pages.out"
  grep -qE '^(ok|FAIL)' "$tmp/pages.out" || kn_fail "dashboard-pages.mjs: $(tail -3 "$tmp/pages.out")"
else
  kn_fail "a run of 1500 events: run '$big', $posted events posted"
fi

# a purchase task (tests/data/purchase/market.yaml): an external run that buys nothing has reward 0
# with its parts (purchased false); its page shows them, the 1500-event run's page shows none
kn_task_at_site "$repo/tests/data/purchase/market.yaml" "$tmp/market.yaml" "$site_port"
curl -s -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/yaml' \
  --data-binary @"$tmp/market.yaml" "$base/api/tasksets?name=market"
buy=$(curl -s -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data '{"task": "market-shoe"}' "$base/api/runs" | jq -r '.id // empty')
curl -s -o /dev/null -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data "[{\"t\": 1, \"type\": \"navigate\", \"url\": \"http://127.0.0.1:$site_port/market/product.html?id=1\"}]" \
  "$base/api/runs/$buy/events"
curl -s -o /dev/null -X POST -H "Authorization: Bearer $token" "$base/api/runs/$buy/stop"
if [ -n "$buy" ] && curl -sf "$base/api/runs/$buy" |
  jq -e '.reward == 0 and .reward_parts.purchased == false' >/dev/null; then
  kn_ok "GET /api/runs/$buy: a purchase run carries reward 0 and reward_parts"
  node "$here/dashboard-reward.mjs" "$cdp" "$base" "$buy" 0.00 false "$big" >"$tmp/reward.out" 2>&1
  while read -r line; do case $line in ok*) kn_ok "${line#ok   }" ;; FAIL*) kn_fail "${line#FAIL }" ;; esac; done <"$tmp/reward.out"
  grep -qE '^(ok|FAIL)' "$tmp/reward.out" || kn_fail "dashboard-reward.mjs: $(tail -3 "$tmp/reward.out")"
else
  kn_fail "a purchase run: '$buy': $(curl -s "$base/api/runs/$buy" | jq -c '{reward, reward_parts, reward_error}' 2>&1 | head -c 400)"
fi

# the agent finished and the service agrees about the run
kn_wait_for "the agent to end" 10 kn_ended "$agent_pid"
if wait "$agent_pid"; then kn_ok "the agent finished"; else kn_fail "agent: $(tail -3 "$tmp/agent.out")"; fi
kn_forget "$agent_pid"
if curl -sf "$base/api/runs/$live_run" | jq -e '.status == "finished" and .score == 1' >/dev/null; then
  kn_ok "GET /api/runs/$live_run: finished, score 1"
else
  kn_fail "GET /api/runs/$live_run: $(curl -s "$base/api/runs/$live_run" | head -c 300)"
fi
if grep -q 'level=error' "$tmp/serve.log"; then
  kn_fail "serve logged errors: $(grep 'level=error' "$tmp/serve.log" | head -3)"
else
  kn_ok "serve logged no error"
fi
# SIGTERM: a clean stop, exit 0 (under ASan this is also where leaks would show)
kill -TERM "$serve_pid" 2>/dev/null
kn_wait_for "serve to end on SIGTERM" 15 kn_ended "$serve_pid"
kill -0 "$serve_pid" 2>/dev/null && { kn_fail "serve still running 15 s after SIGTERM"; kill -KILL "$serve_pid"; }
wait "$serve_pid"
serve_rc=$?
kn_forget "$serve_pid"
if [ "$serve_rc" = 0 ]; then kn_ok "serve stopped cleanly on SIGTERM"; else
  kn_fail "serve exit $serve_rc on SIGTERM: $(grep -m1 -E 'SUMMARY|ERROR' "$tmp/serve.log")"
fi
[ "$kn_fails" = 0 ] || { echo "serve log:"; tail -15 "$tmp/serve.log" | sed 's/^/    /'; }
kn_finish
