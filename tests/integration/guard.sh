#!/usr/bin/env bash
# guard.sh — request key nodes and guard rules live: real headless Chromium, `keynode sites`
# serving tests/sites/guard twice (the second port is a cross-origin payment frame's origin) with their
# request logs on, `keynode watch` on tests/sites/guard/tasks.yaml, and a Playwright agent
# (agents/guard.mjs) that orders with a JSON fetch and a sendBeacon, books a table with a classic form
# answered 303, posts a multipart review with a file, and pays in a form inside the cross-origin frame.
#   free   no guard rules: all 10 key nodes reached, each request at the step of the click that sent
#          it; the servers' logs show the five POSTs arrived (the fixtures are real)
#   held   the same under rules holding all five (end_on_guard: false): all 10 key nodes reached, five
#          request events with held: true, the agent saw keynode's answers, and the servers' logs show
#          none of the five POSTs arrived
#   end    a rule with end_on_guard on (the default): the run ends at the held order ("guard")
#   record/replay  the checkout recorded under guard and replayed (below)
#   sw-*   a gift card a service worker sends (sw/): registered during the watch, registered earlier and
#          started again for the page (KN_GUARD_SW_REPEATS times, default 1: held, then without the rule),
#          left running by the previous run, started outside the watch — each captured at its click, held
#          under the rule (the server's log: 0 arrivals) and sent without it (1 arrival)
# In every file the test wrote, no secret appears (card number, password, beacon token, bearer
# token); the held trajectory writes the CVC, the card number and the Authorization header redacted.
#
#   tests/integration/guard.sh KEYNODE_BIN REPO_DIR
#
# ctest: integration.guard ARGS=keynode,repo TIMEOUT=360
set -u -o pipefail
kn=${1:?usage: guard.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: guard.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init guard

command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
command -v node >/dev/null 2>&1 || { kn_fail "node not found"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "playwright-core could not be installed"; kn_finish; }

# the same folder on a second port: the payment frame's origin (a cross-site iframe); each server with its
# own request log (one line per request: method, path, status)
kn_sites_start "$kn" "$repo/tests/sites/guard" "$tmp/sites2.log" --log-requests || kn_finish
port2=$port
kn_sites_start "$kn" "$repo/tests/sites/guard" "$tmp/sites.log" --log-requests || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/guard/tasks.yaml" "$tmp/tasks.yaml" "$port"
kn_chromium_start "$tmp" || kn_finish

# posts PATH — how many POSTs to PATH the server's log shows
posts() { cat "$tmp/sites.log" "$tmp/sites2.log" | grep -c "method=POST path=\"$1\""; }

# watch_run NAME TASK MODE [AGENT] — the agent (agents/guard.mjs unless AGENT) and `keynode watch` until
# every key node is reached (or 10 s without an event: a run that fails); files in $tmp/NAME
watch_run() {
  local name=$1 task=$2 mode=$3 agent=${4:-guard.mjs} dir=$tmp/$1
  kn_watch_scenario "$dir" --go "$dir/marks" --trajectory "$dir/traj.jsonl" \
    -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$task" --until finished --until idle:10 --step-limit -1 \
       --run-id "$name" \
    -- node "$here/agents/$agent" "$cdp" "$base" "$dir/marks" "$mode" || return 1
  [ "$kn_agent_rc" = 0 ] || kn_fail "$name: agent failed: $(tail -3 "$dir/agent.log")"
}

# node ID's reached_at_step equals node OTHER's (the request credits the click that sent it)
same_step() {
  jq -e --arg a "$2" --arg b "$3" '[.key_nodes[] | {(.id): .reached_at_step}] | add
    | (.[$a] != null and .[$a] == .[$b])' "$tmp/$1/result.json" >/dev/null
}

check_nodes() {
  local name=$1
  if jq -e '.score == 1 and ([.key_nodes[].score] | all(. == 1))' "$tmp/$name/result.json" >/dev/null \
    && same_step "$name" order click-order && same_step "$name" order-card click-order \
    && same_step "$name" beacon click-order && same_step "$name" booking click-book \
    && same_step "$name" review click-send && same_step "$name" payment click-pay; then
    kn_ok "$name: all 10 key nodes reached, each request at the step of its click"
  else
    kn_fail "$name: key nodes: $(jq -c '[.key_nodes[] | [.id, .score, .reached_at_step]]' "$tmp/$name/result.json" 2>&1)"
  fi
}

paths=(/api/orders /api/beacon /classic/submit /upload/submit /pay/submit)

# free: no rules, every request reaches the server
watch_run free guard-free full:$port2
check_nodes free
before=()
for p in "${paths[@]}"; do before+=("$(posts "$p")"); done
if [ "${before[*]}" = "1 1 1 1 1" ]; then
  kn_ok "free: the servers' logs show each of the five POSTs once"
else
  kn_fail "free: POSTs in the server's log (${paths[*]}): ${before[*]}"
fi
grep -q "^order-thanks" "$tmp/free/marks" && grep -q "^classic-thanks" "$tmp/free/marks" \
  && grep -q "^upload-thanks" "$tmp/free/marks" && grep -q "^pay-thanks" "$tmp/free/marks" \
  && kn_ok "free: the agent saw the site's answers" \
  || kn_fail "free: the agent's marks: $(tr '\n' ' ' <"$tmp/free/marks")"

# held: rules hold all five; nothing reaches the servers
watch_run held guard-held full:$port2
check_nodes held
after=()
for p in "${paths[@]}"; do after+=("$(posts "$p")"); done
if [ "${after[*]}" = "${before[*]}" ]; then
  kn_ok "held: no guarded POST reached the server"
else
  kn_fail "held: POSTs in the server's log (${paths[*]}) went from ${before[*]} to ${after[*]}"
fi
n_held=$(jq -s '[.[] | select(.type == "request" and .request.held == true)] | length' "$tmp/held/traj.jsonl")
[ "$n_held" = 5 ] && kn_ok "held: five request events with held: true" \
  || kn_fail "held: $n_held held request events"
grep -q "^order-held" "$tmp/held/marks" && grep -q "^classic-held" "$tmp/held/marks" \
  && grep -q "^upload-held" "$tmp/held/marks" && grep -q "^pay-held" "$tmp/held/marks" \
  && kn_ok "held: the agent got keynode's answers (the rule's body, the held page)" \
  || kn_fail "held: the agent's marks: $(tr '\n' ' ' <"$tmp/held/marks")"
if jq -s -e '[.[] | select(.type == "request" and (.request.url | endswith("/api/orders")))][0].request
    | (.fields | map({(.[0]): .[1]}) | add | .["card.number"] == "[redacted]" and .["card.cvc"] == "[redacted]"
       and .qty == "2") and .headers.authorization == "[redacted]"' "$tmp/held/traj.jsonl" >/dev/null; then
  kn_ok "held: the order's card, CVC and Authorization header are written redacted"
else
  kn_fail "held: the order as written: $(jq -c 'select(.type == "request")' "$tmp/held/traj.jsonl" | head -1)"
fi
for run in free held; do
  if jq -s -e '[.[] | select(.type == "request" and (.request.url | endswith("/classic/submit")))][0].request
      | .fields | map({(.[0]): .[1]}) | add | .door == "[redacted]" and .password == "[redacted]" and .party == "4"' \
      "$tmp/$run/traj.jsonl" >/dev/null; then
    kn_ok "$run: the booking's password and the door code (a password input named 'door') are written redacted"
  else
    kn_fail "$run: the booking as written: $(jq -c 'select(.type == "request" and (.request.url | endswith("/classic/submit")))' "$tmp/$run/traj.jsonl" | head -1)"
  fi
done

# end: end_on_guard (default on) ends the run at the held order
watch_run end guard-end checkout
if grep -q 'msg="request held"' "$tmp/end/watch.err" && jq -e '.score == 0.5 and .steps == 6' "$tmp/end/result.json" >/dev/null \
   && [ "$(posts /api/orders)" = "${after[0]}" ] && grep -q '^run ended: guard' "$tmp/end/watch.err"; then
  kn_ok "end: the held order ended the run"
else
  kn_fail "end: $(jq -c '{score, steps, status}' "$tmp/end/result.json" 2>&1) $(grep -i 'guard\|held' "$tmp/end/watch.err" | head -3)"
fi

# replay: `keynode record` of the checkout under guard (the order held: the recording ends there) writes
# the held order into the workflow (after: held) and the card and CVC as secrets; `replay --validate`
# then passes REPLAYS times (KN_GUARD_REPLAYS, default 1: every check once; tests/bench/bench_guard_replay.sh runs 20)
# with not one order reaching the server, is broken at the click when the page orders another
# quantity, and is an error (not broken) when a secret is not given
rdir=$tmp/record
mkdir -p "$rdir"
orders=$(posts /api/orders)
KN_AGENT_GO=$rdir/go kn_spawn record/agent node "$here/agents/guard.mjs" "$cdp" "$base" "$rdir/marks" checkout
kn_wait_for "the agent to attach" 20 grep -q "^connected" "$rdir/marks"
kn_spawn -o "$rdir/record.out" -e "$rdir/record.err" record/record "$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" \
  --task guard-replay --out "$rdir/wf" --until idle:20
kn_wait_for "record to start recording" 10 grep -q '^recording task' "$rdir/record.err"
touch "$rdir/go"
kn_wait_exit record/agent 300
[ "$kn_rc" = 0 ] || kn_fail "record: agent failed: $(tail -3 "$rdir/agent.log")"
kn_wait_exit record/record 300
rrc=$kn_rc
wf=$rdir/wf/guard-replay.yaml
if [ "$rrc" = 0 ] && grep -q 'secret: "CC_NUMBER"' "$wf" && grep -q 'secret: "CVC"' "$wf" \
   && grep -q 'held: { method: "POST", url: { include: "127.0.0.1:'"$port"'/api/orders" }' "$wf" \
   && grep -q '"qty": { exact: "2" }' "$wf" && grep -q '"color": { exact: "blue" }' "$wf" \
   && ! grep -q 'card' "$wf"; then
  kn_ok "record: the held order is the click's postcondition, the card and CVC are secrets"
else
  kn_fail "record (exit $rrc): $(tail -3 "$rdir/record.err") $(cat "$wf" 2>&1 | tr '\n' ' ')"
fi
[ "$(posts /api/orders)" = "$orders" ] || kn_fail "record: the order reached the server"
# validate DIR [ENV…] — one replay --validate of guard-replay with the recorded workflow; its status
validate() {
  local d=$1
  shift
  env "$@" "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task guard-replay \
    --workflows "$rdir/wf" --out "$d" >"$d.out" 2>"$d.err"
  jq -r .status "$d/guard-replay.json" 2>/dev/null
}
secrets=(KN_SECRET_CC_NUMBER='4111 1111 1111 1111' KN_SECRET_CVC=7391)
replays=${KN_GUARD_REPLAYS:-1}
passed=0
for i in $(seq 1 "$replays"); do
  st=$(validate "$rdir/replay-$i" "${secrets[@]}")
  [ "$st" = passed ] && passed=$((passed + 1)) || kn_fail "replay $i: $st: $(jq -c .broken "$rdir/replay-$i/guard-replay.json" 2>&1) $(tail -2 "$rdir/replay-$i.err")"
done
if [ "$passed" = "$replays" ] && [ "$(posts /api/orders)" = "$orders" ]; then
  kn_ok "replay: passed $passed of $replays times, not one order reached the server"
else
  kn_fail "replay: passed $passed of $replays; orders at the server: $orders -> $(posts /api/orders)"
fi
st=$(validate "$rdir/nosecret")
if [ "$st" = error ] && grep -q 'KN_SECRET_CC_NUMBER' "$rdir/nosecret/guard-replay.json"; then
  kn_ok "replay without the secrets: error, naming KN_SECRET_CC_NUMBER"
else
  kn_fail "replay without the secrets: $st $(jq -c .broken "$rdir/nosecret/guard-replay.json" 2>&1)"
fi
# the site changed: its checkout now orders one more than the quantity typed
cp -r "$repo/tests/sites/guard" "$tmp/site3"
sed -i "s/qty: Number(document.getElementById('qty').value),/qty: Number(document.getElementById('qty').value) + 1,/" \
  "$tmp/site3/checkout.js"
port1=$port
kn_sites_start "$kn" "$tmp/site3" "$tmp/sites3.log" --log-requests || kn_finish
port3=$port port=$port1
mkdir -p "$rdir/wf3"
kn_task_at_site "$wf" "$rdir/wf3/guard-replay.yaml" "$port=$port3"
kn_task_at_site "$tmp/tasks.yaml" "$rdir/tasks3.yaml" "$port=$port3"
env "${secrets[@]}" "$kn" replay --validate --quiet --browser "$cdp" --tasks "$rdir/tasks3.yaml" --task guard-replay \
  --workflows "$rdir/wf3" --out "$rdir/changed" >"$rdir/changed.out" 2>"$rdir/changed.err"
if jq -e '.status == "broken" and .broken.reason == "held request differs" and .broken.selector == "#place-order"
    and (.broken.detail | test("field .qty. is .3., recorded exact .2."))' "$rdir/changed/guard-replay.json" >/dev/null \
   && ! grep -q 'path="/api/orders"' "$tmp/sites3.log"; then
  kn_ok "replay of a changed checkout: broken at the click, the held order's qty 3 (recorded 2), nothing sent"
else
  kn_fail "replay of a changed checkout: $(jq -c '{status, broken}' "$rdir/changed/guard-replay.json" 2>&1)"
fi

# service workers: sw/sw.html registers sw/sw.js (scope /sw/), whose fetch handler answers the page's
# POST /sw/send with its own fetch POST /api/giftcards — a request only the worker sends. Its target's own
# Fetch.enable comes too late for a worker started again for a page (Chromium gives a worker its loaders
# when it starts, from installed scripts, and no later Fetch.enable reaches them): keynode holds service
# workers' requests at the browser session (services/monitor/README.md "Requests and the guard").
#   sw-first      the worker registered during the watch (held)
#   sw-held-I     the worker registered earlier, stopped (ServiceWorker.stopAllWorkers: Chromium stops a
#                 worker idle for 30 s) and started again for the page: held, nothing arrives
#   sw-free-I     the same without the rule: the request key node reached, the POST arrives once
#                 (I = 1..KN_GUARD_SW_REPEATS, default 1: a flaky capture is a defect)
#   sw-still      the worker left running by the last watched run: keynode stops it once when it
#                 attaches, the page starts it again under interception: held
#   sw-outside    the worker started for the page outside any watch, running when the watch begins: held
# Each run: both key nodes at the click's step, one request event (held or not), the agent's answer.
sw_ctl() {
  node "$here/agents/guard-sw.mjs" "$cdp" "$base" "$tmp/sw-ctl.marks" "$1" >>"$tmp/sw-ctl.log" 2>&1 ||
    kn_fail "sw: $1 failed: $(tail -2 "$tmp/sw-ctl.log")"
}
# sw_run NAME TASK held|thanks [restarted] — one watched run of agents/guard-sw.mjs and its checks;
# restarted: keynode must say it stopped a worker that ran before the watch
sw_run() {
  local name=$1 task=$2 want=$3 before n arrived
  before=$(posts /api/giftcards)
  watch_run "$name" "$task" send guard-sw.mjs
  arrived=$(($(posts /api/giftcards) - before))
  n=$(jq -s --arg held "$([ "$want" = held ] && echo true || echo false)" '[.[] | select(.type == "request"
      and (.request.url | endswith("/api/giftcards")) and ((.request.held == true) == ($held == "true")))] | length' \
      "$tmp/$name/traj.jsonl" 2>/dev/null)
  if jq -e '.score == 1' "$tmp/$name/result.json" >/dev/null 2>&1 && same_step "$name" giftcard click-gift \
     && [ "$n" = 1 ] && [ "$arrived" = "$([ "$want" = held ] && echo 0 || echo 1)" ] \
     && grep -q "^gift-$want" "$tmp/$name/marks" \
     && { [ "${4:-}" != restarted ] || grep -q 'msg="service worker restarted under interception"' "$tmp/$name/watch.err"; }; then
    kn_ok "$name: the worker's request reached its key node at the click, $([ "$want" = held ] && echo "held, 0 arrived" || echo "sent, 1 arrived")"
  else
    kn_fail "$name: key nodes $(jq -c '[.key_nodes[] | [.id, .score, .reached_at_step]]' "$tmp/$name/result.json" 2>&1),"\
" $n request events, $arrived arrived, marks: $(tr '\n' ' ' <"$tmp/$name/marks"), $(grep -c 'restarted under' "$tmp/$name/watch.err") restarts"
  fi
}
sw_run sw-first guard-sw-held held
sw_repeats=${KN_GUARD_SW_REPEATS:-1}
for i in $(seq 1 "$sw_repeats"); do
  sw_ctl stop
  sw_run "sw-held-$i" guard-sw-held held
  sw_ctl stop
  sw_run "sw-free-$i" guard-sw-free thanks
done
sw_run sw-still guard-sw-held held restarted
sw_ctl stop
sw_ctl load
sw_run sw-outside guard-sw-held held restarted
[ "$(grep -c '^stopped' "$tmp/sw-ctl.marks")" = $((2 * sw_repeats + 1)) ] && [ "$(posts /sw/send)" = 0 ] \
  && kn_ok "sw: every stop left no worker running; no POST /sw/send reached the server (the worker answered it)" \
  || kn_fail "sw: control marks $(tr '\n' ' ' <"$tmp/sw-ctl.marks"), POST /sw/send at the server: $(posts /sw/send)"

# no secret in any file the test wrote (the agent types them; keynode must write none)
leaks=$( (grep -rlIF -e 'hunter2_SECRET_pw' -e 'door_SECRET_77' -e 'tok_SECRET_beacon' -e 'sk_SECRET_bearer' -e '4111 1111 1111 1111' \
  -e '4111111111111111' "$tmp" --exclude-dir=profile --exclude-dir=site3
  grep -rlIw 7391 "$tmp" --exclude-dir=profile --exclude-dir=site3) 2>/dev/null | sort -u)
[ -z "$leaks" ] && kn_ok "no secret in any file written" || kn_fail "secrets written in clear: $leaks"

kn_finish
