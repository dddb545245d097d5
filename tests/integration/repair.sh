#!/bin/bash
# repair.sh — repair proposals of `keynode replay --validate`, real headless Chromium and the
# local sites. On the changed sites of tests/sites/v2: a step passed only by a fallback (forum-new-post: the
# renamed id) or by healing (forum-gear-category: the relabelled tab) yields exactly the expected selector
# proposal, verified by replay; a renamed URL parameter (forum-compare-replies) yields verified key-node
# proposals (and the steps' outdated href hints); the Mind2Web-Live task 1 (a renamed page) yields a key node in
# the Mind2Web-Live JSON shape. Each proposal applied to a copy of the task file / workflow file and replayed
# from that file passes with zero drift. On tests/integration/repair-fixtures: an element key node whose
# selector moved (verified), and a generated id that changes on every load: the proposal fails its
# verification and is reported `verified: false` (kept, marked, printed as not a fix). The user's files are
# never written. Every report validates against schemas/replay-report.schema.json.
# usage: repair.sh KEYNODE SOURCE_DIR
#
# ctest: integration.repair ARGS=keynode,repo TIMEOUT=300
kn=$1 src=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
kn_lib_init repair
for t in jq python3 node; do command -v $t >/dev/null || kn_fail "missing $t"; done
"$here/node/ensure.sh" --no-chromium >/dev/null || kn_fail "node packages (node/ensure.sh)"
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish
rfc3339='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'

# validate NAME TASKFILE TASK [OPTION…] — replay --validate one task into $tmp/NAME/TASK.json; sets vrc
validate() {
  local name=$1 tasks=$2 task=$3
  shift 3
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tasks" --task "$task" --out "$tmp/$name" "$@" \
    >"$tmp/$name-$task.out" 2>"$tmp/$name-$task.err"
  vrc=$?
  # 0 passed, 1 broken; anything else (2, a sanitizer's abort) is a failure of its own
  [ "$vrc" -lt 2 ] || kn_fail "$name $task: exit $vrc: $(tail -5 "$tmp/$name-$task.err")"
}

# apply FILE KIND TASK ITEM SNIPPET — write a proposal into a copy of a file, as a person would:
#   step     TASK ITEM: replace step ITEM (1-based) of TASK's `steps:` in a native task file (and its `after:` line)
#   node     TASK ITEM: replace key node `- id: ITEM` of TASK (and its target line) in a native task file
#   wfstep   -    ITEM: replace step ITEM of a workflow file (and its `after:` line)
apply() {
  python3 - "$@" <<'PY'
import sys
path, kind, task, item, snippet = sys.argv[1:6]
lines = open(path).read().split('\n')
def put(at, n, indent):
    block = [indent + l if l else l for l in snippet.rstrip('\n').split('\n')]
    lines[at:at + n] = block
def span(at, indent):  # the item's line and the continuation lines indented deeper than its dash
    n = 1
    while at + n < len(lines) and lines[at + n].startswith(indent + '  ') and not lines[at + n].lstrip().startswith('- '):
        n += 1
    return n
if kind == 'wfstep':
    at = [i for i, l in enumerate(lines) if l.startswith('  - ')][int(item) - 1]
    put(at, span(at, '  '), '  ')
else:
    start = lines.index('  - id: ' + task)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith('  - id: ')), len(lines))
    if kind == 'step':
        s = lines.index('    steps:', start)
        at = [i for i in range(s, end) if lines[i].startswith('      - ')][int(item) - 1]
    else:
        at = next(i for i in range(start, end) if lines[i].strip() == '- id: ' + item)
    put(at, span(at, '      '), '      ')
open(path, 'w').write('\n'.join(lines))
PY
}

# --- the changed sites (tests/sites/v2)
root=$tmp/v2root
kn_sites_v2_root "$sites" "$root"
kn_sites_start "$kn" "$root" "$tmp/sites-v2.log" || kn_finish
kn_task_at_site "$sites/tasks.yaml" "$tmp/tasks.yaml" "$port"
before=$(md5sum <"$tmp/tasks.yaml")
for t in forum-new-post forum-gear-category forum-compare-replies; do validate v2 "$tmp/tasks.yaml" $t; done
[ "$(md5sum <"$tmp/tasks.yaml")" = "$before" ] && kn_ok "the task file is left as it was" || kn_fail "the task file was written"

f=$tmp/v2/forum-new-post.json
jq -e --arg re "$rfc3339" '.status == "passed" and (.repairs | length == 1) and (.repairs[0] | del(.verified_at)) == {
    step: 2, kind: "selector", key_node: null, was: "#new-post-link", proposed: "#compose-link",
    yaml: "- click: { selector: \"#compose-link\", text: \"New post\", id: \"compose-link\", href: \"/forum/new.html\" }\n",
    verified: true, verify_report: {status: "passed", drift_steps: []}} and (.repairs[0].verified_at | test($re))' "$f" >/dev/null &&
  kn_ok "forum-new-post (passed by the href fallback): step 2 #new-post-link -> #compose-link, id hint too, verified" ||
  kn_fail "forum-new-post repairs: $(jq -c .repairs "$f")"
grep -q "repair: step 2 selector: #new-post-link -> #compose-link" "$tmp/v2-forum-new-post.out" &&
  grep -q "proposal verified by replay at 20" "$tmp/v2-forum-new-post.out" &&
  kn_ok "the terminal shows the proposal and 'proposal verified by replay at …'" || kn_fail "terminal: $(cat "$tmp/v2-forum-new-post.out")"

f=$tmp/v2/forum-gear-category.json
jq -e '.status == "passed" and .replay.drift[0].locator == "healed" and (.repairs | length == 1) and (.repairs[0] | del(.verified_at)) == {
    step: 2, kind: "selector", key_node: null, was: "//ul[@id='"'"'category-tabs'"'"']//a[normalize-space()='"'"'Gear & equipment'"'"']",
    proposed: "//a[normalize-space()='"'"'Gear and equipment'"'"']",
    yaml: "- click: { selector: \"//a[normalize-space()='"'"'Gear and equipment'"'"']\", role: \"link\" }\n",
    verified: true, verify_report: {status: "passed", drift_steps: []}}' "$f" >/dev/null &&
  kn_ok "forum-gear-category (passed by healing): step 2 -> the text selector of the relabelled tab, verified" ||
  kn_fail "forum-gear-category repairs: $(jq -c .repairs "$f")"

f=$tmp/v2/forum-compare-replies.json
jq -e '.status == "broken" and ([.repairs[] | {step, kind, key_node, was, proposed, verified}] == [
    {step: 2, kind: "selector", key_node: null, was: "href: \"/forum/post.html?id=3\"", proposed: "href: \"/forum/post.html?post=3\"", verified: true},
    {step: 4, kind: "selector", key_node: null, was: "href: \"/forum/post.html?id=5\"", proposed: "href: \"/forum/post.html?post=5\"", verified: true},
    {step: 2, kind: "url_key_node", key_node: "stove-post", was: "key: id", proposed: "key: post", verified: true},
    {step: 4, kind: "url_key_node", key_node: "tent-post", was: "/forum/post\\.html\\?id=5$", proposed: "/forum/post\\.html\\?post=5$", verified: true}])
  and .repairs[2].yaml == "- id: \"stove-post\"\n  url: { key: \"post\", exact: \"3\" }\n"
  and .repairs[3].yaml == "- id: \"tent-post\"\n  url: { regex: \"/forum/post\\\\.html\\\\?post=5$\" }\n"' "$f" >/dev/null &&
  kn_ok "forum-compare-replies (a renamed URL parameter): key nodes stove-post (key id -> post) and tent-post (regex), the steps' href hints, all verified" ||
  kn_fail "forum-compare-replies repairs: $(jq -c .repairs "$f")"

# apply every proposal to a copy of the task file and replay from it: zero drift, every key node reached
cp "$tmp/tasks.yaml" "$tmp/applied.yaml"
for t in forum-new-post forum-gear-category forum-compare-replies; do
  n=$(jq '.repairs | length' "$tmp/v2/$t.json")
  for i in $(seq 0 $((n - 1))); do
    r=$(jq -c ".repairs[$i]" "$tmp/v2/$t.json")
    if [ "$(jq -r .kind <<<"$r")" = selector ]; then
      apply "$tmp/applied.yaml" step "$t" "$(jq -r .step <<<"$r")" "$(jq -r .yaml <<<"$r")"
    else
      apply "$tmp/applied.yaml" node "$t" "$(jq -r .key_node <<<"$r")" "$(jq -r .yaml <<<"$r")"
    fi
  done
  validate applied "$tmp/applied.yaml" $t --no-repairs
  jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.key_nodes[] | .reached] | all)
         and ([.replay.steps[] | .outcome == "ok"] | all) and (has("repairs") | not)' "$tmp/applied/$t.json" >/dev/null &&
    kn_ok "$t with the proposals applied, replayed from the file: passed, zero drift, every key node reached" ||
    kn_fail "$t applied: exit $vrc $(jq -c '{status, broken, drift: .replay.drift}' "$tmp/applied/$t.json" 2>&1) $(cat "$tmp/applied-$t.err")"
done
"$kn" validate "$tmp/applied.yaml" >"$tmp/applied-validate.out" 2>&1 && kn_ok "keynode validate accepts the applied task file" ||
  kn_fail "keynode validate applied.yaml: $(cat "$tmp/applied-validate.out")"

# Mind2Web-Live task 1 (a renamed page, new.html -> compose.html): the key node in the JSON shape
m2w=$tmp/m2w-src
mkdir -p "$m2w"
kn_task_at_site "$sites/mind2web-live/tasks.json" "$m2w/tasks.json" "$port"
kn_task_at_site "$sites/mind2web-live/workflows" "$m2w/workflows" "$port"
validate m2w "$m2w/tasks.json" 1
f=$tmp/m2w/1.json
jq -e --arg p "$port" '.status == "broken" and ([.repairs[] | {step, kind, key_node, was, proposed, verified}] == [
    {step: 2, kind: "selector", key_node: null, was: "href: \"/notes/new.html\"", proposed: "href: \"/notes/compose.html\"", verified: true},
    {step: 3, kind: "selector", key_node: null, was: ("after.url: \"http://127.0.0.1:" + $p + "/notes/new.html\""),
     proposed: ("after.url: \"http://127.0.0.1:" + $p + "/notes/compose.html\""), verified: true},
    {step: 2, kind: "url_key_node", key_node: "k1", was: "/notes/new.html", proposed: "/notes/compose.html", verified: true}])
  and (.repairs[2].yaml | fromjson) == {match_function_name: "url_included_match",
    content: {key: "", reference_answer: "/notes/compose.html", url: ("http://127.0.0.1:" + $p + "/notes/compose.html")}}
  and (.repairs[0].yaml | test("after: \\{ url: \"http://127\\.0\\.0\\.1:[0-9]+/notes/compose\\.html\""))' "$f" >/dev/null &&
  kn_ok "Mind2Web-Live task 1 (a renamed page): key node k1 as a Mind2Web-Live evaluation object, step 2's href and after.url, step 3's after.url, verified" ||
  kn_fail "m2w task 1 repairs: $(jq -c .repairs "$f")"
app=$tmp/m2w-app
cp -r "$m2w" "$app"
apply "$app/workflows/1.yaml" wfstep - 2 "$(jq -r '.repairs[0].yaml' "$f")"
apply "$app/workflows/1.yaml" wfstep - 3 "$(jq -r '.repairs[1].yaml' "$f")"
jq --argjson e "$(jq -r '.repairs[2].yaml' "$f")" 'map(if .index == 1 then .evaluation[0] = $e else . end)' "$m2w/tasks.json" >"$app/tasks.json"
validate m2w-applied "$app/tasks.json" 1 --no-repairs
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.key_nodes[] | .reached] | all)
       and ([.replay.steps[] | select(has("postcondition")) | .postcondition] | all)' "$tmp/m2w-applied/1.json" >/dev/null &&
  kn_ok "Mind2Web-Live task 1 with the proposals applied to tasks.json and workflows/1.yaml: passed, zero drift, every postcondition held" ||
  kn_fail "m2w task 1 applied: $(jq -c '{status, broken, drift: .replay.drift}' "$tmp/m2w-applied/1.json" 2>&1)"
kn_stop "$sites_pid"

# --- tests/integration/repair-fixtures: an element key node moved; a proposal that fails its verification
root=$tmp/fixroot
mkdir -p "$root" && (cd "$sites" && tar cf - --exclude=./v2 --exclude=./v3 .) | tar xf - -C "$root" &&
  cp -r "$here/repair-fixtures/." "$root/" && rm "$root/README.md"
kn_sites_start "$kn" "$root" "$tmp/sites-fix.log" || kn_finish
kn_task_at_site "$sites/tasks.yaml" "$tmp/tasks-fix.yaml" "$port"
validate fix "$tmp/tasks-fix.yaml" shop-red-runner-cart
f=$tmp/fix/shop-red-runner-cart.json
jq -e '.status == "broken" and ([.repairs[] | {step, kind, key_node, was, proposed, yaml, verified}] == [
    {step: 4, kind: "selector", key_node: null, was: "#size", proposed: "#shoe-size",
     yaml: "- select: { selector: \"#shoe-size\", value: \"9\", id: \"shoe-size\", name: \"size\" }\n", verified: true},
    {step: 4, kind: "element_key_node", key_node: "size", was: "#size", proposed: "#shoe-size",
     yaml: "- id: \"size\"\n  element_value: { path: \"#shoe-size\", exact: \"9\" }\n", verified: true}])' "$f" >/dev/null &&
  kn_ok "shop-red-runner-cart (#size renamed): the step's selector and the element key node's path, verified" ||
  kn_fail "shop-red-runner-cart repairs: $(jq -c .repairs "$f")"
cp "$tmp/tasks-fix.yaml" "$tmp/applied-fix.yaml"
apply "$tmp/applied-fix.yaml" step shop-red-runner-cart 4 "$(jq -r '.repairs[0].yaml' "$f")"
apply "$tmp/applied-fix.yaml" node shop-red-runner-cart size "$(jq -r '.repairs[1].yaml' "$f")"
validate applied-fix "$tmp/applied-fix.yaml" shop-red-runner-cart --no-repairs
jq -e '.status == "passed" and (.replay.drift | length == 0) and ([.replay.key_nodes[] | .reached] | all)' \
  "$tmp/applied-fix/shop-red-runner-cart.json" >/dev/null &&
  kn_ok "shop-red-runner-cart with both applied, replayed from the file: passed, zero drift" ||
  kn_fail "shop-red-runner-cart applied: $(jq -c '{status, broken, drift: .replay.drift}' "$tmp/applied-fix/shop-red-runner-cart.json" 2>&1)"

validate fix "$tmp/tasks-fix.yaml" popup-newsletter
f=$tmp/fix/popup-newsletter.json
jq -e '.status == "passed" and (.repairs | length == 1) and (.repairs[0] | .step == 2 and .kind == "selector"
       and .was == "#subscribe-btn" and (.proposed | test("^#subscribe-btn-[a-z]{6}$")) and .verified == false
       and .verified_at == null and .verify_report == {status: "passed", drift_steps: [2]})' "$f" >/dev/null &&
  kn_ok "popup-newsletter (an id generated on each load): the proposal fails its verification, reported verified: false" ||
  kn_fail "popup-newsletter repairs: $(jq -c .repairs "$f")"
grep -q "NOT verified: the replay with it applied was passed, drift at step 2 — not a fix" "$tmp/fix-popup-newsletter.out" &&
  ! grep -q "proposal verified by replay" "$tmp/fix-popup-newsletter.out" &&
  kn_ok "the terminal marks it NOT verified and shows no snippet" || kn_fail "terminal: $(cat "$tmp/fix-popup-newsletter.out")"
kn_stop "$sites_pid"

# --- no sanitizer report (ASan build); every report against the schema; --no-repairs needs --validate
grep -l "Sanitizer\|runtime error:" "$tmp"/*.err >/dev/null 2>&1 &&
  kn_fail "sanitizer reports: $(grep -h -A3 "Sanitizer\|runtime error:" "$tmp"/*.err | head -20)" || kn_ok "no sanitizer report in any replay's stderr"
node "$here/schema-validate.mjs" "$src" replay-report "$tmp"/{v2,applied,m2w,m2w-applied,fix,applied-fix}/*.json >"$tmp/schema.log" 2>&1 &&
  kn_ok "every report validates against schemas/replay-report.schema.json ($(grep -c '^ok' "$tmp/schema.log") files)" ||
  kn_fail "schema: $(grep -v '^ok' "$tmp/schema.log")"
"$kn" replay --no-repairs --browser "$cdp" --tasks "$tmp/tasks.yaml" >"$tmp/usage.out" 2>&1
[ $? = 2 ] && grep -q 'needs --validate' "$tmp/usage.out" && kn_ok "--no-repairs without --validate: usage error" ||
  kn_fail "--no-repairs without --validate: $(cat "$tmp/usage.out")"
kn_finish
