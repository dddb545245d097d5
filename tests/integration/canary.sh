#!/usr/bin/env bash
# canary.sh — a guard that proves itself before the agent starts (services/monitor/README.md "The guard's
# canary"), with real headless Chromium and `keynode sites` serving tests/sites:
#   run-held     `keynode run` of a task with a guard rule: the canary is held, the agent runs (its marker
#                file exists), and no trace of the canary is in the trajectory or the result
#   run-skipped  the same with the test-only knob KEYNODE_TEST_SKIP_FETCH=1 (the monitor sends no
#                Fetch.enable, so the guard holds nothing): the attempt is an error, reason "guard not
#                active: …", the result says so, the agent never started (no marker file), exit 1
#   run-free     a task without guard rules under the same knob: no canary, the agent runs
#   watch-held   `keynode watch` of the guarded task: the "ready" line, no canary event in the trajectory
#   watch-skipped  the same under the knob: exit 2, "guard not active" on stderr, never "ready", the
#                result's status error and reason
#   tabs         no canary tab is left in the browser after the watches
#   ws-*         a task with a websocket rule: the canary also sends a WebSocket message from its tab to its
#                endpoint (which answers the upgrade and counts messages), held by an internal websocket
#                rule — run and watch held, the agent runs, no canary message in the trajectory; under
#                the test-only knob KEYNODE_TEST_SKIP_WS_HOOK=1 (no hook of WebSocket.prototype.send: no
#                message is held) the run is an error "guard not active" naming the WebSocket message, no
#                agent starts, watch exits 2; the request-only task under the same knob: no WebSocket
#                probe (it runs only with websocket rules), the agent runs
#
#   tests/integration/canary.sh KEYNODE_BIN REPO_DIR
#
# ctest: integration.canary ARGS=keynode,repo TIMEOUT=240
set -u -o pipefail
kn=${1:?usage: canary.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: canary.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init canary
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
export TMPDIR=$tmp # the run's browsers' profiles go here
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish

cat >"$tmp/tasks.yaml" <<EOF
tasks:
  - id: guarded
    intent: "Open the shop"
    start_url: http://127.0.0.1:$port/shop/
    key_nodes: [ { url: { include: "/shop/never" } } ]
    guard: [ { method: POST, url: { include: "/api/orders" } } ]
  - id: free
    intent: "Open the shop"
    start_url: http://127.0.0.1:$port/shop/
    key_nodes: [ { url: { include: "/shop/never" } } ]
  - id: ws-guarded
    intent: "Open the shop"
    start_url: http://127.0.0.1:$port/shop/
    key_nodes: [ { url: { include: "/shop/never" } } ]
    guard: [ { websocket: { url: { include: "/live" }, message: { action: { exact: place_order } } } } ]
EOF
agent='touch "$KEYNODE_ATTEMPT_DIR/agent-ran"'

# run_kn NAME TASK [ENV…] — keynode run of TASK into $tmp/NAME, no retries; sets rc
run_kn() {
  local name=$1 task=$2
  shift 2
  env "$@" "$kn" run --tasks "$tmp/tasks.yaml" --task "$task" --agent "$agent" --retries 0 --timeout 30 \
    --out "$tmp/$name" >"$tmp/$name.log" 2>&1
  rc=$?
}
attempt() { find "$tmp/$1" -name result.json -path "*/$2/*" | head -1; }

run_kn run-held guarded
r=$(attempt run-held guarded)
[ "$rc" = 0 ] && [ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] \
  && kn_ok "run-held: the canary was held, the agent ran" \
  || kn_fail "run-held: exit $rc, $(tail -3 "$tmp/run-held.log")"
if [ -n "$r" ] && ! grep -q "__keynode_canary" "$(dirname "$r")/trajectory.jsonl" "$r"; then
  kn_ok "run-held: no trace of the canary in the trajectory or the result"
else
  kn_fail "run-held: the canary shows: $(grep -h "__keynode_canary" "$(dirname "$r")/trajectory.jsonl" "$r" | head -2)"
fi

run_kn run-skipped guarded KEYNODE_TEST_SKIP_FETCH=1
r=$(attempt run-skipped guarded)
if [ "$rc" = 1 ] && [ -n "$r" ] && [ ! -e "$(dirname "$r")/agent-ran" ]; then
  kn_ok "run-skipped: exit 1 and the agent never started"
else
  kn_fail "run-skipped: exit $rc, agent ran: $([ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] && echo yes || echo no)"
fi
jq -e '.status == "error" and .reason == "guard not active" and (.detail | test("was not held"))' "$r" >/dev/null \
  && kn_ok "run-skipped: result status error, reason guard not active ($(jq -r .detail "$r" | cut -c1-80)…)" \
  || kn_fail "run-skipped: result $(jq -c '{status, reason, detail}' "$r" 2>&1)"
grep -q "guard not active: " "$tmp/run-skipped.log" \
  && kn_ok "run-skipped: the user is told why ($(grep -m1 -o "guard not active: .\{0,60\}" "$tmp/run-skipped.log")…)" \
  || kn_fail "run-skipped: no reason in the output: $(tail -5 "$tmp/run-skipped.log")"
jq -e '[.. | objects | select(.reason? and (.reason | tostring | startswith("guard not active")))] | length > 0' \
  "$tmp/run-skipped/summary.json" >/dev/null 2>&1 \
  && kn_ok "run-skipped: summary.json names the reason" \
  || kn_fail "run-skipped: summary.json: $(head -c 400 "$tmp/run-skipped/summary.json" 2>&1)"

run_kn run-free free KEYNODE_TEST_SKIP_FETCH=1
r=$(attempt run-free free)
[ "$rc" = 0 ] && [ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] \
  && kn_ok "run-free: no guard rules, no canary: the agent ran under the knob" \
  || kn_fail "run-free: exit $rc, $(tail -3 "$tmp/run-free.log")"

run_kn run-ws-held ws-guarded
r=$(attempt run-ws-held ws-guarded)
[ "$rc" = 0 ] && [ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] \
  && kn_ok "run-ws-held: the canary's request and WebSocket message were held, the agent ran" \
  || kn_fail "run-ws-held: exit $rc, $(tail -3 "$tmp/run-ws-held.log")"
if [ -n "$r" ] && ! grep -q "__keynode_canary" "$(dirname "$r")/trajectory.jsonl" "$r"; then
  kn_ok "run-ws-held: no trace of the canary in the trajectory or the result"
else
  kn_fail "run-ws-held: the canary shows: $(grep -h "__keynode_canary" "$(dirname "$r")/trajectory.jsonl" "$r" | head -2)"
fi
run_kn run-ws-skipped ws-guarded KEYNODE_TEST_SKIP_WS_HOOK=1
r=$(attempt run-ws-skipped ws-guarded)
if [ "$rc" = 1 ] && [ -n "$r" ] && [ ! -e "$(dirname "$r")/agent-ran" ]; then
  kn_ok "run-ws-skipped: exit 1 and the agent never started"
else
  kn_fail "run-ws-skipped: exit $rc, agent ran: $([ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] && echo yes || echo no)"
fi
jq -e '.status == "error" and .reason == "guard not active" and (.detail | test("WebSocket message .* was not held"))' \
    "$r" >/dev/null \
  && kn_ok "run-ws-skipped: result status error, reason guard not active ($(jq -r .detail "$r" | cut -c1-90)…)" \
  || kn_fail "run-ws-skipped: result $(jq -c '{status, reason, detail}' "$r" 2>&1)"
run_kn run-ws-reqonly guarded KEYNODE_TEST_SKIP_WS_HOOK=1
r=$(attempt run-ws-reqonly guarded)
[ "$rc" = 0 ] && [ -n "$r" ] && [ -e "$(dirname "$r")/agent-ran" ] \
  && kn_ok "run-ws-reqonly: request rules only: no WebSocket probe, the agent ran under KEYNODE_TEST_SKIP_WS_HOOK" \
  || kn_fail "run-ws-reqonly: exit $rc, $(tail -3 "$tmp/run-ws-reqonly.log")"

kn_chromium_start "$tmp" || kn_finish
# watch_kn NAME [ENV…] — keynode watch of the guarded task (KN_TASK, default guarded) until 1 s idle; sets rc
watch_kn() {
  local name=$1
  shift
  env "$@" "$kn" watch --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "${KN_TASK:-guarded}" --until idle:1 \
    --trajectory "$tmp/$name.jsonl" --out "$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
}
watch_kn watch-held
grep -q "ready: every open tab" "$tmp/watch-held.err" && ! grep -q "__keynode_canary" "$tmp/watch-held.jsonl" \
  && kn_ok "watch-held: ready, and no canary event in the trajectory" \
  || kn_fail "watch-held: exit $rc, $(tail -3 "$tmp/watch-held.err")"
watch_kn watch-skipped KEYNODE_TEST_SKIP_FETCH=1
if [ "$rc" = 2 ] && grep -q "keynode watch: guard not active: " "$tmp/watch-skipped.err" \
  && ! grep -q "ready: every open tab" "$tmp/watch-skipped.err"; then
  kn_ok "watch-skipped: exit 2, never ready, told why"
else
  kn_fail "watch-skipped: exit $rc, $(tail -3 "$tmp/watch-skipped.err")"
fi
jq -e '.status == "error" and .reason == "guard not active"' "$tmp/watch-skipped.json" >/dev/null \
  && kn_ok "watch-skipped: the result says guard not active" \
  || kn_fail "watch-skipped: result $(head -c 300 "$tmp/watch-skipped.json")"
KN_TASK=ws-guarded watch_kn watch-ws-held
grep -q "ready: every open tab" "$tmp/watch-ws-held.err" && ! grep -q "__keynode_canary" "$tmp/watch-ws-held.jsonl" \
  && kn_ok "watch-ws-held: ready, and no canary event in the trajectory" \
  || kn_fail "watch-ws-held: exit $rc, $(tail -3 "$tmp/watch-ws-held.err")"
KN_TASK=ws-guarded watch_kn watch-ws-skipped KEYNODE_TEST_SKIP_WS_HOOK=1
if [ "$rc" = 2 ] && grep -q "keynode watch: guard not active: .*WebSocket message" "$tmp/watch-ws-skipped.err" \
  && ! grep -q "ready: every open tab" "$tmp/watch-ws-skipped.err"; then
  kn_ok "watch-ws-skipped: exit 2, never ready, told why (the WebSocket message)"
else
  kn_fail "watch-ws-skipped: exit $rc, $(tail -3 "$tmp/watch-ws-skipped.err")"
fi
left=$(curl -s --max-time 5 "$cdp/json/list" | jq -r '[.[] | select(.url | test("__keynode_canary"))] | length')
[ "$left" = 0 ] && kn_ok "tabs: no canary tab left in the browser" || kn_fail "tabs: $left canary tabs left"
kn_finish
