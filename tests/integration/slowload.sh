#!/bin/bash
# slowload.sh — slow is not changed (the false alarms of a loaded machine or a slow site): replay
# validation against real headless Chromium and `keynode sites` serving tests/sites/slow, with keynode.yaml
# `replay: {settle_ms: 1500, command_timeout_ms: 7000}`:
#   - late-load (twice): the checkout's tracker pixel comes 12 s late (kn-delay), holding `load` past the
#     settle bound while the page is in place: passed, step 2 "settled": false, the key node reached;
#   - late-document: the checkout a click leads to comes 12 s late: error, "navigation timeout" at
#     step 2 (its document not there), never broken; late-goto: a goto's document 15 s late (Page.navigate
#     unanswered past command_timeout_ms): error, "navigation timeout" at step 1;
#   - late-load on tests/sites/slow-v2 (orders paused: no "Place order"): broken at step 3, element not
#     found — the slow page is still judged;
#   - late-load with the browser frozen (SIGSTOP) once step 2 ended, while step 3 waits in the page for
#     "Place order" (shown 2.5 s after the checkout), thawed after step 3 failed: error, "browser timeout"
#     at step 3, never broken.
# usage: slowload.sh KEYNODE SOURCE_DIR
#
# ctest: integration.slowload ARGS=keynode,repo TIMEOUT=300
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init slowload
command -v jq >/dev/null || kn_fail "missing jq"
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish
printf 'replay:\n  settle_ms: 1500\n  command_timeout_ms: 7000\n' >"$tmp/keynode.yaml"

# serve ROOT NAME — serve ROOT and write the tasks with its port to $tmp/tasks-NAME.yaml
serve() {
  kn_sites_start "$kn" "$1" "$tmp/sites-$2.log" || kn_finish
  kn_task_at_site "$sites/slow/tasks.yaml" "$tmp/tasks-$2.yaml" "$port"
}
# replay NAME TASK OUT — one validation into $tmp/OUT (its exit code in rc, its lines in $tmp/OUT.out)
replay() {
  "$kn" replay --validate --no-repairs --config "$tmp/keynode.yaml" --browser "$cdp" --tasks "$tmp/tasks-$1.yaml" \
    --task "$2" --out "$tmp/$3" >"$tmp/$3.out" 2>"$tmp/$3.err"
  rc=$?
}
report() { jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), steps: [.replay.steps[] | {outcome, settled, detail}]}' "$1" 2>&1; }

serve "$sites/slow" v1
for i in 1 2; do
  replay v1 late-load "late-load-$i"
  f=$tmp/late-load-$i/late-load.json
  [ "$rc" = 0 ] && jq -e '.status == "passed" and ([.replay.steps[] | .outcome] == ["ok", "ok", "ok"])
      and .replay.steps[1].settled == false and .replay.steps[0].settled == null
      and ([.replay.key_nodes[] | .reached] | all)' "$f" >/dev/null &&
    kn_ok "late-load run $i: passed; step 2 went on with its load 12 s late (settled: false)" ||
    kn_fail "late-load run $i: exit $rc: $(report "$f") $(tail -3 "$tmp/late-load-$i.err")"
done
grep -q 'step 2/3 click .*ok (not settled within 1500 ms: went on, its document in place)' "$tmp/late-load-1.err" &&
  kn_ok "late-load: the progress line says the step went on unsettled" ||
  kn_fail "late-load: no 'went on' line: $(cat "$tmp/late-load-1.err")"
replay v1 late-document late-document
f=$tmp/late-document/late-document.json
[ "$rc" = 2 ] && jq -e '.status == "error" and .broken.step == 2 and .broken.reason == "navigation timeout"
    and (.broken.detail | test("did not load within 1500 ms \\((no document committed|its document not parsed)\\)"))
    and .replay.steps[1].outcome == "navigation timeout"' "$f" >/dev/null &&
  kn_ok "late-document: error (navigation timeout at step 2, the document not there), not broken" ||
  kn_fail "late-document: exit $rc: $(report "$f") $(tail -3 "$tmp/late-document.err")"
replay v1 late-goto late-goto
f=$tmp/late-goto/late-goto.json
[ "$rc" = 2 ] && jq -e '.status == "error" and .broken.step == 1 and .broken.reason == "navigation timeout"
    and (.broken.detail | test("Page.navigate unanswered"))' "$f" >/dev/null &&
  kn_ok "late-goto: error (navigation timeout at step 1: Page.navigate unanswered), not broken" ||
  kn_fail "late-goto: exit $rc: $(report "$f") $(tail -3 "$tmp/late-goto.err")"
kn_stop "$sites_pid"

# the changed checkout: the slow page is still judged on what it shows
kn_sites_overlay "$sites/slow" "$sites/slow-v2" "$tmp/root-v2" || kn_fail "no slow-v2 root"
serve "$tmp/root-v2" v2
replay v2 late-load changed
f=$tmp/changed/late-load.json
[ "$rc" = 1 ] && jq -e '.status == "broken" and .broken.step == 3 and .broken.reason == "element not found"
    and .replay.steps[1].settled == false' "$f" >/dev/null &&
  kn_ok "slow-v2 (orders paused): broken at step 3, element not found" ||
  kn_fail "slow-v2: exit $rc: $(report "$f")"
kn_stop "$sites_pid"

# the browser frozen mid-step: its commands go unanswered past command_timeout_ms
serve "$sites/slow" v1b
kn_spawn -o "$tmp/frozen.out" -e "$tmp/frozen.err" frozen "$kn" replay --validate --no-repairs --config "$tmp/keynode.yaml" \
  --browser "$cdp" --tasks "$tmp/tasks-v1b.yaml" --task late-load --out "$tmp/frozen"
rpid=$kn_pid
stopped=
kn_wait_for "the replay at step 2" 20 kn_ended_or "$rpid" grep -q 'step 2/3' "$tmp/frozen.err"
grep -q 'step 2/3' "$tmp/frozen.err" && kill -STOP "$cpid" && stopped=1
[ -n "$stopped" ] && kn_wait_for "the replay at step 3" 20 kn_ended_or "$rpid" grep -q 'step 3/3' "$tmp/frozen.err"
kill -CONT "$cpid"
wait "$rpid"
rc=$?
f=$tmp/frozen/late-load.json
[ -n "$stopped" ] && [ "$rc" = 2 ] && jq -e '.status == "error" and .broken.step == 3 and .broken.reason == "browser timeout"
    and (.broken.detail | test("the browser did not answer [0-9]+ command\\(s\\) in time"))' "$f" >/dev/null &&
  kn_ok "browser frozen during step 3: error (browser timeout), not broken" ||
  kn_fail "frozen: stopped=$stopped exit $rc: $(report "$f") $(cat "$tmp/frozen.out") $(tail -3 "$tmp/frozen.err")"
kn_finish
