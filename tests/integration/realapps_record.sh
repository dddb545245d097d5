#!/usr/bin/env bash
# realapps_record.sh — `keynode record` on a real application nobody on the team wrote (issue 13): the
# private DokuWiki of tests/realapps/dokuwiki.sh. agents/dokuwiki.mjs searches the wiki for "tent" and
# opens Tent care while `keynode record` writes the reference workflow of dokuwiki-tent-care; then
# `keynode replay --validate --workflows` of that recorded workflow:
#   - the seeded wiki: passed, no drift, every postcondition held;
#   - a theme change (tests/realapps/dokuwiki.sh theme): passed (drift allowed);
#   - search disabled by configuration: broken at the recorded search step (the search box is gone);
#   - the page deleted through DokuWiki's editor (agents/dokuwiki-admin.mjs delete): broken at the
#     recorded click on the search hit, element not found, no key node blamed;
#   - the page "renamed" through the editor (its text moved to trailhead:tent_maintenance, the old
#     page deleted): broken at the same click — the recorded selector now finds the tent_maintenance
#     hit in the tent_care hit's place, which must not be taken for it (the recorded text disagrees);
#   - restored through the editor: passed again;
#   - a permissions change through DokuWiki's ACL (dokuwiki.sh acl, acl-readonly): with the ACL on, an
#     edit of the Returns page recorded from agents/dokuwiki-editor.mjs passes; once an ACL rule makes the
#     page read-only it is broken at the recorded click on "Edit this page" (the page tools now offer
#     "Show pagesource" under the same href, refused: the recorded text disagrees); the rule removed,
#     passed again.
# The expected steps come from the recorded file (the step numbers of its `type` and `click`), not
# from constants. Env: KN_CHROMIUM, KN_KEEP=1. Exit 0 all checks passed, 1 any failed.
# usage: realapps_record.sh KEYNODE REPO_DIR
set -u -o pipefail
kn=${1:?usage: realapps_record.sh KEYNODE REPO_DIR}
repo=$(cd "${2:?usage: realapps_record.sh KEYNODE REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init rarec
here=$repo/tests/integration
dw=$repo/tests/realapps/dokuwiki.sh
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
"$dw" install "$tmp/dokuwiki" >"$tmp/install.log" 2>&1 && kn_ok "DokuWiki installed and seeded" ||
  { kn_fail "DokuWiki install: $(tail -2 "$tmp/install.log")"; kn_finish; }
wport=$(kn_free_port)
wpid=$("$dw" start "$tmp/dokuwiki" "$wport")
kn_pids+=("$wpid")
base=http://127.0.0.1:$wport
for _ in $(seq 1 200); do curl -s -o /dev/null "$base/doku.php" && break; sleep 0.05; done
sed "s#BASE#$base#g" "$repo/tests/realapps/dokuwiki-tasks.yaml" >"$tmp/dw.yaml"
kn_chromium_start "$tmp" || kn_finish
task=dokuwiki-tent-care wf=$tmp/workflows

# record TASKFILE TASK AGENT — record TASK into $wf while agents/AGENT.mjs performs it; the recording
# must end by itself once every key node was reached (no idle timer a loaded machine could overrun)
record() {
  "$kn" record --browser "$cdp" --tasks "$1" --task "$2" --out "$wf" >"$tmp/rec-$2.out" 2>"$tmp/rec-$2.err" &
  local rpid=$!
  kn_pids+=("$rpid")
  for _ in $(seq 1 300); do grep -q '^recording task' "$tmp/rec-$2.out" 2>/dev/null && break; sleep 0.1; done
  node "$here/agents/$3.mjs" "$cdp" "$base" "$tmp/marks-$2" >"$tmp/agent-$2.out" 2>&1 ||
    kn_fail "$3: the agent failed: $(tail -2 "$tmp/agent-$2.out" | tr '\n' ' ')"
  for _ in $(seq 1 300); do kill -0 "$rpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$rpid" 2>/dev/null && kn_fail "$2: record did not end when every key node was reached"
  kn_stop "$rpid"
  grep -q '^every key node reached' "$tmp/rec-$2.out" && kn_ok "$2: record ended: every key node reached" ||
    kn_fail "$2: record: $(tail -3 "$tmp/rec-$2.out")"
  [ -f "$wf/$2.yaml" ] && kn_ok "$2: recorded $(grep -c '^  step ' "$tmp/rec-$2.out") steps at $(sed -n 's/^viewport: //p' "$wf/$2.yaml")" ||
    { kn_fail "$2: no workflow: $(tail -5 "$tmp/rec-$2.out" "$tmp/rec-$2.err")"; kn_finish; }
}
record "$tmp/dw.yaml" $task dokuwiki
# step numbers in the recorded file: the search box's type, and the click on the result
n_type=$(grep '^  - ' "$wf/$task.yaml" | grep -n '^  - type:' | head -1 | cut -d: -f1)
n_click=$(grep '^  - ' "$wf/$task.yaml" | grep -n '^  - click:' | tail -1 | cut -d: -f1)
[ -n "$n_type" ] && [ -n "$n_click" ] && grep -q 'click: .*text: "tent_care (trailhead)".*href: "[^"]*id=trailhead:tent_care"' "$wf/$task.yaml" &&
  kn_ok "the workflow types into the search box at step $n_type and clicks the tent_care hit at step $n_click" ||
  kn_fail "recorded workflow: $(cat "$wf/$task.yaml")"

# validate NAME [TASKFILE TASK] — replay --validate of the recorded workflow; r is the report
validate() {
  mkdir -p "$tmp/r-$1"
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "${2:-$tmp/dw.yaml}" --workflows "$wf" --out "$tmp/r-$1" >"$tmp/r-$1.out" 2>&1
  r=$tmp/r-$1/${3:-$task}.json
}
show() { jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift}' "$r" 2>&1; }
admin() {
  node "$here/agents/dokuwiki-admin.mjs" "$cdp" "$base" "$tmp/admin-marks" "$1" >"$tmp/admin-$1.out" 2>&1 &&
    kn_ok "through DokuWiki's editor: $1" || kn_fail "editor $1: $(tail -2 "$tmp/admin-$1.out" | tr '\n' ' ')"
  # the search index, as DokuWiki's own indexer builds it after an edit
  php "$tmp/dokuwiki/wiki/bin/indexer.php" -q >/dev/null 2>&1 || kn_fail "indexer after $1"
}

validate seeded
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$r" >/dev/null &&
  kn_ok "seeded wiki: passed, no drift, postconditions held" || kn_fail "seeded: $(show)"
"$dw" theme "$tmp/dokuwiki"
validate theme
jq -e '.status == "passed"' "$r" >/dev/null && kn_ok "theme change: passed ($(jq '.replay.drift | length' "$r") drift warnings)" || kn_fail "theme: $(show)"
"$dw" reset "$tmp/dokuwiki"
"$dw" disable-search "$tmp/dokuwiki"
validate no-search
jq -e --argjson s "$n_type" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null' "$r" >/dev/null &&
  kn_ok "search disabled: broken at step $n_type (the search box), element not found" || kn_fail "no search: $(show), want step $n_type"
"$dw" reset "$tmp/dokuwiki"
admin delete
curl -s "$base/doku.php?id=trailhead:tent_care" >"$tmp/deleted.html"
[ "$(grep -c 'does not exist anymore' "$tmp/deleted.html")" = 1 ] &&
  kn_ok "the page is gone (DokuWiki: it does not exist anymore)" || kn_fail "the page still exists"
validate deleted
jq -e --argjson s "$n_click" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null' "$r" >/dev/null &&
  kn_ok "page deleted: broken at step $n_click (its search result), element not found" || kn_fail "deleted: $(show), want step $n_click"
admin restore
admin rename
curl -s "$base/doku.php?do=search&q=tent" >"$tmp/renamed.html"
grep -q "tent_maintenance (trailhead)" "$tmp/renamed.html" &&
  ! grep -q "tent_care (trailhead)" "$tmp/renamed.html" &&
  kn_ok "renamed: the search lists tent_maintenance where tent_care was" || kn_fail "renamed: not what the search lists"
validate renamed
jq -e --argjson s "$n_click" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null' "$r" >/dev/null &&
  kn_ok "page renamed: broken at step $n_click, the tent_maintenance hit not taken for tent_care" || kn_fail "renamed: $(show), want step $n_click"
admin restore
validate restored
jq -e '.status == "passed" and (.replay.drift | length == 0)' "$r" >/dev/null && kn_ok "restored through the editor: passed again, no drift" || kn_fail "restored: $(show)"

# ---- a permissions change: DokuWiki's ACL on (visitors may edit), an edit of the Returns page recorded
# (agents/dokuwiki-editor.mjs), then the page made read-only by an ACL rule: the page tools offer "Show
# pagesource" (same href) where "Edit this page" was, so the replay breaks at the recorded click on it
"$dw" acl "$tmp/dokuwiki"
sed "s#BASE#$base#g" "$repo/tests/realapps/dokuwiki-acl-tasks.yaml" >"$tmp/acl.yaml"
et=dokuwiki-edit-returns wf=$tmp/acl-workflows
record "$tmp/acl.yaml" $et dokuwiki-editor
n_edit=$(grep '^  - ' "$wf/$et.yaml" | grep -n '^  - click: .*text: "Edit this page"' | head -1 | cut -d: -f1)
[ -n "$n_edit" ] && grep -q '^  - type: { selector: "#wiki__text"' "$wf/$et.yaml" &&
  kn_ok "$et: the workflow clicks Edit this page at step $n_edit and types into the editor" || kn_fail "$et workflow: $(cat "$wf/$et.yaml")"
validate acl-edit "$tmp/acl.yaml" $et
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$r" >/dev/null &&
  kn_ok "ACL on, the page editable: passed, no drift, postconditions held" || kn_fail "acl editable: $(show)"
"$dw" acl-readonly "$tmp/dokuwiki"
curl -s "$base/doku.php?id=trailhead:returns" >"$tmp/readonly.html"
grep -q 'Show pagesource' "$tmp/readonly.html" && ! grep -q 'Edit this page' "$tmp/readonly.html" &&
  kn_ok "DokuWiki's ACL: the Returns page is read-only (Show pagesource, no Edit this page)" || kn_fail "the ACL rule did not make the page read-only"
validate acl-readonly "$tmp/acl.yaml" $et
jq -e --argjson s "$n_edit" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null
   and (.broken.detail | test("recorded text .Edit this page., the element.s is .Show pagesource."))' "$r" >/dev/null &&
  kn_ok "page read-only: broken at step $n_edit (Edit this page), the link there is Show pagesource" || kn_fail "read-only: $(show), want step $n_edit"
"$dw" acl "$tmp/dokuwiki"
validate acl-again "$tmp/acl.yaml" $et
jq -e '.status == "passed" and (.replay.drift | length == 0)' "$r" >/dev/null && kn_ok "the ACL rule removed: passed again" || kn_fail "acl again: $(show)"
kn_finish
