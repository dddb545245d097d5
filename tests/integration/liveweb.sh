#!/usr/bin/env bash
# liveweb.sh — `keynode watch` on the live-web structures of tests/sites/web, in real headless
# Chromium, with Playwright agents (agents/web.mjs) on their own CDP connection. One `keynode sites` serves
# the fixtures at http://127.0.0.1:PORT and http://localhost:PORT: two sites, so Chromium's site isolation
# runs a frame of the other one in its own renderer process (an out-of-process iframe target).
#
#   tests/integration/liveweb.sh KEYNODE_BIN REPO_DIR
#
# Scenarios (a fresh Chromium each; `keynode watch --until finished`, or SIGINT once the agent is done):
#   pay      the agent types a card number and clicks "Pay now" inside a cross-origin iframe: both are
#            recorded (frame_url, frame_path ["#card-frame"], url = the top-level page) and reach their
#            element key nodes; the iframe really was out of process (an iframe target attached)
#   late     watch attaches to a page whose cross-origin iframe is already loaded: found, named, recorded
#   nested   three iframes deep, alternating sites: fill + click in the innermost, frame path of three
#   shadow   open shadow roots (one and two deep): the inner field and buttons are the recorded targets,
#            piercing selectors (`host >> inner`) in the trajectory and in key nodes; a closed root's host
#            is recorded with shadow_closed
#   newtab   a Ctrl+click and a middle click open links in new tabs: their navigations are not goto steps; a scroll
#            that settles while a typed field is pending is written after that field (action order)
#   hostile  a page swallowing events in the capture phase and replacing addEventListener / Event.prototype
#            members, a strict Content-Security-Policy page, a contenteditable editor: all recorded
#   replay_frames  `keynode replay` as the agent, its step selectors crossing into the iframes (pay, nested)
#            and into open shadow roots (shadow)
#   hover    a CSS hover menu: the hover that opens it is a `hover` step, one that reveals nothing is not
#   dialog   confirm / prompt / alert: a `dialog` event each (kind, message, accepted or dismissed)
#   nav      a meta refresh + location.replace chain (one goto, the rest consequences), link, back from the
#            back/forward cache, forward, back, and the recorder still working on the restored page
#   redirects  HTTP redirect chains (tests/sites/web/_redirects): a goto through 301 → 302 → 307 → 308, a link
#            answered with 302, a POST form answered with 303 (then a GET): one navigate each, with its cause
#            (goto, link, form) and the final URL; no redirect hop is an event or a step; URL key nodes see
#            the final pages; `keynode replay` of the same steps passes (not blocked, not broken)
#   download two links whose targets Chromium downloads (an octet-stream file, an <a download>): click steps
#            and a `download` event each (file URL, name), no navigate; the agent's goto after them stays a goto
#   drag     an HTML5 drag and drop and a pointer-driven drag (a board without HTML5 DnD): one `drag` step each
#            (dragged element, where it was dropped, key nodes of both), no click for the pointer drag; a text
#            selection with the mouse is no drag; the click after them still records
#   replay_dialog  `keynode replay` of a workflow whose `dialog` steps answer a confirm (accept), a prompt
#            (accept with "trip") and an alert (dismiss): recorded as answered, the page saw the answers; a
#            `dialog` step after a click that opens none fails that step ("no dialog opened")
#   beforeunload  a page asking before it is left (unsaved changes): the agent accepts, a `dialog` event of kind
#            beforeunload then the link navigation; `keynode replay` with a `dialog: accept` step leaves too
#   record_dialog  `keynode record` of the beforeunload task: the workflow holds a `dialog` step (accept) after
#            the click that opened it; replaying that workflow answers the dialog and reaches every key node
#   bfcache  a page Chromium really keeps in its back/forward cache (tests/sites/web/bf, served no-cache):
#            link, back — restored from the cache (the agent fails otherwise, with Chromium's reasons) — a
#            `back` step, and a click on the restored page recorded and matched
#
# Env: KN_LIVEWEB_ONLY="name …" runs only those. Exit 0 all checks passed, 1 any failed.
#
# The sanitizer build runs the scenarios whose code paths are C (frames, new tabs, dialogs, replay in frames,
# redirects, downloads, replay's dialog answers); the others exercise the recorder's JavaScript, the same in
# both builds.
# ctest: integration.liveweb ARGS=keynode,repo TIMEOUT=600 'SANITIZE_ENV=KN_LIVEWEB_ONLY=pay late nested newtab dialog replay_frames nav redirects download replay_dialog'
set -u -o pipefail
kn=${1:?usage: liveweb.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: liveweb.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init liveweb

command -v jq >/dev/null 2>&1 || { kn_fail "jq not found (apt-get install jq)"; kn_finish; }
[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "node/ensure.sh failed"; kn_finish; }

kn_sites_start "$kn" "$repo/tests/sites/web" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/web/tasks.yaml" "$tmp/tasks.yaml" "$port"

# scenario NAME TASK MODE UNTIL — Chromium, watch, the agent; files in $d. MODE replay: `keynode replay`
# of the task's steps is the agent (in a new tab of the same browser).
scenario() {
  sc=$1
  d=$tmp/$sc
  mkdir -p "$d"
  echo "--- $sc"
  kn_chromium_start "$d" || return 1
  local int=() agent=(node "$here/agents/web.mjs" "$cdp" "$base" "$d/marks" "$3")
  [ "$4" != finished ] && int=(--int)
  if [ "$3" = replay ]; then
    mkdir -p "$d/replay"
    agent=("$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$2" --out "$d/replay")
  fi
  kn_watch_scenario "$d" "${int[@]}" -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$2" --until "$4" \
    -- "${agent[@]}" || return 1
  [ "$kn_agent_rc" = 0 ] && kn_ok "$sc: the agent did its task" ||
    { kn_fail "$sc: agent failed ($kn_agent_rc)"; sed 's/^/    agent: /' "$d/agent.log" | tail -5; }
  [ "$kn_watch_rc" = 124 ] && kn_fail "$sc: watch did not end"
  if [ "$kn_watch_rc" -le 1 ]; then kn_ok "$sc: watch exited cleanly ($kn_watch_rc)"
  else kn_fail "$sc: watch exit $kn_watch_rc"; tail -5 "$d/watch.err" | sed 's/^/    /'; fi
  return 0
}

# check NAME JQ — over R (the run result) and E (the trajectory's events)
check() {
  local out
  out=$(jq -en --slurpfile r "$d/result.json" --slurpfile t "$d/run.jsonl" \
    'def R: $r[0]; def E: $t[1:]; def node($id): R.key_nodes[] | select(.id == $id);'"($2)" 2>&1)
  if [ $? = 0 ] && [ "$out" = true ]; then kn_ok "$sc: $1"; else
    kn_fail "$sc: $1${out:+ ($out)}"
    cut -c1-300 "$d/run.jsonl" | sed 's/^/    /'
    tail -5 "$d/watch.err" | sed 's/^/    watch: /'
  fi
}

ends() {
  kn_stop "$cpid"
}

s_pay() {
  scenario pay web-pay-iframe pay finished || { ends; return; }
  check "status finished: every key node reached" 'R.status == "finished" and R.reached == R.total'
  # a card number is written [redacted]; the key node matched it before (status finished)
  check "type in the iframe: the card number (redacted), frame_url on localhost, url the top page, frame path" '
    [E[] | select(.type == "type")] | length == 1 and (.[0] | .selector == "#card-number"
      and .value == "[redacted]" and (.frame_url | test("^http://localhost:[0-9]+/pay/card.html$"))
      and (.url | test("^http://127.0.0.1:[0-9]+/pay/checkout.html$")) and .frame_path == ["#card-frame"]
      and .frame == true and .matched == ["card"] and .trusted == true)'
  check "click on Pay now in the iframe reaches its key node" '
    [E[] | select(.type == "click")] | length == 1 and (.[0] | .selector == "#pay-now" and .text == "Pay now"
      and .frame_path == ["#card-frame"] and .matched == ["pay"] and .trusted == true)'
  check "order: goto, type, click" '[E[] | select(.type | IN("navigate","type","click")) | .type] == ["navigate","type","click"]'
  if grep -q 'frame target attached.*type=iframe' "$d/watch.err"; then kn_ok "$sc: the card iframe ran out of process (an iframe target was attached)"
  else kn_fail "$sc: no out-of-process iframe target was attached"; fi
  ends
}

# watch attaching to a page whose cross-origin iframe is already there: the frame is found and named anyway
s_late() {
  sc=late
  d=$tmp/$sc
  mkdir -p "$d"
  echo "--- $sc"
  kn_chromium_start "$d" || return
  kn_spawn "$sc/agent" node "$here/agents/web.mjs" "$cdp" "$base" "$d/marks" pay-late
  kn_wait_for "the agent to load the page" 20 grep -q '^loaded' "$d/marks"
  grep -q '^loaded' "$d/marks" 2>/dev/null || { kn_fail "$sc: the agent did not load the page"; ends; return; }
  kn_spawn -o "$d/watch.out" -e "$d/watch.err" "$sc/watch" "$kn" watch --browser "$cdp" --tasks "$tmp/tasks.yaml" \
    --task web-pay-iframe --out "$d/result.json" --trajectory "$d/run.jsonl" --until finished
  kn_wait_for "watch to be ready" 15 grep -q 'ready' "$d/watch.err"
  sleep 0.5 # the frame scan and the names of the iframes (a few CDP round trips)
  touch "$d/marks.go"
  kn_wait_exit "$sc/agent" 300
  [ "$kn_rc" = 0 ] && kn_ok "$sc: the agent did its task" || kn_fail "$sc: agent failed: $(tail -2 "$d/agent.log")"
  kn_wait_exit "$sc/watch" 15 || kn_fail "$sc: watch did not end"
  check "attached late: the actions in the iframe recorded with its frame path, key nodes reached" '
    [E[] | select(.type | IN("type","click")) | [.type, .selector, .frame_path, .matched]]
      == [["type", "#card-number", ["#card-frame"], ["card"]], ["click", "#pay-now", ["#card-frame"], ["pay"]]]'
  ends
}

s_nested() {
  scenario nested web-nested-frames nested finished || { ends; return; }
  check "status finished" 'R.status == "finished" and R.reached == R.total'
  check "fill three frames deep: frame path of three iframes" '
    [E[] | select(.type == "type")] | length == 1 and (.[0] | .selector == "#deep-input" and .value == "ok"
      and .frame_path == ["#level1", "#level2", "#level3"] and (.frame_url | test("/nest/l3.html$"))
      and .matched == ["note"])'
  check "click three frames deep" '
    [E[] | select(.type == "click")] | length == 1 and (.[0] | .selector == "#deep-button"
      and .frame_path == ["#level1", "#level2", "#level3"] and .matched == ["confirm"])'
  ends
}

s_shadow() {
  scenario shadow web-shadow shadow finished || { ends; return; }
  check "status finished: the shadow key nodes reached" 'R.status == "finished" and R.reached == R.total'
  check "typing inside the open root: the inner field, a piercing selector" '
    [E[] | select(.type == "type")] | length == 1 and (.[0] | .selector == "#search >> #q" and .value == "boots" and .matched == ["query"])'
  check "the click on the inner <span> is the inner button" '
    [E[] | select(.type == "click")][0] | .selector == "#search >> #go" and .text == "Search" and .matched == ["search"]'
  check "two shadow roots deep" '
    [E[] | select(.type == "click")][1] | (.selector | test("^#panel >> .*gear-filter >> button$")) and .matched == ["filter"]'
  check "a closed root: its host, flagged" '
    [E[] | select(.type == "click")][2] | .selector == "#secret" and .shadow_closed == true and .matched == ["reveal"]'
  ends
}

s_newtab() {
  scenario newtab web-newtab newtab idle:60 || { ends; return; }
  check "the Ctrl+click and the middle click are click steps on the links" '
    [E[] | select(.type == "click")] | map([.selector, .matched]) == [["#story", ["story-link"]], ["#map", []]]'
  check "the new tabs they opened: their navigations are not goto steps" '
    [E[] | select(.type == "navigate" and (.url | test("/links/(story|map).html")))] | length >= 2 and all(.how != "goto")'
  check "three tabs" '[E[] | select(.type == "tab_open")] | length == 3'
  check "only the goto of the agent is a goto step" '[E[] | select(.type == "navigate" and .how == "goto")] | length == 1'
  check "the typed field is written before the scroll that followed it, times in action order" '
    [E[] | select(.type | IN("type", "scroll"))] as $a | ($a | map(.type)) == ["type", "scroll"]
      and $a[0].value == "Ada" and $a[1].value == "down" and $a[0].t <= $a[1].t'
  check "t never decreases" '[E[].t] as $ts | [range(1; $ts | length)] | all($ts[.] >= $ts[. - 1])'
  ends
}

s_hostile() {
  scenario hostile web-hostile hostile idle:60 || { ends; return; }
  check "every key node reached" 'R.reached == R.total'
  check "the event-swallowing page: type and click recorded, trusted, matched" '
    [E[] | select(.type | IN("type","click")) | select((.url // "") | test("hostile/index.html"))] | map([.type, .selector, (.value // ""), .matched, .trusted])
      == [["type", "#email", "ada@example.com", ["email"], true], ["click", "#send", "", ["send"], true]]'
  check "the strict-CSP page: fill and submit click recorded" '
    [E[] | select(.type | IN("type","click")) | select((.url // "") | test("hostile/csp.html"))] | map([.type, .selector, .matched])
      == [["type", "#coupon", ["coupon"]], ["click", "#apply", ["apply"]]]'
  check "the contenteditable editor: typing is one type step with the text" '
    [E[] | select((.url // "") | test("editor.html")) | select(.type | IN("type","click","press"))] | map([.type, .selector, (.value // "")])
      == [["click", "#editor", ""], ["type", "#editor", "Great boots"]]'
  ends
}

s_nav() {
  scenario nav web-redirects-bfcache nav finished || { ends; return; }
  check "status finished" 'R.status == "finished" and R.reached == R.total'
  check "meta refresh and location.replace are not steps: one goto, then consequences" '
    [E[] | select(.type == "navigate") | [(.url | sub("^http://[^/]+"; "")), .how]][0:3]
      == [["/refresh/a.html", "goto"], ["/refresh/b.html", "script"], ["/refresh/c.html", "script"]]'
  check "link, back (bfcache), forward, back" '
    [E[] | select(.type == "navigate") | [(.url | sub("^http://[^/]+"; "")), .how]][3:]
      == [["/refresh/d.html", "link"], ["/refresh/c.html", "back"], ["/refresh/d.html", "forward"], ["/refresh/c.html", "back"]]'
  check "the recorder works on the restored page: the click after back reaches its node" '
    [E[] | select(.type == "click")] | map([.selector, .matched]) == [["#details", []], ["#after-back", ["subscribe"]]]'
  check "steps: goto, click, back, forward, back, click" 'R.steps == 6'
  grep -q 'back/forward cache: true' "$d/agent.log" && echo "    (the page was restored from the back/forward cache)" ||
    echo "    (note: this Chromium did not restore the page from the back/forward cache)"
  ends
}

# keynode replay acting in frames: the step selectors cross into the iframes ("#card-frame >> #pay-now");
# trusted Input events at the point found plus the frames' origins
s_replay_frames() {
  scenario replay-pay web-pay-iframe replay finished || { ends; return; }
  check "replay into the cross-origin iframe: every key node reached" 'R.status == "finished" and R.reached == R.total'
  check "the replayed type and click happened in the card frame, trusted" '
    [E[] | select(.type | IN("type","click"))] | map([.type, .selector, .frame_path, .trusted])
      == [["type", "#card-number", ["#card-frame"], true], ["click", "#pay-now", ["#card-frame"], true]]'
  ends
  scenario replay-nested web-nested-frames replay finished || { ends; return; }
  check "replay three frames deep: every key node reached" 'R.status == "finished" and R.reached == R.total'
  check "the replayed click is trusted, three frames deep" '
    [E[] | select(.type == "click")] | map([.selector, .frame_path, .trusted]) == [["#deep-button", ["#level1", "#level2", "#level3"], true]]'
  ends
  scenario replay-shadow web-shadow replay finished || { ends; return; }
  check "replay through open shadow roots (piercing step selectors): every key node reached" 'R.status == "finished" and R.reached == R.total'
  check "the replayed actions are the inner elements" '
    [E[] | select(.type | IN("type","click")) | .selector] | .[0:3] == ["#search >> #q", "#search >> #go", "#panel >> div > gear-filter >> button"]'
  ends
}

s_hover() {
  scenario hover web-hover-menu hover finished || { ends; return; }
  check "status finished" 'R.status == "finished" and R.reached == R.total'
  check "the hover that opened the menu is a hover step; the one that revealed nothing is none" '
    [E[] | select(.type | IN("hover", "click")) | [.type, .selector, .trusted]]
      == [["hover", "#gear-link", true], ["click", "#tents", true]]'
  check "steps: goto, hover, click" 'R.steps == 3'
  ends
}

s_dialog() {
  scenario dialog web-dialogs dialog idle:60 || { ends; return; }
  check "each dialog recorded after its click: kind, message, the agent's answer; not a step" '
    [E[] | select(.type | IN("click", "dialog")) | [.type, (.selector // .key), (.value // .text)]]
      == [["click", "#delete", "Delete draft"], ["dialog", "confirm", "accepted"], ["click", "#rename", "Rename"],
          ["dialog", "prompt", "accepted"], ["click", "#save", "Save"], ["dialog", "alert", "dismissed"]]
    and ([E[] | select(.type == "dialog") | .text] == ["Delete the draft?", "New name?", "Saved."])'
  check "steps: goto and the three clicks" 'R.steps == 4 and R.reached == R.total'
  ends
}

s_redirects() {
  scenario redirects web-http-redirects redirects finished || { ends; return; }
  check "status finished: the final pages reached the URL key nodes" 'R.status == "finished" and R.reached == R.total'
  check "one navigate per action, its cause and the final URL: goto, link, form" '
    [E[] | select(.type == "navigate") | [(.url | sub("^http://[^/]+"; "")), .how]]
      == [["/go/trail.html?from=old", "goto"], ["/go/form.html", "link"], ["/go/thanks.html", "form"]]'
  check "no redirect hop is an event" '[E[] | select((.url // "") | test("/go/(old-trail|hop-|signup|subscribe)"))] | length == 0'
  check "steps: goto, click, type, click" 'R.steps == 4 and ([E[] | select(.type | IN("click","type")) | .selector] == ["#signup-link", "#email", "#send"])'
  check "the URL key nodes were reached at the final pages' steps" '
    [node("trail"), node("form"), node("thanks")] | map(.reached_at_step) == [1, 2, 4]'
  ends
  scenario replay-redirects web-http-redirects replay finished || { ends; return; }
  check "replay through the redirect chains: every key node reached" 'R.status == "finished" and R.reached == R.total'
  if grep -qE '^web-http-redirects +passed' "$d/agent.log"; then kn_ok "$sc: replay passed (not blocked, not broken)"
  else kn_fail "$sc: replay did not pass"; sed 's/^/    replay: /' "$d/agent.log" | tail -8; fi
  ends
}

s_beforeunload() {
  scenario beforeunload web-beforeunload beforeunload idle:60 || { ends; return; }
  check "type, click, the beforeunload dialog accepted, then the link navigation" '
    [E[] | select(.type | IN("type", "click", "dialog", "navigate")) | [.type, (.key // .how // .selector)]][1:]
      == [["type", "#notes"], ["click", "#leave"], ["dialog", "beforeunload"], ["navigate", "link"]]
    and ([E[] | select(.type == "dialog")][0].value == "accepted")'
  check "key nodes reached" 'R.reached == R.total'
  ends
  scenario replay-beforeunload web-beforeunload replay idle:60 || { ends; return; }
  check "replay: the beforeunload dialog answered by the dialog step, the page left" '
    ([E[] | select(.type == "dialog") | [.key, .value]] == [["beforeunload", "accepted"]])
      and ([E[] | select(.type == "navigate")][-1].url | test("/dialog/index.html$"))'
  ends
}

s_record_dialog() {
  sc=record-dialog
  d=$tmp/$sc
  mkdir -p "$d"
  echo "--- $sc"
  kn_chromium_start "$d" || return
  kn_spawn -o "$d/record.out" -e "$d/record.err" "$sc/record" "$kn" record --browser "$cdp" --tasks "$tmp/tasks.yaml" \
    --task web-beforeunload --out "$d/wf" --until idle:4
  kn_wait_for "record to say it is recording" 15 grep -q '^recording task' "$d/record.out"
  node "$here/agents/web.mjs" "$cdp" "$base" "$d/marks" beforeunload >"$d/agent.log" 2>&1 || kn_fail "$sc: agent failed"
  kn_wait_exit "$sc/record" 15 || kn_fail "$sc: record did not end"
  local rrc=$kn_rc
  local verbs
  verbs=$(sed -n 's/^  - \([a-z]*\):.*/\1/p' "$d/wf/web-beforeunload.yaml" 2>/dev/null | tr '\n' ' ')
  if [ $rrc = 0 ] && [ "$verbs" = "goto type click dialog " ] && grep -q '^  - dialog: {answer: "accept"}' "$d/wf/web-beforeunload.yaml"
  then kn_ok "$sc: the workflow: goto, type, click, dialog accept"
  else kn_fail "$sc: record exit $rrc, steps '$verbs'"; tail -5 "$d/record.out" "$d/record.err" | sed 's/^/    /'; fi
  ends
  mkdir -p "$d/again"
  kn_chromium_start "$d/again" || return
  "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task web-beforeunload --workflows "$d/wf" --validate \
    >"$d/replay.out" 2>&1
  local vrc=$?
  if [ $vrc = 0 ] && grep -qE '^web-beforeunload +passed' "$d/replay.out"; then kn_ok "$sc: the recorded workflow replays (validate: passed)"
  else kn_fail "$sc: replay --validate exit $vrc"; tail -5 "$d/replay.out" | sed 's/^/    /'; fi
  ends
}

s_bfcache() {
  scenario bfcache web-bfcache bfcache finished || { ends; return; }
  check "status finished" 'R.status == "finished" and R.reached == R.total'
  if grep -q 'restored from the back/forward cache: true' "$d/agent.log"; then kn_ok "$sc: the page came back from the back/forward cache"
  else kn_fail "$sc: the page was not restored from the back/forward cache"; fi
  check "goto, link, back: the restore is a back step to the hut list" '
    [E[] | select(.type == "navigate") | [(.url | sub("^http://[^/]+"; "")), .how]]
      == [["/bf/index.html", "goto"], ["/bf/hut.html", "link"], ["/bf/index.html", "back"]]'
  check "the click on the restored page: recorded, trusted, matched, after the back" '
    [E[] | select(.type | IN("click", "navigate")) | .type] == ["navigate", "click", "navigate", "navigate", "click"]
      and ([E[] | select(.type == "click")][1] | .selector == "#book" and .trusted == true and .matched == ["book"])'
  check "steps: goto, click, back, click" 'R.steps == 4'
  ends
}

s_download() {
  scenario download web-downloads download finished || { ends; return; }
  check "status finished" 'R.status == "finished" and R.reached == R.total'
  check "each click is a step followed by its download event (file URL, suggested name)" '
    [E[] | select(.type | IN("click", "download")) | [.type, .selector // (.value | sub("^http://[^/]+"; "")), .text // ""]]
      == [["click", "#gpx", "Download the GPS track"], ["download", "/dl/route.gpx", "route.gpx"],
          ["click", "#notes", "Save the route notes"], ["download", "/dl/notes.txt", "haute-route-notes.txt"]]'
  check "the downloads are not navigations: goto, then the goto of the agent" '
    [E[] | select(.type == "navigate") | [(.url | sub("^http://[^/]+"; "")), .how]]
      == [["/dl/index.html", "goto"], ["/dl/after.html", "goto"]]'
  check "download events carry the page URL of the tab and are not steps: goto, click, click, goto" '
    ([E[] | select(.type == "download") | .url | test("/dl/index.html$")] | all) and R.steps == 4'
  ends
}

s_drag() {
  scenario drag web-drag drag finished || { ends; return; }
  check "status finished: the dragged elements and the drop zone reached their key nodes" 'R.status == "finished" and R.reached == R.total'
  check "two drag steps: what was dragged, where it was dropped, trusted, key nodes of both" '
    [E[] | select(.type == "drag") | [.selector, .text, .value, (.matched | sort), .trusted]]
      == [["#task-tent", "Pack the tent", "#done-zone", ["done", "tent"], true], ["#card-1", "Book the huts", "#col-b", ["card"], true]]'
  check "the pointer drag made no click; the text selection is no drag; the click on Save is recorded after them" '
    ([E[] | select(.type == "click") | .selector] | map(select(. != "#note"))) == ["#save"]
      and ([E[] | select(.type | IN("drag", "click")) | .selector] | map(select(. != "#note"))) == ["#task-tent", "#card-1", "#save"]'
  check "drags are steps" 'R.steps == ([E[] | select(.type | IN("click", "drag"))] | length) + 1'
  ends
}

s_replay_dialog() {
  scenario replay-dialog web-dialogs replay idle:60 || { ends; return; }
  check "the dialogs the replay met, answered as the workflow says" '
    [E[] | select(.type == "dialog") | [.key, .text, .value]]
      == [["confirm", "Delete the draft?", "accepted"], ["prompt", "New name?", "accepted"], ["alert", "Saved.", "dismissed"]]'
  check "the page saw the answers: the draft deleted, renamed to trip" '
    [E[] | select(.type == "navigate" and .how == "history") | .url | sub("^[^#]*"; "")] == ["#draft=deleted", "#name=trip"]'
  check "key nodes reached" 'R.reached == R.total'
  ends
  sc=replay-dialog-none
  d=$tmp/$sc
  mkdir -p "$d/replay"
  echo "--- $sc"
  kn_chromium_start "$d" || return
  "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task web-dialogs-none --out "$d/replay" >"$d/replay.out" 2>&1
  local rrc=$?
  if [ $rrc = 1 ] && grep -q 'step 3.*no dialog opened' "$d/replay.out"; then kn_ok "$sc: a dialog step with no dialog fails that step"
  else kn_fail "$sc: replay exit $rrc"; tail -5 "$d/replay.out" | sed 's/^/    /'; fi
  ends
}

all="pay late nested shadow newtab hostile nav hover dialog replay_frames redirects bfcache download drag replay_dialog beforeunload record_dialog"
for s in ${KN_LIVEWEB_ONLY:-$all}; do "s_$s"; done
kn_finish
