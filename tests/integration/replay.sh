#!/bin/bash
# replay.sh — replay validation (`keynode replay --validate`) against real headless Chromium and the
# local sites: v1 (tests/sites) passes every task with no drift; v2 (tests/sites/v2 laid over a copy of
# tests/sites) gives exactly the verdicts of tests/sites/v2/expected.json (status, failing step or key
# node, drift list with the locator used and the proposed selector); a failure has a PNG screenshot
# (magic bytes), a URL and a DOM excerpt; a closed port gives "error" (exit 2). Missing tools fail.
# usage: replay.sh KEYNODE SOURCE_DIR
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init replay
for t in jq python3 curl; do command -v $t >/dev/null || kn_fail "missing $t"; done
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish

# validate DIR SITE_ROOT OUTDIR — serve SITE_ROOT, run every task; sets vrc
validate() {
  kn_sites_start "$kn" "$2" "$tmp/sites-$1.log" || return 1
  sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$sites/tasks.yaml" >"$tmp/tasks-$1.yaml"
  mkdir -p "$3"
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-$1.yaml" --out "$3" >"$tmp/$1.out" 2>"$tmp/$1.err"
  vrc=$?
  kn_stop "$sites_pid"
}

# --- v1: everything passes, no drift
validate v1 "$sites" "$tmp/v1"
[ "$vrc" = 0 ] && kn_ok "v1: exit 0" || { kn_fail "v1: exit $vrc"; cat "$tmp/v1.out" "$tmp/v1.err"; }
n=0
for f in "$tmp"/v1/*.json; do
  n=$((n + 1)); t=$(basename "$f" .json)
  jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | .outcome == "ok"] | all)
         and ([.replay.key_nodes[] | .reached] | all) and .completion == true and (has("broken") | not)' "$f" >/dev/null &&
    kn_ok "v1 $t: passed, every step ok by its selector, every key node reached" || kn_fail "v1 $t: $(jq -c '{status, broken, drift: .replay.drift}' "$f")"
done
want=$(grep -c '^  - id:' "$sites/tasks.yaml")
[ "$n" = "$want" ] && kn_ok "v1: a report per task ($n)" || kn_fail "v1: $n reports, $want tasks"
ls "$tmp"/v1/*.png >/dev/null 2>&1 && kn_fail "v1: a screenshot was written for a passing task" || kn_ok "v1: no screenshots"

# --- v2: the changed sites
root=$tmp/v2root
kn_sites_v2_root "$sites" "$root"
validate v2 "$root" "$tmp/v2"
[ "$vrc" = 1 ] && kn_ok "v2: exit 1 (a task broken)" || { kn_fail "v2: exit $vrc"; cat "$tmp/v2.out" "$tmp/v2.err"; }
grep -q 'drift: step 2 selector #new-post-link no longer matches; use #compose-link' "$tmp/v2.out" &&
  kn_ok "v2: the drift warning is printed with the proposed selector" || kn_fail "v2: no drift line: $(cat "$tmp/v2.out")"
exp=$sites/v2/expected.json
for f in "$tmp"/v2/*.json; do
  t=$(basename "$f" .json)
  e=$(jq -c --arg t "$t" '.[$t] // {"status": "passed", "drift": []}' "$exp")
  jq -e --arg t "$t" --argjson e "$e" '
    .status == $e.status
    and ([.replay.drift[] | {step, locator, proposed_selector}] == $e.drift)
    and ([.replay.drift[] | .locator_score >= 0.6] | all)
    and (if $e.status == "passed" then ([.replay.key_nodes[] | .reached] | all) and ([.replay.steps[] | .outcome | IN("ok", "ok-by-fallback")] | all)
         else .broken.step == ($e.step // null)
           and (if $e.key_node then .broken.key_node == $e.key_node else true end)
           and (if $e.reason then .broken.reason == $e.reason else true end)
           and (if $e.not_reached then ([.replay.key_nodes[] | select(.reached | not) | .id] == $e.not_reached) else true end)
           and (.broken.url | test("^http://127\\.0\\.0\\.1:"))
           and (.broken.dom_excerpt | length > 20 and length <= 2052)
           and .broken.screenshot == ($t + ".png") end)' "$f" >/dev/null &&
    kn_ok "v2 $t: $(jq -r '.status' "$f") as expected ($e)" ||
    kn_fail "v2 $t: got $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift, kn: .replay.key_nodes}' "$f"), want $e"
  if jq -e '.status != "passed"' "$f" >/dev/null; then
    [ "$(head -c 8 "$tmp/v2/$t.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
      kn_ok "v2 $t: the screenshot is a PNG" || kn_fail "v2 $t: no PNG screenshot"
  fi
done
for t in $(jq -r 'keys[] | select(startswith("_") | not)' "$exp"); do
  [ -f "$tmp/v2/$t.json" ] || kn_fail "v2: no report for $t"
done
jq -e '.replay.steps[1].outcome == "ok-by-fallback" and .replay.steps[1].locator_score == 1' "$tmp/v2/forum-new-post.json" >/dev/null &&
  kn_ok "v2 forum-new-post: step 2 is ok-by-fallback" || kn_fail "v2 forum-new-post: step 2 not ok-by-fallback"

# --- an unreachable site (a closed port): error, exit 2
closed=$(kn_free_port)
sed "s/127\.0\.0\.1:8100/127.0.0.1:$closed/g" "$sites/tasks.yaml" >"$tmp/tasks-closed.yaml"
mkdir -p "$tmp/closed"
"$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-closed.yaml" --task forum-new-post --out "$tmp/closed" >"$tmp/closed.out" 2>&1
rc=$?
[ "$rc" = 2 ] && kn_ok "closed port: exit 2" || kn_fail "closed port: exit $rc ($(cat "$tmp/closed.out"))"
jq -e '.status == "error" and .broken.step == 1 and .broken.reason == "site unreachable"
       and (.replay.steps[0].detail | test("ERR_CONNECTION_REFUSED"))' "$tmp/closed/forum-new-post.json" >/dev/null &&
  kn_ok "closed port: status error (site unreachable, ERR_CONNECTION_REFUSED), not broken" ||
  kn_fail "closed port: $(cat "$tmp/closed/forum-new-post.json" 2>/dev/null)"

# --- several validations on one connection loop leave no browser contexts or tabs behind
pages=$(curl -s "$cdp/json/list" | jq '[.[] | select(.type == "page")] | length')
[ "$pages" = 1 ] && kn_ok "every replay's context was disposed (1 page left)" || kn_fail "$pages pages left open"
kn_finish
