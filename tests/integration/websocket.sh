#!/usr/bin/env bash
# websocket.sh — WebSocket messages as events, `websocket` key nodes and guard rules live: real headless
# Chromium, `keynode sites` serving tests/sites/wsshop with its request log on (its WebSocket endpoint
# logs every message it receives), `keynode watch` on tests/sites/wsshop/tasks.yaml, and a Playwright
# agent (agents/ws.mjs).
#   free      no rules: the order key nodes are reached at the step of the click that sent the order
#             (hand-worked: goto 1, select 2, fill 3, fill 4, click #ping 5, click #place-order 6 — the
#             order and its click both at step 6); the server's log shows the order arrived once
#   held      a rule holding the order (end_on_guard: false): the server's log shows no order, the event
#             says held: true, the page's send did not throw, the socket still answers; key nodes reached
#   end       the same rule with end_on_guard on: the run ends "guard"
#   worker    a dedicated worker's order and an order after a reconnect: both seen, both held
#   frame     an order sent with the native send of a fresh about:blank frame: held too
#   sw        a service worker's order: seen on the network only, recorded once as watched_only, not
#             held, and the watch warns (services/monitor/README.md: what cannot be held)
#   received  with --ws-received the server's hello and ack are events (direction received); without
#             it, none is; `keynode run --ws-received` records them too
# The card number is written redacted in every trajectory.
#
#   tests/integration/websocket.sh KEYNODE_BIN REPO_DIR
# ctest: integration.websocket ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: websocket.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: websocket.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init websocket

command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
command -v node >/dev/null 2>&1 || { kn_fail "node not found"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "playwright-core could not be installed"; kn_finish; }

kn_sites_start "$kn" "$repo/tests/sites/wsshop" "$tmp/sites.log" --log-requests || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/wsshop/tasks.yaml" "$tmp/tasks.yaml" "$port"
kn_chromium_start "$tmp" || kn_finish

# orders PATH — how many place_order messages to PATH the server's log shows
orders() { grep "msg=\"websocket message\" path=\"$1\"" "$tmp/sites.log" | grep -c 'place_order'; }

# watch_run NAME TASK MODE [WATCH ARGS…] — the agent and `keynode watch` until every key node is
# reached (or 10 s without an event)
watch_run() {
  local name=$1 task=$2 mode=$3 dir=$tmp/$1
  shift 3
  mkdir -p "$dir"
  kn_spawn -o "$dir/agent.log" "agent-$name" \
    env KN_AGENT_GO="$dir/go" node "$here/agents/ws.mjs" "$cdp" "$base" "$dir/marks" "$mode"
  kn_wait_for "the agent to attach" 20 grep -q "^connected" "$dir/marks" || kn_fail "$name: the agent did not attach"
  kn_spawn -o "$dir/watch.out" -e "$dir/watch.err" "watch-$name" \
    "$kn" watch --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$task" --until finished --until idle:6 \
    --step-limit -1 --run-id "$name" --trajectory "$dir/traj.jsonl" --out "$dir/result.json" "$@"
  kn_wait_for "the watch to attach" 30 grep -q "watching" "$dir/watch.err" ||
    kn_fail "$name: the watch is not watching: $(tail -3 "$dir/watch.err")"
  touch "$dir/go"
  kn_wait_exit "agent-$name" 120 && [ "$kn_rc" = 0 ] || kn_fail "$name: agent failed: $(tail -3 "$dir/agent.log")"
  kn_wait_exit "watch-$name" 60 || kn_fail "$name: the watch did not end"
}

step_of() { jq -r --arg a "$2" '.key_nodes[] | select(.id == $a) | .reached_at_step' "$tmp/$1/result.json"; }
ws_events() { jq -c "select(.type == \"websocket\")$2" "$tmp/$1/traj.jsonl"; }

# free: no rules; the order arrives, the key nodes are reached at the click's step (6)
watch_run free ws-free order
if [ "$(step_of free order)" = 6 ] && [ "$(step_of free order-card)" = 6 ] && [ "$(step_of free click-order)" = 6 ]; then
  kn_ok "free: the order key nodes reached at step 6, the click that sent the order"
else
  kn_fail "free: key nodes: $(jq -c '[.key_nodes[] | [.id, .score, .reached_at_step]]' "$tmp/free/result.json" 2>&1)"
fi
[ "$(orders /live)" = 1 ] && kn_ok "free: the server's log shows the order arrived once" \
  || kn_fail "free: orders in the server's log: $(orders /live)"
n=$(ws_events free ' | select(.websocket.direction == "sent" and .websocket.held != true)
  | .websocket.fields[0][1]' | tr -d '"' | tr '\n' ' ')
[ "$n" = "ping place_order " ] && kn_ok "free: the ping and the order recorded (the run ends there), none held" \
  || kn_fail "free: sent websocket events: $(ws_events free '' | head -5)"
if ws_events free ' | select(.websocket.fields | map({(.[0]): .[1]}) | add | .action == "place_order")' \
    | jq -e '.websocket | (.fields | map({(.[0]): .[1]}) | add | .["card.number"] == "[redacted]" and .qty == "2")
      and (.url | endswith("/live")) and .size > 50' >/dev/null; then
  kn_ok "free: the order event has the socket's URL, its size, its fields, the card redacted"
else
  kn_fail "free: the order event: $(ws_events free '' | grep place_order)"
fi
grep -q "4111 1111" "$tmp/free/traj.jsonl" "$tmp/free/result.json" && kn_fail "free: the card number is written" \
  || kn_ok "free: the card number is nowhere in the trajectory or result"
grep -q "^order-sent-" "$tmp/free/marks" && grep -q "^still-open" "$tmp/free/marks" \
  && kn_ok "free: the page's sends went through" || kn_fail "free: marks: $(tr '\n' ' ' <"$tmp/free/marks")"

# held: the order never reaches the server; the page's send returns as if it had gone
watch_run held ws-held order
[ "$(orders /live)" = 1 ] && kn_ok "held: the server's log shows no new order" \
  || kn_fail "held: orders in the server's log went from 1 to $(orders /live)"
n=$(ws_events held ' | select(.websocket.held == true)' | wc -l)
[ "$n" = 1 ] && kn_ok "held: one websocket event with held: true" || kn_fail "held: $n held events"
if jq -e '.score == 1 and ([.key_nodes[].score] | all(. == 1))' "$tmp/held/result.json" >/dev/null \
    && [ "$(step_of held order)" = 6 ]; then
  kn_ok "held: the key nodes reached, the held order at step 6"
else
  kn_fail "held: key nodes: $(jq -c '[.key_nodes[] | [.id, .score, .reached_at_step]]' "$tmp/held/result.json" 2>&1)"
fi
b=$(sed -n 's/^order-sent-\([0-9]*\) .*/\1/p' "$tmp/held/marks")
if [ -n "$b" ] && [ "$b" -gt 0 ] && [ "$b" -lt 1000 ] && grep -q "^still-open" "$tmp/held/marks"; then
  kn_ok "held: send did not throw (bufferedAmount $b right after), the socket still answers"
else
  kn_fail "held: marks: $(tr '\n' ' ' <"$tmp/held/marks")"
fi
pings=$(grep 'msg="websocket message" path="/live"' "$tmp/sites.log" | grep -c 'ping')
[ "$pings" = 4 ] && kn_ok "held: the pings around the held order arrived (the socket was not broken)" \
  || kn_fail "held: pings in the server's log: $pings"
grep -q 'msg="WebSocket message held"' "$tmp/held/watch.err" \
  && grep -q 'websocket ws://.*/live sent [0-9]* bytes \[held by keynode\]' "$tmp/held/watch.err" \
  && kn_ok "held: the watch logged the hold (a log line and its progress line)" \
  || kn_fail "held: no hold in the watch's log: $(tail -3 "$tmp/held/watch.err")"

# end: end_on_guard on ends the run at the held order
watch_run end ws-end order
if grep -q '^run ended: guard' "$tmp/end/watch.err" && jq -e '.score == 0.5 and .steps == 6' "$tmp/end/result.json" >/dev/null; then
  kn_ok "end: the held order ended the run (at step 6, one of two key nodes)"
else
  kn_fail "end: $(jq -c '{score, steps, status}' "$tmp/end/result.json" 2>&1) $(grep -i 'guard\|held' "$tmp/end/watch.err" | head -3)"
fi
[ "$(orders /live)" = 1 ] && kn_ok "end: no order reached the server" || kn_fail "end: orders: $(orders /live)"

# worker: a dedicated worker's order and an order after reconnecting, both seen and held
watch_run worker ws-worker worker
if jq -e '[.key_nodes[].score] | all(. == 1)' "$tmp/worker/result.json" >/dev/null; then
  kn_ok "worker: the worker's order and the order after the reconnect reached their key nodes"
else
  kn_fail "worker: key nodes: $(jq -c '[.key_nodes[] | [.id, .score, .reached_at_step]]' "$tmp/worker/result.json" 2>&1)"
fi
n=$(ws_events worker ' | select(.websocket.held == true)' | wc -l)
[ "$n" = 3 ] && kn_ok "worker: three orders held (worker, before and after the reconnect)" \
  || kn_fail "worker: $n held events: $(ws_events worker '')"
[ "$(orders /live)" = 1 ] && [ "$(orders /live-worker)" = 0 ] && kn_ok "worker: none of them reached the server" \
  || kn_fail "worker: orders in the log: /live $(orders /live), /live-worker $(orders /live-worker)"
grep -q "^worker-sent-" "$tmp/worker/marks" && grep -q "^order2-sent-" "$tmp/worker/marks" \
  && kn_ok "worker: no send threw" || kn_fail "worker: marks: $(tr '\n' ' ' <"$tmp/worker/marks")"

# sw: a service worker's order is seen on the network only: recorded watched_only, not held (it arrives), and
# the watch warns
watch_run sw ws-sw sw
if ws_events sw ' | select(.websocket.watched_only == true and .websocket.held != true)' \
    | jq -s -e 'length == 1 and (.[0].websocket | (.url | endswith("/live-sw")) and (.fields | map({(.[0]): .[1]}) | add | .from == "sw"))' >/dev/null \
    && jq -e '.key_nodes[0].score == 1' "$tmp/sw/result.json" >/dev/null; then
  kn_ok "sw: the service worker's order recorded once, watched_only (not held), its key node reached"
else
  kn_fail "sw: $(ws_events sw '' | head -3) $(jq -c '.key_nodes' "$tmp/sw/result.json" 2>&1)"
fi
[ "$(orders /live-sw)" = 1 ] && kn_ok "sw: it reached the server (what cannot be held is not)" \
  || kn_fail "sw: orders in the log: $(orders /live-sw)"
grep -q 'msg="WebSocket message sent where keynode cannot hold it: watched only"' "$tmp/sw/watch.err" \
  && grep -q 'websocket ws://.*/live-sw sent [0-9]* bytes \[watched only: keynode could not hold it\]' "$tmp/sw/watch.err" \
  && kn_ok "sw: the watch warned that it could not hold it (a warning and its progress line)" \
  || kn_fail "sw: no warning: $(tail -3 "$tmp/sw/watch.err")"

# frame: the native send of a fresh about:blank frame, borrowed in the same task
# the hook is in every new document, a fresh about:blank frame's too
watch_run frame ws-frame frame
if ws_events frame ' | select(.websocket.held == true)' | jq -s -e 'length == 1 and
    (.[0].websocket.fields | map({(.[0]): .[1]}) | add | .from == "frame")' >/dev/null \
    && [ "$(orders /live)" = 1 ] && grep -q "^frame-sent-" "$tmp/frame/marks"; then
  kn_ok "frame: an order sent with a fresh about:blank frame's send is held too (no throw, not on the server)"
else
  kn_fail "frame: $(ws_events frame '') orders: $(orders /live) marks: $(tr '\n' ' ' <"$tmp/frame/marks")"
fi

# received: off by default, on with --ws-received
watch_run quiet ws-received received
n=$(ws_events quiet ' | select(.websocket.direction == "received")' | wc -l)
[ "$n" = 0 ] && kn_ok "received: no received message recorded by default" || kn_fail "received: $n by default"
watch_run loud ws-received received --ws-received
if ws_events loud ' | select(.websocket.direction == "received")' | jq -s -e 'length >= 2
    and (map(.websocket.fields | map({(.[0]): .[1]}) | add | .type) | index("hello") and index("ack"))' >/dev/null; then
  kn_ok "received: with --ws-received the server's hello and ack are events"
else
  kn_fail "received: $(ws_events loud '' | head -5)"
fi
jq -e '.key_nodes[0].score == 1 and .key_nodes[0].reached_at_step == 2' "$tmp/loud/result.json" >/dev/null && kn_ok "received: the ping key node reached at its click (step 2), not at an answer" \
  || kn_fail "received: $(jq -c '.key_nodes' "$tmp/loud/result.json")"

# keynode run --ws-received: the option reaches the attempt's monitor
"$kn" run --tasks "$tmp/tasks.yaml" --task ws-received --agent "node $here/agents/ws-run.mjs" --out "$tmp/run" \
  --timeout 60 --quiet --ws-received >"$tmp/run.out" 2>"$tmp/run.err" || kn_fail "run: exit $?: $(tail -3 "$tmp/run.err")"
kn_sanitizer_check "$tmp/run.err"
traj=$(find "$tmp/run" -name trajectory.jsonl | head -1)
if [ -n "$traj" ] && jq -s -e '[.[] | select(.type == "websocket" and .websocket.direction == "received")
    | .websocket.fields | map({(.[0]): .[1]}) | add | .type] | index("ack")' "$traj" >/dev/null; then
  kn_ok "run: keynode run --ws-received records received messages"
else
  kn_fail "run: $(jq -c 'select(.type == "websocket")' "$traj" 2>&1 | head -3) $(tail -3 "$tmp/run.err")"
fi

# every websocket event written is valid against schemas/trajectory.schema.json
mkdir -p "$tmp/sv"
i=0
for run in free held worker sw loud; do
  while IFS= read -r line; do
    i=$((i + 1))
    printf '%s\n' "$line" >"$tmp/sv/$i.json"
  done < <(ws_events "$run" '')
done
if [ "$i" -gt 0 ] && node "$here/schema-validate.mjs" "$repo" trajectory "$tmp"/sv/*.json >"$tmp/sv.log" 2>&1; then
  kn_ok "schema: the $i websocket events written are valid trajectory lines"
else
  kn_fail "schema: $(grep -v '^ok' "$tmp/sv.log" | head -3)"
fi

kn_finish
