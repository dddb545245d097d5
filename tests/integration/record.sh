#!/bin/bash
# record.sh — `keynode record` (issue 13) with the test suite's Playwright agents as the
# demonstrators: each agent performs its task of tests/sites/tasks.yaml once in a real headless
# Chromium while `keynode record` is attached; the workflow files it writes load (validate), carry
# a fingerprint and postconditions, and `keynode replay --validate --workflows` of them passes on
# the original sites with no drift; on the changed sites (tests/sites/v2) the recorded workflows
# give the verdict and step of tests/sites/v2/expected.json. Also: --propose prints key nodes in
# task-file syntax, a missing --task is a usage error. Missing tools fail.
# usage: record.sh KEYNODE SOURCE_DIR [quick]   (quick: the sanitizer build's three tasks)
kn=$1 src=$2 quick=${3:-}
. "$(dirname "$0")/lib.sh"
kn_lib_init record
for t in jq node; do command -v $t >/dev/null || kn_fail "missing $t"; done
here=$(cd "$(dirname "$0")" && pwd)
"$here/node/ensure.sh" || kn_finish
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$sites" "$tmp/sites.log" || kn_finish
sport=$port
sed "s/127\.0\.0\.1:8100/127.0.0.1:$sport/g" "$sites/tasks.yaml" >"$tmp/tasks.yaml"
wf=$tmp/recorded/workflows   # created by record (--out is created when missing)

"$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" >/dev/null 2>&1
[ $? = 2 ] && kn_ok "record without --task: exit 2" || kn_fail "record without --task: not exit 2"

# record_one TASK AGENT MODE [ANSWER] — record TASK while AGENT performs it
record_one() {
  local task=$1 agent=$2 mode=$3 answer=${4:-} log=$tmp/rec-$1.out
  "$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$task" --out "$wf" --until idle:4 \
    --propose ${answer:+--answer "$answer"} >"$log" 2>"$tmp/rec-$task.err" &
  local rpid=$!
  for _ in $(seq 1 100); do grep -q '^recording task' "$log" && break; sleep 0.1; done
  grep -q '^recording task' "$log" || kn_fail "$task: record never said it was recording"
  KN_AGENT_ANSWER=$tmp/answers-$task node "$here/agents/$agent" "$cdp" "http://127.0.0.1:$sport" "$tmp/marks-$task" "$mode" >"$tmp/agent-$task.out" 2>&1 ||
    kn_fail "$task: the agent failed: $(tail -3 "$tmp/agent-$task.out" | tr "\n" " ")"
  for _ in $(seq 1 150); do kill -0 "$rpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$rpid" 2>/dev/null && { kn_fail "$task: record did not end"; kn_stop "$rpid"; }
  wait "$rpid"; local rc=$?
  [ "$rc" = 0 ] && [ -f "$wf/$task.yaml" ] && kn_ok "$task: recorded ($(grep -c '^  step ' "$log") step lines printed)" ||
    kn_fail "$task: record exit $rc: $(cat "$log" "$tmp/rec-$task.err" | tail -5)"
}
# (the order matters to the agents, not to keynode: forum.mjs's goBack right after shop.mjs's run
# times out in Playwright)
[ -n "$quick" ] && record_one forum-compare-replies forum.mjs full "Winter camping stove advice"
record_one shop-red-runner-cart shop.mjs full
[ -z "$quick" ] && record_one spa-mail-dark-theme mail.mjs full
[ -z "$quick" ] && record_one popup-newsletter popup.mjs full
[ -z "$quick" ] && record_one forum-compare-replies forum.mjs full "Winter camping stove advice"
if [ -z "$quick" ]; then
  record_one spa-kb-damaged-refund kb.mjs full "30 days"
  record_one spa-mail-meeting-room mail.mjs answer "Room 4B"
  record_one popup-deal-code popup.mjs newtab "TRAIL25"
  record_one forum-new-post functional.mjs forum
  record_one shop-checkout record-extra.mjs checkout '$74.00'
  record_one forum-gear-category record-extra.mjs gear
  tasks="shop-red-runner-cart spa-mail-dark-theme popup-newsletter forum-compare-replies spa-kb-damaged-refund
         spa-mail-meeting-room popup-deal-code forum-new-post shop-checkout forum-gear-category"
else
  record_one popup-deal-code popup.mjs newtab "TRAIL25"
  tasks="shop-red-runner-cart forum-compare-replies popup-deal-code"
fi
nwf=$(echo $tasks | wc -w)

grep -q '^  - url: { key: "q", exact: "red running shoes" }' "$tmp/rec-shop-red-runner-cart.out" &&
  grep -q '^  - element_value: { path: "#size", exact: "9" }' "$tmp/rec-shop-red-runner-cart.out" &&
  kn_ok "--propose: query parameter and value key nodes in task-file syntax" || kn_fail "--propose: $(sed -n '/^key_nodes:/,$p' "$tmp/rec-shop-red-runner-cart.out")"
"$kn" validate --workflows "$wf" "$tmp/tasks.yaml" >"$tmp/validate.out" 2>&1 &&
  grep -q "workflows: $nwf attached" "$tmp/validate.out" && kn_ok "validate: the $nwf recorded workflows load" || kn_fail "validate: $(cat "$tmp/validate.out")"
s=$wf/shop-red-runner-cart.yaml
grep -q '^viewport: "[0-9]*x[0-9]*"' "$s" && grep -q 'tag: "a"' "$s" && grep -q 'href: "http://127.0.0.1:'"$sport"'/shop/item.html?id=3"' "$s" &&
  grep -q 'after: { url: "http://127.0.0.1:'"$sport"'/shop/item.html?id=3", navigated: true }' "$s" &&
  kn_ok "the shop workflow has a viewport, a fingerprint (tag, href) and postconditions" || kn_fail "shop workflow: $(cat "$s")"

# replay --validate of the recorded workflows on the original sites: passed, no drift
mkdir -p "$tmp/v1"
"$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --workflows "$wf" --out "$tmp/v1" >"$tmp/v1.out" 2>"$tmp/v1.err"
for t in $tasks; do
  jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | .outcome == "ok"] | all)
         and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$tmp/v1/$t.json" >/dev/null &&
    kn_ok "v1 $t: the recorded workflow passes, no drift, postconditions held" ||
    kn_fail "v1 $t: $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift, steps: [.replay.steps[] | {step, outcome, postcondition, url}]}' "$tmp/v1/$t.json" 2>&1)"
done
kn_stop "$sites_pid"

# the changed sites: the verdict and step of expected.json (tasks not listed there pass)
root=$tmp/v2root
kn_sites_v2_root "$sites" "$root"
kn_sites_start "$kn" "$root" "$tmp/sites-v2.log" || kn_finish
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$sites/tasks.yaml" >"$tmp/tasks-v2.yaml"
mkdir -p "$tmp/wf2"
for f in "$wf"/*.yaml; do sed "s/127\.0\.0\.1:$sport/127.0.0.1:$port/g" "$f" >"$tmp/wf2/$(basename "$f")"; done
mkdir -p "$tmp/v2"
"$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-v2.yaml" --workflows "$tmp/wf2" --out "$tmp/v2" >"$tmp/v2.out" 2>"$tmp/v2.err"
exp=$sites/v2/expected.json
for t in $tasks; do
  e=$(jq -c --arg t "$t" '.[$t] // {"status": "passed", "drift": []}' "$exp")
  jq -e --argjson e "$e" '.status == $e.status
    and (if $e.status == "passed" then true else .broken.step == ($e.step // null)
         and (if $e.key_node then .broken.key_node == $e.key_node else true end) end)' "$tmp/v2/$t.json" >/dev/null &&
    kn_ok "v2 $t: $(jq -r .status "$tmp/v2/$t.json") at the expected step ($e)" ||
    kn_fail "v2 $t: got $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift}' "$tmp/v2/$t.json" 2>&1), want $e"
done
kn_finish
