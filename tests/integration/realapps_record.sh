#!/usr/bin/env bash
# realapps_record.sh — `keynode record` on a real application nobody on the team wrote: the
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
#     passed again; a theme switch that renames "Edit this page" to "Edit" (a language string override,
#     same href and place) passes with a drift at that click (a relabel, not another element);
#   - WordPress (tests/realapps/wordpress.sh, a private MariaDB): agents/wordpress.mjs opens the post "Pitching
#     a tent in the rain" while its workflow is recorded; it passes with no drift, is broken at the recorded
#     click on the post's title when the post is renamed (its link unchanged: the renamed link is refused)
#     and when the administrator moves it to the trash in wp-admin (agents/wordpress-admin.mjs); restored,
#     passed again.
# The expected steps come from the recorded file (the step numbers of its `type` and `click`), not
# from constants. Env: KN_CHROMIUM, KN_KEEP=1. Exit 0 all checks passed, 1 any failed.
# The sanitizer build passes "quick" (third argument): the post-renamed and ACL-rule-removed checks are left out.
# usage: realapps_record.sh KEYNODE REPO_DIR [quick]
#
# The sanitizer build runs it "quick" (two of the re-checks left out).
# ctest: integration.realapps_record ARGS=keynode,repo,variant TIMEOUT=600
set -u -o pipefail
quick=${3:-}
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
kn_wait_for "DokuWiki to answer" 20 curl -s -o /dev/null "$base/doku.php"
kn_task_at_site "$repo/tests/realapps/dokuwiki-tasks.yaml" "$tmp/dw.yaml" "BASE=$base"
kn_chromium_start "$tmp" || kn_finish
task=dokuwiki-tent-care wf=$tmp/workflows

# record TASKFILE TASK AGENT — record TASK into $wf while agents/AGENT.mjs performs it; the recording
# must end by itself once every key node was reached (no idle timer a loaded machine could overrun)
record() {
  kn_spawn -o "$tmp/rec-$2.out" -e "$tmp/rec-$2.err" "rec-$2" "$kn" record --browser "$cdp" --tasks "$1" --task "$2" --out "$wf"
  local rpid=$kn_pid
  kn_wait_for "record to say it is recording" 30 grep -q '^recording task' "$tmp/rec-$2.out"
  node "$here/agents/$3.mjs" "$cdp" "$base" "$tmp/marks-$2" >"$tmp/agent-$2.out" 2>&1 ||
    kn_fail "$3: the agent failed: $(tail -2 "$tmp/agent-$2.out" | tr '\n' ' ')"
  kn_wait_for "record to end by itself" 30 kn_ended "$rpid"
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

# dwc CHANGE — dokuwiki.sh CHANGE, then one page view with its stylesheet and scripts: DokuWiki rebuilds
# its emptied cache (the LESS compile of lib/exe/css.php) once here, not under a replay's load timeout
dwc() {
  "$dw" "$1" "$tmp/dokuwiki"
  local u
  for u in $(curl -s "$base/doku.php?id=start" | grep -o 'lib/exe/\(css\|js\)\.php[^"]*' | sed 's/&amp;/\&/g'); do
    curl -s -o /dev/null "$base/$u"
  done
}

validate seeded
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$r" >/dev/null &&
  kn_ok "seeded wiki: passed, no drift, postconditions held" || kn_fail "seeded: $(show)"
dwc theme
validate theme
jq -e '.status == "passed"' "$r" >/dev/null && kn_ok "theme change: passed ($(jq '.replay.drift | length' "$r") drift warnings)" || kn_fail "theme: $(show)"
dwc reset
dwc disable-search
validate no-search
jq -e --argjson s "$n_type" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null' "$r" >/dev/null &&
  kn_ok "search disabled: broken at step $n_type (the search box), element not found" || kn_fail "no search: $(show), want step $n_type"
dwc reset
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
dwc acl
kn_task_at_site "$repo/tests/realapps/dokuwiki-acl-tasks.yaml" "$tmp/acl.yaml" "BASE=$base"
et=dokuwiki-edit-returns wf=$tmp/acl-workflows
record "$tmp/acl.yaml" $et dokuwiki-editor
n_edit=$(grep '^  - ' "$wf/$et.yaml" | grep -n '^  - click: .*text: "Edit this page"' | head -1 | cut -d: -f1)
[ -n "$n_edit" ] && grep -q '^  - type: { selector: "#wiki__text"' "$wf/$et.yaml" &&
  kn_ok "$et: the workflow clicks Edit this page at step $n_edit and types into the editor" || kn_fail "$et workflow: $(cat "$wf/$et.yaml")"
validate acl-edit "$tmp/acl.yaml" $et
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$r" >/dev/null &&
  kn_ok "ACL on, the page editable: passed, no drift, postconditions held" || kn_fail "acl editable: $(show)"
# a theme switch that renames the page tools' "Edit this page" to "Edit" (same href, same place): the
# same control relabelled — passed, the click a drift whose detail says so
dwc theme-relabel
curl -s "$base/doku.php?id=trailhead:returns" >"$tmp/relabel.html"
grep -q '<span>Edit</span>' "$tmp/relabel.html" && ! grep -q 'Edit this page' "$tmp/relabel.html" &&
  kn_ok "theme with a language override: the page tools say Edit, not Edit this page" || kn_fail "the language override did not rename the link"
validate acl-relabel "$tmp/acl.yaml" $et
jq -e --argjson s "$n_edit" '.status == "passed" and ([.replay.drift[] | .step] | index($s) != null)
   and (.replay.steps[$s - 1].detail | test("recorded text .Edit this page., the element.s is .Edit., relabelled"))' "$r" >/dev/null &&
  kn_ok "Edit this page relabelled Edit: passed, step $n_edit a drift ($(jq -r --argjson s "$n_edit" '.replay.steps[$s - 1].detail' "$r"))" ||
  kn_fail "relabelled: $(show)"
dwc reset
dwc acl
dwc acl-readonly
curl -s "$base/doku.php?id=trailhead:returns" >"$tmp/readonly.html"
grep -q 'Show pagesource' "$tmp/readonly.html" && ! grep -q 'Edit this page' "$tmp/readonly.html" &&
  kn_ok "DokuWiki's ACL: the Returns page is read-only (Show pagesource, no Edit this page)" || kn_fail "the ACL rule did not make the page read-only"
validate acl-readonly "$tmp/acl.yaml" $et
jq -e --argjson s "$n_edit" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null
   and (.broken.detail | test("recorded text .Edit this page., the element.s is .Show pagesource."))' "$r" >/dev/null &&
  kn_ok "page read-only: broken at step $n_edit (Edit this page), the link there is Show pagesource" || kn_fail "read-only: $(show), want step $n_edit"
if [ -z "$quick" ]; then
  dwc acl
  validate acl-again "$tmp/acl.yaml" $et
  jq -e '.status == "passed" and (.replay.drift | length == 0)' "$r" >/dev/null && kn_ok "the ACL rule removed: passed again" || kn_fail "acl again: $(show)"
fi

# ---- WordPress on a private MariaDB (tests/realapps/wordpress.sh): agents/wordpress.mjs opens the post
# "Pitching a tent in the rain" from the blog's latest posts while its workflow is recorded
wp=$repo/tests/realapps/wordpress.sh
mkdir -p "$tmp/wordpress"
pport=$(kn_free_port)
trap '"$wp" stop "$tmp/wordpress" >/dev/null 2>&1; kn_lib_cleanup' EXIT
"$wp" install "$tmp/wordpress" "$pport" >"$tmp/wp-install.log" 2>&1 && kn_ok "WordPress installed on a private MariaDB and seeded" ||
  { kn_fail "WordPress install: $(tail -2 "$tmp/wp-install.log")"; kn_finish; }
ppid_=$("$wp" start "$tmp/wordpress" "$pport")
kn_pids+=("$ppid_")
base=http://127.0.0.1:$pport
kn_wait_for "WordPress to answer" 20 curl -s -o /dev/null "$base/"
kn_task_at_site "$repo/tests/realapps/wordpress-tasks.yaml" "$tmp/wp.yaml" "BASE=$base"
wt=wordpress-tent-post wf=$tmp/wp-workflows
record "$tmp/wp.yaml" $wt wordpress
n_post=$(grep '^  - ' "$wf/$wt.yaml" | grep -n '^  - click: .*text: "Pitching a tent in the rain"' | head -1 | cut -d: -f1)
[ -n "$n_post" ] && kn_ok "$wt: the workflow clicks the post's title at step $n_post" || kn_fail "$wt workflow: $(cat "$wf/$wt.yaml")"
validate wp-seeded "$tmp/wp.yaml" $wt
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$r" >/dev/null &&
  kn_ok "WordPress seeded: the recorded workflow passes, no drift, postconditions held" || kn_fail "wp seeded: $(show)"
# the post renamed, its link (?p=5) unchanged: the link in its place is not the recorded one
if [ -z "$quick" ]; then
  "$wp" rename-post "$tmp/wordpress"
  validate wp-renamed "$tmp/wp.yaml" $wt
  jq -e --argjson s "$n_post" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null
     and (.broken.detail | test("Pitching a tent in a storm"))' "$r" >/dev/null &&
    kn_ok "post renamed: broken at step $n_post, the renamed post's link not taken for it" || kn_fail "wp renamed: $(show), want step $n_post"
  "$wp" reset "$tmp/wordpress"
fi
# the post moved to the trash by the administrator in wp-admin (Posts → All Posts → Trash)
node "$here/agents/wordpress-admin.mjs" "$cdp" "$base" "$tmp/wp-admin-marks" trash >"$tmp/wp-admin.out" 2>&1 &&
  kn_ok "through wp-admin: the post moved to the trash" || kn_fail "wp-admin trash: $(tail -2 "$tmp/wp-admin.out" | tr '\n' ' ')"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/?p=5")" = 404 ] && kn_ok "the trashed post is gone (404)" || kn_fail "the trashed post still answers"
validate wp-trashed "$tmp/wp.yaml" $wt
jq -e --argjson s "$n_post" '.status == "broken" and .broken.step == $s and .broken.reason == "element not found" and .broken.key_node == null' "$r" >/dev/null &&
  kn_ok "post trashed: broken at step $n_post (its link), element not found" || kn_fail "wp trashed: $(show), want step $n_post"
"$wp" reset "$tmp/wordpress"
validate wp-restored "$tmp/wp.yaml" $wt
jq -e '.status == "passed" and (.replay.drift | length == 0)' "$r" >/dev/null && kn_ok "WordPress restored: passed again, no drift" || kn_fail "wp restored: $(show)"
kn_finish
