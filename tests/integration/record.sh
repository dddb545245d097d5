#!/bin/bash
# record.sh — `keynode record` with the test suite's Playwright agents as the
# demonstrators: each agent performs one task of tests/sites (tasks.yaml and notes/tasks.yaml: every
# task of the local sites) once in a real headless Chromium while `keynode record` is attached; the
# workflow files it writes load (validate), carry a fingerprint and postconditions, and `keynode
# replay --validate --workflows` of them passes on the original sites with no drift; on the changed
# sites (tests/sites/v2) the recorded workflows give exactly the verdict, step, reason and key node
# of tests/sites/v2/expected.json (drift at the expected steps; expected-recorded.json where a recorded
# step's page baseline makes the verdict differ from the inline steps'); on the restyled sites
# (tests/sites/v3) every recorded workflow passes (drift warnings allowed: no false alarm). Also:
# --propose prints key nodes in task-file syntax, a missing --task is a usage error. Missing tools fail.
# usage: record.sh KEYNODE SOURCE_DIR [quick]   (quick: the sanitizer build's subset of the tasks)
# Env KN_RECORD_ONLY="TASK …" records (and checks) only those tasks (development, reduced runs).
#
# The sanitizer build records six of the fourteen tasks (the "q" rows: the same code paths).
# ctest: integration.record ARGS=keynode,repo,variant TIMEOUT=900
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
# every task of the local sites in one file: tasks.yaml, then the tasks of notes/tasks.yaml
{ cat "$sites/tasks.yaml"; sed '1,/^tasks:/d' "$sites/notes/tasks.yaml"; } >"$tmp/all.yaml"
kn_task_at_site "$tmp/all.yaml" "$tmp/tasks.yaml" "$sport"
wf=$tmp/recorded/workflows   # created by record (--out is created when missing)

"$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" >/dev/null 2>&1
[ $? = 2 ] && kn_ok "record without --task: exit 2" || kn_fail "record without --task: not exit 2"

# record_end PID LOG — after the agent is done: a recording whose key nodes were all reached ends by
# itself; one that waits for an answer (recorded from --answer afterwards) is ended the way a person
# ends it, with Ctrl-C (here SIGTERM, handled the same), once its printed steps have not changed for
# 2 s (not a fixed idle time from the first action, which a slow machine can overrun mid-task)
record_end() {
  local pid=$1 log=$2 prev=-1 same=0 n
  for _ in $(seq 1 600); do
    kill -0 "$pid" 2>/dev/null || return 0
    n=$(wc -c <"$log")
    if [ "$n" = "$prev" ]; then same=$((same + 1)); else same=0 prev=$n; fi
    [ "$same" -ge 20 ] && { kill -TERM "$pid"; break; }
    sleep 0.1
  done
  kn_wait_for "record to end" 30 kn_ended "$pid" && return 0
  kn_fail "record did not end"
  kn_stop "$pid"
}

# record_one TASK AGENT MODE [ANSWER] — record TASK while AGENT performs it
record_one() {
  local task=$1 agent=$2 mode=$3 answer=${4:-} log=$tmp/rec-$1.out
  kn_spawn -o "$log" -e "$tmp/rec-$task.err" "rec-$task" "$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" \
    --task "$task" --out "$wf" --until idle:60 --propose ${answer:+--answer "$answer"}
  local rpid=$kn_pid
  kn_wait_for "record to say it is recording" 30 grep -q '^recording task' "$log"
  grep -q '^recording task' "$log" || kn_fail "$task: record never said it was recording"
  KN_AGENT_ANSWER=$tmp/answers-$task node "$here/agents/$agent" "$cdp" "http://127.0.0.1:$sport" "$tmp/marks-$task" "$mode" >"$tmp/agent-$task.out" 2>&1 ||
    kn_fail "$task: the agent failed: $(tail -3 "$tmp/agent-$task.out" | tr "\n" " ")"
  record_end "$rpid" "$log"
  wait "$rpid"; local rc=$?
  kn_forget "$rpid"
  [ "$rc" = 0 ] && [ -f "$wf/$task.yaml" ] && kn_ok "$task: recorded ($(grep -c '^  step ' "$log") step lines printed)" ||
    kn_fail "$task: record exit $rc: $(cat "$log" "$tmp/rec-$task.err" | tail -5)"
}
# Every task of tests/sites, its agent, the agent's mode and the answer to record (- for none), in the
# order they are recorded (the order matters to the agents, not to keynode: forum.mjs's goBack right
# after shop.mjs's run times out in Playwright, so quick runs forum first). q: in the quick subset.
table='q forum-compare-replies forum.mjs full Winter_camping_stove_advice
q shop-red-runner-cart shop.mjs full -
. spa-mail-dark-theme mail.mjs full -
. popup-newsletter popup.mjs full -
. spa-kb-damaged-refund kb.mjs full 30_days
. spa-mail-meeting-room mail.mjs answer Room_4B
q popup-deal-code popup.mjs newtab TRAIL25
. forum-new-post functional.mjs forum -
. shop-checkout record-extra.mjs checkout $74.00
. forum-gear-category record-extra.mjs gear -
q notes-open-budget notes.mjs open -
. notes-new-permit notes.mjs new -
q notes-edit-packing notes.mjs edit -
q notes-permit-number notes.mjs permit -'
tasks=
while read -r q task agent mode answer; do
  [ -n "$quick" ] && [ "$q" != q ] && continue
  [ -n "${KN_RECORD_ONLY:-}" ] && [[ " $KN_RECORD_ONLY " != *" $task "* ]] && continue
  [ "$answer" = - ] && answer= || answer=${answer//_/ }
  record_one "$task" "$agent" "$mode" "$answer"
  tasks="$tasks $task"
done <<<"$table"
[ -z "${KN_RECORD_ONLY:-}" ] && [ -z "$quick" ] &&
  { [ "$(echo $tasks | wc -w)" = "$(grep -c '^  - id:' "$tmp/all.yaml")" ] && kn_ok "every task of tests/sites was recorded ($(echo $tasks | wc -w))" ||
      kn_fail "recorded $(echo $tasks | wc -w) tasks of $(grep -c '^  - id:' "$tmp/all.yaml")"; }
nwf=$(echo $tasks | wc -w)

if [[ " $tasks " == *" shop-red-runner-cart "* ]]; then
  grep -q '^  - url: { key: "q", exact: "red running shoes" }' "$tmp/rec-shop-red-runner-cart.out" &&
    grep -q '^  - element_value: { path: "#size", exact: "9" }' "$tmp/rec-shop-red-runner-cart.out" &&
    kn_ok "--propose: query parameter and value key nodes in task-file syntax" || kn_fail "--propose: $(sed -n '/^key_nodes:/,$p' "$tmp/rec-shop-red-runner-cart.out")"
  s=$wf/shop-red-runner-cart.yaml
  grep -q '^viewport: "1280x800"' "$s" && ! grep -q "the page's viewport was" "$tmp/rec-shop-red-runner-cart.err" && grep -q 'tag: "a"' "$s" && grep -q 'href: "http://127.0.0.1:'"$sport"'/shop/item.html?id=3"' "$s" &&
    grep -q 'after: { url: "http://127.0.0.1:'"$sport"'/shop/item.html?id=3", navigated: true[ ,]' "$s" &&
    kn_ok "the shop workflow was recorded at the default viewport 1280x800, has a fingerprint (tag, href) and postconditions" || kn_fail "shop workflow: $(cat "$s")"
fi
"$kn" validate --workflows "$wf" "$tmp/tasks.yaml" >"$tmp/validate.out" 2>&1 &&
  grep -q "workflows: $nwf attached" "$tmp/validate.out" && kn_ok "validate: the $nwf recorded workflows load" || kn_fail "validate: $(cat "$tmp/validate.out")"

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

# replay_on NAME ROOT BROWSER — serve ROOT and start replaying the recorded workflows there (ports
# rewritten) in BROWSER into $tmp/NAME, in the background; replay_wait NAME sets rrc to its exit code.
# v2 and v3 replay at the same time, each in its own Chromium: two validating replays in one browser
# see each other's pages (a shared browser's contexts can), which would make the test, not
# keynode, decide a verdict.
replay_on() {
  kn_sites_start "$kn" "$2" "$tmp/sites-$1.log" || kn_finish
  kn_task_at_site "$tmp/all.yaml" "$tmp/tasks-$1.yaml" "$port"
  mkdir -p "$tmp/$1"
  kn_task_at_site "$wf" "$tmp/wf-$1" "$sport=$port"
  kn_spawn -o "$tmp/$1.out" -e "$tmp/$1.err" "replay-$1" "$kn" replay --validate --quiet --browser "$3" --tasks "$tmp/tasks-$1.yaml" \
    --workflows "$tmp/wf-$1" --out "$tmp/$1"
  eval "rpid_$1=\$kn_pid"
}
replay_wait() {
  local p
  eval "p=\$rpid_$1"
  wait "$p"; rrc=$?
  kn_forget "$p"
}
kn_sites_v2_root "$sites" "$tmp/v2root"
replay_on v2 "$tmp/v2root" "$cdp"
# the restyled sites (tests/sites/v3 laid over a copy of tests/sites)
root3=$tmp/v3root
mkdir -p "$root3" && (cd "$sites" && tar cf - --exclude=./v2 --exclude=./v3 .) | tar xf - -C "$root3" && cp -r "$sites/v3/." "$root3/"
cdp1=$cdp
mkdir -p "$tmp/chromium-v3"
kn_chromium_start "$tmp/chromium-v3" || kn_finish
replay_on v3 "$root3" "$cdp"
cdp=$cdp1

# the changed sites: exactly the verdict, step, reason, key node and drift steps of expected.json
# and expected-notes.json, as expected-recorded.json overrides them for recorded workflows (tasks
# listed in none pass with no drift)
replay_wait v2
jq -s '.[0] + .[1] + .[2]' "$sites/v2/expected.json" "$sites/v2/expected-notes.json" "$sites/v2/expected-recorded.json" >"$tmp/expected.json"
for t in $tasks; do
  e=$(jq -c --arg t "$t" '.[$t] // {"status": "passed", "drift": []}' "$tmp/expected.json")
  jq -e --argjson e "$e" '.status == $e.status and ([.replay.drift[].step] == [$e.drift[].step])
    and (if $e.status == "passed" then true else .broken.step == ($e.step // null)
         and (if $e.reason then .broken.reason == $e.reason else true end)
         and (if $e | has("key_node") then .broken.key_node == $e.key_node else true end) end)' "$tmp/v2/$t.json" >/dev/null &&
    kn_ok "v2 $t: $(jq -r .status "$tmp/v2/$t.json") exactly as expected ($e)" ||
    kn_fail "v2 $t: got $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift}' "$tmp/v2/$t.json" 2>&1), want $e"
done

# the restyled sites (v3: classes, layout and markup order changed, every feature still there): no
# false alarm, every recorded workflow passes (drift warnings allowed)
replay_wait v3
[ "$rrc" = 0 ] && kn_ok "v3 (restyled): replay exit 0" || kn_fail "v3 (restyled): replay exit $rrc"
for t in $tasks; do
  jq -e '.status == "passed"' "$tmp/v3/$t.json" >/dev/null &&
    kn_ok "v3 $t: passed ($(jq -r '.replay.drift | length' "$tmp/v3/$t.json") drift warnings)" ||
    kn_fail "v3 $t: $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift}' "$tmp/v3/$t.json" 2>&1)"
done
kn_finish
