#!/bin/bash
# spa.sh — recording a React single-page site (tests/sites/spa-react, Orchard) with `keynode record`
# while a Playwright agent (agents/spa-react.mjs) drives it by test id, role and label. The site is
# bundled here with esbuild twice, against React 19 and React 18 (tests/sites/spa-react/build.mjs):
# the same app, with the ids (useId) and classes (hashed) each build makes up. Checks:
# - the router's scroll restoration after a route change is not a step (the agent wheeled just before);
# - Playwright's click that a backdrop stopped and retried leaves one click step, on the button;
# - no generated id or hashed class in any recorded selector or hint;
# - recorded selectors use the test ids, hrefs and aria-labels the page has; so do --propose's key
#   nodes (valid YAML);
# - the workflow recorded on the React 19 build passes `keynode replay --validate` on the React 18 build;
# - a soft 404: on the React 19 build with item 42 taken off the catalogue (its api/items/42.json
#   deleted: the shell still answers 200, the route renders, its data request answers 404 and the page
#   says "Sorry, we couldn't find it") the same workflow is broken at step 4 (goto, Browse items, the
#   scroll, then the click that opens Item 42), reason "page shows an error", the 404 request named —
#   replayed twice, the same verdict both times;
# - item 42 off the list altogether (build.mjs --drop 42: Item 43 moves up into its row): broken at
#   step 4, element not found — healing refuses Item 41, Item 43… (the name's number is in the
#   recorded href: another item, not the same link with another count).
# usage: spa.sh KEYNODE SOURCE_DIR
#
# ctest: integration.spa ARGS=keynode,repo TIMEOUT=300
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init spa
for t in jq node; do command -v $t >/dev/null || kn_fail "missing $t"; done
here=$(cd "$(dirname "$0")" && pwd)
"$here/node/ensure.sh" || kn_finish
app=$src/tests/sites/spa-react
node "$app/build.mjs" "$tmp/root19" --react 19 && node "$app/build.mjs" "$tmp/root18" --react 18 &&
  node "$app/build.mjs" "$tmp/dropped" --react 19 --drop 42 ||
  { kn_fail "esbuild could not build tests/sites/spa-react"; kn_finish; }
grep -q '"19\.' "$tmp/root19/spa-react/app.js" && grep -q '"18\.' "$tmp/root18/spa-react/app.js" &&
  ! grep -q '"19\.' "$tmp/root18/spa-react/app.js" && kn_ok "built against React 19 and React 18" ||
  kn_fail "the builds do not hold the React versions they should"

kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$tmp/root19" "$tmp/sites19.log" || kn_finish
p19=$port
kn_task_at_site "$app/tasks.yaml" "$tmp/tasks.yaml" "$p19"
wf=$tmp/wf
task=spa-react-banana log=$tmp/rec.out
kn_spawn -o "$log" -e "$tmp/rec.err" rec "$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$task" \
  --out "$wf" --until idle:60 --propose
rpid=$kn_pid
kn_wait_for "record says it is recording" 30 grep -q '^recording task' "$log" || kn_finish
KN_AGENT_ANSWER=$tmp/answers node "$here/agents/spa-react.mjs" "$cdp" "http://127.0.0.1:$p19" "$tmp/marks" full >"$tmp/agent.out" 2>&1 ||
  kn_fail "the agent failed: $(tail -3 "$tmp/agent.out" | tr "\n" " ")"
# every key node is reached: the recording ends by itself; if not, it is ended the way a person
# ends it (SIGTERM, handled as Ctrl-C) once its printed steps have not changed for a while
kn_wait_for "the recording to end by itself" 10 kn_ended "$rpid"
kill -0 "$rpid" 2>/dev/null && kill -TERM "$rpid"
kn_wait_exit rec 60
[ "$kn_rc" = 0 ] && [ -f "$wf/$task.yaml" ] && kn_ok "recorded ($(grep -c '^  step ' "$log") step lines printed)" ||
  { kn_fail "record exit $kn_rc: $(cat "$log" "$tmp/rec.err" | tail -5)"; kn_finish; }
w=$wf/$task.yaml
node -e '
  const yaml = require(process.argv[1]);
  const fs = require("fs");
  const doc = yaml.parse(fs.readFileSync(process.argv[2], "utf8"));
  const wfs = doc.workflows || [doc];
  fs.writeFileSync(process.argv[3], JSON.stringify(wfs[0].steps || doc.steps));' \
  "$here/node/node_modules/yaml" "$w" "$tmp/steps.json" 2>"$tmp/yaml.err" || kn_fail "cannot read $w: $(cat "$tmp/yaml.err")"
steps=$tmp/steps.json
# the step that opens Item 42, counted by hand: goto, Browse items, the scroll, then this click; the
# agent waits long enough there for the recording to write what the page showed (its data loaded)
jq -e '.[3].click.href // "" | test("/spa-react/items/42$")' "$steps" >/dev/null &&
  kn_ok "step 4 is the click that opens Item 42" || kn_fail "step 4: $(jq -c '.[3]' "$steps")"
jq -e '.[3].after.error_page == false and (.[3].after | has("failed_requests") | not)' "$steps" >/dev/null &&
  kn_ok "step 4's baseline: no error page, no failed data request" || kn_fail "step 4's baseline: $(jq -c '.[3].after' "$steps")"

jq -e '[.[] | select(has("scroll"))] | length == 1 and (.[0].scroll | tostring | test("down"))' "$steps" >/dev/null &&
  kn_ok "one scroll step, the agent's wheel down; the scroll restoration after the route change is none" ||
  kn_fail "scroll steps: $(jq -c '[.[] | select(has("scroll"))]' "$steps")"
# five clicks by the agent: Browse items, Item 42, Add to list, Open search, Banana — nothing on html,
# the backdrop or anything else
jq -e '[.[] | select(has("click")) | .click] | length == 5 and ([.[] | select((.selector // "") | test("^(html|body)$"))] | length == 0)
       and .[2].selector == "[data-testid=\"add-to-list\"]"' "$steps" >/dev/null &&
  kn_ok "five click steps, the agent's; none on html or on the backdrop" || kn_fail "clicks: $(jq -c '[.[] | select(has("click")) | .click | {selector, text}]' "$steps")"
jq -e '[.[] | select(has("click")) | .click | select((.selector // "") == "[data-testid=\"add-to-list\"]")] | length == 1' "$steps" >/dev/null &&
  kn_ok "Playwright's stopped and retried click on Add to list is one step" || kn_fail "clicks: $(jq -c '[.[] | select(has("click"))]' "$steps")"
# generated ids: useId in React 19's and 18's forms and what the app builds on them; hashed classes
if grep -nE ':r[0-9a-z]+:|_r_[0-9a-z]+_|«r|css-[0-9a-z]+' "$w" >"$tmp/generated.txt"; then
  kn_fail "a generated id or hashed class in the workflow: $(head -3 "$tmp/generated.txt")"
else
  kn_ok "no generated id or hashed class in any recorded selector or hint"
fi
# --propose: key nodes in task-file syntax (valid YAML, selectors with quotes escaped), none generated
sed -n '/^key_nodes:/,$p' "$log" >"$tmp/propose.yaml"
node -e '
  const yaml = require(process.argv[1]);
  const kn = yaml.parse(require("fs").readFileSync(process.argv[2], "utf8")).key_nodes;
  const paths = kn.filter((k) => k.element_path).map((k) => k.element_path.exact);
  if (!paths.includes("[data-testid=\"add-to-list\"]")) throw new Error("no add-to-list: " + paths);
  if (paths.some((p) => /:r[0-9a-z]+:|_r_[0-9a-z]+_|css-/.test(p))) throw new Error("generated: " + paths);' \
  "$here/node/node_modules/yaml" "$tmp/propose.yaml" 2>"$tmp/propose.err" &&
  kn_ok "--propose: YAML key nodes by test id, no generated name" || kn_fail "--propose: $(head -3 "$tmp/propose.err") $(cat "$tmp/propose.yaml")"
for want in '[data-testid=\"nav-items\"]' 'a[href=\"/spa-react/items/42\"]' 'button[aria-label=\"Open search\"]'; do
  grep -qF "selector: \"$want\"" "$w" && kn_ok "a selector as people write it: $want" || kn_fail "no selector $want in $(grep selector "$w")"
done
kn_stop "$sites_pid"

# serve_build ROOT NAME — serve the build at ROOT, with the task and the recorded workflow pointed at it
# ($tmp/tasks-NAME.yaml, $tmp/wf-NAME)
serve_build() {
  kn_sites_start "$kn" "$1" "$tmp/sites-$2.log" || kn_finish
  kn_task_at_site "$app/tasks.yaml" "$tmp/tasks-$2.yaml" "$port"
  kn_task_at_site "$wf" "$tmp/wf-$2" "$p19=$port"
}

# the React 18 build at the same paths, on its own port: the recorded workflow passes there
serve_build "$tmp/root18" 18
mkdir -p "$tmp/v18"
"$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-18.yaml" --workflows "$tmp/wf-18" --out "$tmp/v18" \
  >"$tmp/v18.out" 2>"$tmp/v18.err"
jq -e '.status == "passed" and ([.replay.steps[] | .outcome == "ok"] | all)' "$tmp/v18/$task.json" >/dev/null &&
  kn_ok "the workflow recorded on React 19 passes replay on the React 18 build" ||
  kn_fail "React 18 replay: $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), drift: .replay.drift, steps: [.replay.steps[] | {step, outcome, url}]}' "$tmp/v18/$task.json" 2>&1 || tail -5 "$tmp/v18.err")"
kn_stop "$sites_pid"

# a soft 404: the React 19 build with item 42 taken off the catalogue (its data file deleted); the
# URL key node is still reached, only the page and its data request say the item is gone
cp -r "$tmp/root19" "$tmp/gone" && rm "$tmp/gone/spa-react/api/items/42.json" || kn_fail "cannot make the soft-404 variant"
serve_build "$tmp/gone" gone
for i in 1 2; do
  mkdir -p "$tmp/gone-$i"
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-gone.yaml" --workflows "$tmp/wf-gone" \
    --out "$tmp/gone-$i" >"$tmp/gone-$i.out" 2>"$tmp/gone-$i.err"
  rc=$?
  f=$tmp/gone-$i/$task.json
  [ "$rc" = 1 ] && jq -e '.status == "broken" and .broken.step == 4 and .broken.reason == "page shows an error"
      and (.broken.request.url | test("/spa-react/api/items/42\\.json$")) and .broken.request.status == 404
      and (.broken.url | test("/spa-react/items/42$")) and (.broken.detail | test("answered 404; the page says .couldn.t find."))
      and ([.replay.steps[0:3][] | .outcome == "ok"] | all) and .replay.steps[3].outcome == "page shows an error"' \
    "$f" >/dev/null &&
    kn_ok "soft 404, run $i: broken at step 4 (opening Item 42), page shows an error, api/items/42.json answered 404" ||
    kn_fail "soft 404, run $i: exit $rc: $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), steps: [.replay.steps[] | {step, outcome, detail}]}' "$f" 2>&1 || tail -5 "$tmp/gone-$i.err")"
done
kn_stop "$sites_pid"

# item 42 off the list: the rows around its place are other items, which healing must not take for it
serve_build "$tmp/dropped" dropped
mkdir -p "$tmp/dropped-out"
"$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-dropped.yaml" --workflows "$tmp/wf-dropped" \
  --out "$tmp/dropped-out" >"$tmp/dropped.out" 2>"$tmp/dropped.err"
rc=$?
f=$tmp/dropped-out/$task.json
[ "$rc" = 1 ] && jq -e '.status == "broken" and .broken.step == 4 and .broken.reason == "element not found"
    and ([.replay.steps[0:3][] | .outcome == "ok"] | all)' "$f" >/dev/null &&
  kn_ok "item 42 off the list: broken at step 4, element not found (no other item healed into its place)" ||
  kn_fail "item 42 off the list: exit $rc: $(jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), steps: [.replay.steps[] | {step, outcome, locator, detail}]}' "$f" 2>&1 || tail -5 "$tmp/dropped.err")"
kn_stop "$sites_pid"
kn_finish
