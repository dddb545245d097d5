#!/usr/bin/env bash
# trace.sh — the run trace end to end: a real headless Chromium, `keynode sites`, `keynode watch
# --trace on` attached to it, and a Playwright agent (agents/trace.mjs) on its own CDP connection that does
# part of the shop task, visits a page whose title is markup (with a console error and a missing image) and
# answers with markup; and a fast agent (agents/trace-fast.mjs) that does eight steps with no pause. Checks:
#   - a screenshot for every step of the fast agent (twice): every step has a real JPEG, none is skipped
#     (the screenshot is the tab's latest screencast frame at/just after the step);
#   - the trace is complete: index.json validates against schemas/trace.schema.json (ajv, strict), one trace
#     step per run step, every step has a screenshot file (a real JPEG) or says why not, the acted-on
#     element's box and DOM excerpt, page title and HTTP status; the console error and the 404 are on the
#     hostile page's step; every key node has its evidence and paragraph ("size not reached: … the selector
#     `#size` resolved to nothing"); the answer and the hostile title are kept verbatim;
#   - `keynode trace show` prints the same evidence; `keynode trace pack` writes a tar that tar reads;
#   - malformed trace input (no index, truncated, garbage, wrong types, a screenshot path outside shots/) gives
#     a clear error naming the file, exit 1 or 2, never a crash;
#   - --trace failures keeps the trace of a run that did not finish and removes the one of a run that did;
#   - `replay --validate --trace` writes a replay trace per task, `run --trace` one per attempt folder.
#
#   tests/integration/trace.sh KEYNODE_BIN REPO_DIR
#
# Every process started here is stopped by its PID on exit (lib.sh). Exit 0 when every check passed.
#
# ctest: integration.trace ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: trace.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: trace.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "FAIL jq not found"; exit 1; }
command -v tar >/dev/null 2>&1 || { echo "FAIL tar not found"; exit 1; }
"$here/node/ensure.sh" || exit 1
kn_lib_init trace

# the site: tests/sites plus the hostile page
mkdir -p "$tmp/sites"
cp -r "$repo/tests/sites/." "$tmp/sites/"
cp "$here/trace-fixtures/xss.html" "$tmp/sites/xss.html"
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$tmp/sites" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$port"
xss_title='<img src=x onerror="window.__pwned=1">"'"'"
xss_answer='<img src=x onerror="window.__pwned=2">answer & "quotes"'

# watch_run NAME AGENT MODE WATCH_ARGS… — the agent attaches first and waits; keynode watch starts, and once
# it is ready the agent goes. Files in $tmp/NAME/, the trajectory $tmp/NAME.jsonl (its trace: $tmp/NAME.trace).
# Sets wrc (watch's exit code).
watch_run() {
  local name=$1 agent=$2 mode=$3
  shift 3
  kn_watch_scenario "$tmp/$name" --go "$tmp/$name.marks" --trajectory "$tmp/$name.jsonl" \
    -- --browser "$devtools_file" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart "$@" \
    -- node "$here/agents/$agent" "$cdp" "$base" "$tmp/$name.marks" "$mode"
  wrc=$kn_watch_rc
}

# --- a fast agent: a screenshot for every step, twice -----------------------------------------------------------
# agents/trace-fast.mjs does its eight steps with no pause (a type and a press 10 ms apart, clicks that navigate,
# three page changes in a row that do not). `keynode watch` runs until Ctrl-C: it is interrupted once it has
# printed the last navigation (to cart.html), so the check depends on events, not on how fast this machine is.
for r in 1 2; do
  name=fast$r
  kn_watch_scenario "$tmp/$name" --go "$tmp/$name.marks" --trajectory "$tmp/$name.jsonl" \
    --int-when 'navigate *http://[^ ]*/shop/cart\.html' \
    -- --browser "$devtools_file" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --trace on \
    -- node "$here/agents/trace-fast.mjs" "$cdp" "$base" "$tmp/$name.marks"
  arc=$kn_agent_rc
  fi=$tmp/$name.trace/index.json
  [ "$arc" = 0 ] && [ -s "$fi" ] || { kn_fail "fast agent $r: agent exit $arc, $(tail -2 "$tmp/$name/agent.log"); $(tail -3 "$tmp/$name/watch.err")"; continue; }
  fsteps=$(jq '[.steps[] | select(.step > 0)] | length' "$fi")
  bad=0
  while read -r n type shot; do
    [ "$shot" != - ] && [ "$(head -c 2 "$tmp/$name.trace/$shot" 2>/dev/null | od -An -tx1 | tr -d ' ')" = ffd8 ] ||
      { echo "  step $n ($type): $shot $(jq -r --argjson n "$n" '.steps[] | select(.step == $n) | .screenshot_skipped // .screenshot_error // ""' "$fi")"; bad=1; }
  done < <(jq -r '.steps[] | select(.step > 0) | "\(.step) \(.type) \(.screenshot // "-")"' "$fi")
  [ "$fsteps" -ge 8 ] && [ "$bad" = 0 ] && jq -e --argjson n "$fsteps" '.capture.shots == $n and .capture.skipped == 0' "$fi" >/dev/null &&
    kn_ok "fast agent $r: all $fsteps steps have a JPEG screenshot ($(jq -r '[.steps[] | .screenshot_when // empty] | group_by(.) | map("\(length) \(.[0])") | join(", ")' "$fi"))" ||
    kn_fail "fast agent $r: $fsteps steps, capture $(jq -c .capture "$fi")"
  node "$here/trace-validate.mjs" "$repo" "$fi" >"$tmp/validate.log" 2>&1 &&
    kn_ok "fast agent $r: index.json validates" || kn_fail "fast agent $r: schema: $(cat "$tmp/validate.log")"
done

# --- a watched run with tracing on ---------------------------------------------------------------------------
watch_run t1 trace.mjs "$tmp/t1.answers" --until idle:6 --answer-file "$tmp/t1.answers" --trace on
[ "$wrc" = 1 ] && kn_ok "watch --trace on: exit 1 (the task was not finished)" ||
  kn_fail "watch --trace on: exit $wrc (want 1): $(tail -3 "$tmp/t1/watch.err")"
T=$tmp/t1.trace
idx=$T/index.json
if [ -s "$idx" ]; then kn_ok "trace written beside the trajectory: t1.trace/index.json"
else kn_fail "no $idx; stderr: $(tail -3 "$tmp/t1/watch.err")"; kn_finish; fi
grep -q "trace in $T" "$tmp/t1/watch.err" && kn_ok "watch says where the trace is" || kn_fail "watch did not say where the trace is"
node "$here/trace-validate.mjs" "$repo" "$idx" >"$tmp/validate.log" 2>&1 &&
  kn_ok "index.json validates against schemas/trace.schema.json" || kn_fail "schema: $(cat "$tmp/validate.log")"

steps=$(jq .steps "$tmp/t1/result.json")
tsteps=$(jq '[.steps[] | select(.step > 0)] | length' "$idx")
[ "$steps" -ge 7 ] && [ "$tsteps" = "$steps" ] && kn_ok "one trace step per run step ($steps)" ||
  kn_fail "trace steps $tsteps, run steps $steps (want ≥ 7 and equal)"
jq -e '[.steps[] | select(.step > 0)] | map(.step) == [range(1; length + 1)]' "$idx" >/dev/null &&
  kn_ok "steps numbered 1..$tsteps in order" || kn_fail "step numbers: $(jq -c '[.steps[].step]' "$idx")"

# every step: a screenshot file that is a JPEG, or a reason; page steps have title, status and the element
bad=0
while read -r n shot why; do
  if [ "$shot" != - ]; then
    [ "$(head -c 2 "$T/$shot" | od -An -tx1 | tr -d ' ')" = ffd8 ] || { echo "  step $n: $shot is not a JPEG"; bad=1; }
  elif [ -z "$why" ]; then echo "  step $n: no screenshot and no reason"; bad=1; fi
done < <(jq -r '.steps[] | select(.step > 0) | "\(.step) \(.screenshot // "-") \(.screenshot_skipped // .screenshot_error // "")"' "$idx")
[ "$bad" = 0 ] && kn_ok "every step has a JPEG screenshot or says why not" || kn_fail "screenshots incomplete"
shots=$(jq '[.steps[] | select(.screenshot != null)] | length' "$idx")
jq -e '[.steps[] | select(.step > 0 and .type != "answer") | .screenshot != null] | all' "$idx" >/dev/null &&
  [ "$(jq .capture.shots "$idx")" = "$shots" ] &&
  kn_ok "$shots of $tsteps steps have a screenshot ($(jq .capture.skipped "$idx") page steps without one)" ||
  kn_fail "$shots screenshots for $tsteps steps, want one per page step (capture: $(jq -c .capture "$idx"))"
# actions (type #q, press Enter, click Red Runner, click #go) carry their element's box: from the page just
# after the action, else (the type into #q is reported by the Enter that submits, the click navigates: the probe
# may lose the page) as the recorder saw it acting; clicking #go
# leaves the page where it is, so its element also has a DOM excerpt from the page
jq -e '[.steps[] | select(.type == "type" or .type == "click" or .type == "press") | .element.found == true and (.element.box.width > 0) and (.element.source == "action" or (.element.dom | length > 0))] | length == 4 and all' "$idx" >/dev/null &&
  jq -e '[.steps[] | select(.type == "click" and .selector == "#go") | .element.source == "page" and (.element.dom | length > 0)] | length == 1 and all' "$idx" >/dev/null &&
  kn_ok "actions carry the element's box (#go: and a DOM excerpt)" || kn_fail "element box/DOM missing: $(jq -c '[.steps[] | {step, element}]' "$idx" | head -c 600)"
jq -e '[.steps[] | select(.step > 0 and .type != "answer") | (.status == 200) and (.title | type == "string")] | all' "$idx" >/dev/null &&
  kn_ok "page steps carry the HTTP status (200) and the title" || kn_fail "status/title: $(jq -c '[.steps[] | {step, status, title}]' "$idx")"

# the hostile page: title verbatim, console error, the 404
xs=$(jq -c --arg t "$xss_title" '[.steps[] | select(.title == $t)] | first' "$idx")
[ "$xs" != null ] && kn_ok "the hostile title is kept verbatim" || kn_fail "no step with the hostile title: $(jq -c '[.steps[].title]' "$idx")"
jq -e '[.steps[] | .console[] | select(.text | test("trace fixture: <b>console error</b>"))] | length == 1' "$idx" >/dev/null &&
  kn_ok "the page's console.error is on its step" || kn_fail "console: $(jq -c '[.steps[] | {step, console}]' "$idx" | head -c 600)"
jq -e '[.steps[] | .network[] | select(.status == 404 and (.url | test("missing-image.png$")))] | length == 1' "$idx" >/dev/null &&
  kn_ok "the 404 of the missing image is recorded" || kn_fail "network: $(jq -c '[.steps[] | {step, network}]' "$idx" | head -c 600)"
[ "$(jq -r .answer "$idx")" = "$xss_answer" ] && kn_ok "the answer is kept verbatim" || kn_fail "answer: $(jq -r .answer "$idx")"

# key-node evidence
jq -e '.key_nodes | length == 5' "$idx" >/dev/null && kn_ok "five key nodes" || kn_fail "key nodes: $(jq -c .key_nodes "$idx")"
jq -e '.key_nodes[] | select(.id == "query") | .reached_at_step == 3 and (.summary | test("^query reached at step 3: .*semantic saw `red running shoes`"))' "$idx" >/dev/null &&
  kn_ok "query: reached at step 3, evidence names the parameter value the matcher saw" ||
  kn_fail "query: $(jq -c '.key_nodes[] | select(.id == "query")' "$idx")"
jq -e '.key_nodes[] | select(.id == "size") | .reached_at_step == null and (.summary | test("^size not reached: .*the selector `#size` resolved to nothing"))' "$idx" >/dev/null &&
  kn_ok "size: not reached, and why: the selector \`#size\` resolved to nothing" ||
  kn_fail "size: $(jq -c '.key_nodes[] | select(.id == "size")' "$idx")"
jq -e '[.steps[] | .evidence[] | select(.node == "product" and .checked and .score == 1 and (.input | test("item.html\\?id=3$")))] | length == 1' "$idx" >/dev/null &&
  kn_ok "product: one check with score 1 on the item URL" || kn_fail "product evidence: $(jq -c '[.steps[] | .evidence[] | select(.node == "product")]' "$idx")"

# keynode trace show / pack
"$kn" trace show "$T" >"$tmp/show.txt" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^  size not reached: .*the selector `#size` resolved to nothing' "$tmp/show.txt" &&
  grep -qF "answer: $xss_answer" "$tmp/show.txt" &&
  kn_ok "trace show prints the evidence and the answer" || kn_fail "trace show (exit $rc): $(head -c 800 "$tmp/show.txt")"
"$kn" trace --help | grep -q 'usage: keynode trace show' && kn_ok "trace --help" || kn_fail "trace --help"
"$kn" trace pack "$T" --out "$tmp/t1.tar" && tar -tf "$tmp/t1.tar" >"$tmp/tar.txt" 2>&1 &&
  grep -qx 'trace/index.json' "$tmp/tar.txt" && [ "$(grep -c '^trace/shots/.*\.jpg$' "$tmp/tar.txt")" = "$shots" ] &&
  kn_ok "trace pack: a tar with index.json and the $shots screenshots" || kn_fail "trace pack: $(cat "$tmp/tar.txt")"

# malformed input: a clear error with the file named, exit 1 or 2, never a crash
mal() {
  local name=$1 want=$2
  "$kn" trace show "$tmp/mal/$name" >/dev/null 2>"$tmp/mal.err"
  local r=$?
  if [ "$r" -ge 1 ] && [ "$r" -le 2 ] && grep -q "^keynode trace: .*$want" "$tmp/mal.err"; then
    kn_ok "malformed ($name): exit $r, $(head -1 "$tmp/mal.err")"
  else kn_fail "malformed ($name): exit $r: $(cat "$tmp/mal.err")"; fi
}
mkdir -p "$tmp/mal/empty-dir" "$tmp/mal/trunc" "$tmp/mal/garbage" "$tmp/mal/types" "$tmp/mal/escape"
head -c 300 "$idx" >"$tmp/mal/trunc/index.json"
printf '\x00\xff\xfe not json' >"$tmp/mal/garbage/index.json"
jq '.steps[1].evidence = "no"' "$idx" >"$tmp/mal/types/index.json"
jq '.steps[1].screenshot = "shots/../../../etc/passwd"' "$idx" >"$tmp/mal/escape/index.json"
mal empty-dir "empty-dir/index.json: cannot open"
mal trunc "trunc/index.json:[0-9]*:[0-9]*:"
mal garbage "garbage/index.json:"
mal types "types/index.json: steps\[1\].evidence: not an array"
mal escape "escape/index.json: steps\[1\].screenshot: not a file under shots/"
"$kn" trace show >/dev/null 2>&1; [ $? = 2 ] && kn_ok "trace show without a folder: exit 2" || kn_fail "trace show without a folder"

# --trace failures: kept for a run that did not finish (t1 above would be), removed for one that did
watch_run t2 shop.mjs full --until finished --trace failures
[ "$wrc" = 0 ] && [ ! -e "$tmp/t2.trace" ] && kn_ok "--trace failures: a finished run leaves no trace" ||
  kn_fail "--trace failures, finished run: exit $wrc, trace dir $(ls -d "$tmp/t2.trace" 2>&1)"
# replay --validate: one trace per task, its verdict as status; run: one per attempt in its folder
"$kn" replay --validate --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --out "$tmp/rv" \
  --trace on --quiet >"$tmp/rv.out" 2>&1
rc=$?
ri=$tmp/rv/shop-red-runner-cart.trace/index.json
[ "$rc" = 0 ] && jq -e '.kind == "replay" and .status == "passed" and .failed == false and ([.steps[] | select(.step > 0)] | length) >= 5 and .capture.shots >= 1' "$ri" >/dev/null &&
  node "$here/trace-validate.mjs" "$repo" "$ri" >/dev/null &&
  kn_ok "replay --validate --trace on: the replay's trace, status passed, validates" ||
  kn_fail "replay --validate --trace (exit $rc): $(tail -3 "$tmp/rv.out"); $(jq -c '{kind, status, capture}' "$ri" 2>&1)"
"$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --trace on >/dev/null 2>"$tmp/rv.err"
[ $? = 2 ] && grep -q -- '--trace needs --validate' "$tmp/rv.err" && kn_ok "replay --trace without --validate: usage error" ||
  kn_fail "replay --trace without --validate: $(cat "$tmp/rv.err")"
"$kn" run --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --out "$tmp/runs" --trace on --quiet \
  --agent "node $here/agents/shop.mjs \"\$KEYNODE_CDP_URL\" $base $tmp/run.marks full" >"$tmp/run.out" 2>&1
rc=$?
ai=$tmp/runs/shop-red-runner-cart/1/trace/index.json
[ "$rc" = 0 ] && jq -e '.kind == "run" and .status == "finished" and ([.steps[] | select(.step > 0)] | length) == 6' "$ai" >/dev/null &&
  node "$here/trace-validate.mjs" "$repo" "$ai" >/dev/null &&
  kn_ok "run --trace on: the attempt's trace in its folder, validates" ||
  kn_fail "run --trace (exit $rc): $(tail -3 "$tmp/run.out"); $(jq -c '{kind, status, steps: (.steps | length)}' "$ai" 2>&1)"
"$kn" watch --trace sometimes --browser x --tasks x --task x >/dev/null 2>"$tmp/bad.err"
[ $? = 2 ] && grep -q -- '--trace must be on, off or failures' "$tmp/bad.err" && kn_ok "--trace sometimes: usage error" ||
  kn_fail "--trace sometimes: $(cat "$tmp/bad.err")"
kn_finish
