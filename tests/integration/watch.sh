#!/usr/bin/env bash
# watch.sh — `keynode watch` live, end to end (issue acceptance). For each scenario: `keynode sites` on a
# free port, a private headless Chromium (--remote-debugging-port=0), `keynode watch` attached to it, and
# an agent on its OWN CDP connection — `keynode replay`, or a Playwright script (agents/*.mjs) written the
# way agents in the wild are. Then the exit code, the run result (docs/formats.md §3) and the trajectory
# (§2) are checked: exact key nodes reached at exact steps, steps, status, step_scores, the navigation
# kinds ("how"), trust, and that `keynode score` of the written trajectory agrees with the live result.
#
#   tests/integration/watch.sh KEYNODE_BIN REPO_DIR
#
# Scenarios (tasks: tests/sites/tasks.yaml, and watch-fixtures/tasks.yaml for variants without answer nodes,
# a broken workflow and the forgery page):
#   cli             usage errors and an unreachable browser: exit 2, one line on stderr
#   replay-shop     keynode replay (new tab): type+Enter (press, navigate how=form), link, select, click
#   pw-shop         Playwright: the same task; click on the <span> inside #add-to-cart; --until finished
#                   ends at the last node, before the agent's next action
#   pw-steps        --until steps:5
#   pw-idle         an agent failing half-way, --until idle:5: incomplete, exit 1
#   pw-pagehide     fill, then goto elsewhere: the pending type step is flushed as the page goes away
#   replay-broken   keynode replay of a workflow broken at step 4, --until idle:5
#   pw-hash         hash routing (how=hash); element_value and element_path nodes
#   pw-budget       the upstream step budget (10 steps) spent: --until finished must end, step_limit
#   pw-history      pushState routing (how=history)
#   pw-back         goBack is a step (how=back); --quiet; the browser as a ws:// URL
#   pw-popup        window.open popup (how=popup), a GET form in it, check()
#   pw-newtab       a target=_blank link: a new tab
#   pw-answer       an answer reported through --answer-file
#   replay-answer   keynode replay --answer-file, pushState routing
#   forgery         a page forging bindings, events and navigations: only the agent's actions are trusted
#   browser-killed  Chromium killed mid-run: exit 2, "browser disconnected", status error, events kept
#   sigint          Ctrl-C: a clean end with a result
#
# Env: KN_CHROMIUM (default /usr/lib/chromium/chromium); KN_WATCH_ONLY="name …" runs only those scenarios;
# KN_WATCH_KEEP=1 keeps the scratch folder (printed) with every scenario's files.
# Needs node + the pinned playwright-core (node/ensure.sh installs it), Chromium and jq: a missing one is a
# failure, not a skip. Every process started here is stopped by its PID, also on failure or interrupt.
# Exit: 0 all checks passed, 1 any failed.
#
# ctest: integration.watch ARGS=keynode,repo TIMEOUT=600
set -u -o pipefail
kn=${1:?usage: watch.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: watch.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
agents=$here/agents
export KN_CHROMIUM=${KN_CHROMIUM:-/usr/lib/chromium/chromium}
[ "${KN_WATCH_KEEP:-0}" = 1 ] && export KN_KEEP=1

# Every process a scenario starts is spawned through lib.sh (kn_spawn: in kn_pids until it has been waited
# for): scenario_end and the exit trap stop exactly those, by PID (a reaped PID is never signalled: it may
# belong to someone else now); kn_finish fails on a sanitizer report in any of their logs.
. "$here/lib.sh"
kn_lib_init watch
ok() { kn_ok "$1"; }
fail() { kn_fail "$1"; }

command -v jq >/dev/null 2>&1 || { fail "jq not found (apt-get install jq)"; kn_finish; }
[ -x "$kn" ] || { fail "no keynode binary at $kn"; kn_finish; }
"$here/node/ensure.sh" || { fail "node/ensure.sh failed"; kn_finish; }

# the harness: processes, waits and checks (watch_lib.sh)
. "$here/watch_lib.sh"

SHOP_STEPS='["nav:goto","type","press","click","select","click"]'

# ---------------------------------------------------------------- scenarios

# The command line: usage errors and an unreachable browser exit 2 with a reason on stderr.
s_cli() {
  sc=cli
  d=$tmp/cli
  mkdir -p "$d"
  echo "--- cli"
  kn_task_at_site "$repo/tests/sites/tasks.yaml" "$d/tasks.yaml" 9
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 1)
  "$kn" watch --help >"$d/out" 2>&1; rc=$?
  { [ $rc = 0 ] && grep -q -- "--until" "$d/out"; } && ok "cli: watch --help (exit 0, documents --until)" || fail "cli: watch --help: exit $rc"
  "$kn" watch >/dev/null 2>"$d/err"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$d/err")" = 1 ] && ok "cli: no arguments: exit 2 with a one-line reason" || fail "cli: no arguments: exit $rc, $(wc -l <"$d/err") line(s)"
  "$kn" watch --browser "http://127.0.0.1:$port" --tasks "$d/tasks.yaml" --task shop-red-runner-cart \
    --out "$d/r.json" --trajectory "$d/t.jsonl" >/dev/null 2>"$d/err"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$d/err")" = 1 ] && grep -q "unreachable" "$d/err" && ok "cli: browser unreachable: exit 2 with a one-line reason" ||
    { fail "cli: browser unreachable: exit $rc"; head -3 "$d/err"; }
  "$kn" watch --browser "$d/no-such-DevToolsActivePort" --tasks "$d/tasks.yaml" --task shop-red-runner-cart >/dev/null 2>"$d/err"; rc=$?
  [ $rc = 2 ] && ok "cli: missing DevToolsActivePort file: exit 2" || fail "cli: missing DevToolsActivePort file: exit $rc"
  "$kn" watch --browser "http://127.0.0.1:$port" --tasks "$d/tasks.yaml" --task no-such-task >/dev/null 2>"$d/err"; rc=$?
  [ $rc = 2 ] && grep -q "no-such-task" "$d/err" && ok "cli: unknown task: exit 2 naming it" || fail "cli: unknown task: exit $rc ($(head -1 "$d/err"))"
  for u in "sometimes" "idle:" "idle:x" "steps:0" "steps:-3"; do
    "$kn" watch --browser "http://127.0.0.1:$port" --tasks "$d/tasks.yaml" --task shop-red-runner-cart --until "$u" >/dev/null 2>"$d/err"; rc=$?
    [ $rc = 2 ] && grep -q -- "--until" "$d/err" && ok "cli: --until $u: exit 2 naming --until" || fail "cli: --until $u: exit $rc ($(head -1 "$d/err"))"
  done
}

# keynode replay as the agent (a new tab, trusted Input.* events), --until finished; the browser given
# as its DevToolsActivePort file.
s_replay_shop() {
  scenario_begin replay-shop || { scenario_end; return; }
  start_watch "$devtools_file" "$d/tasks.yaml" shop-red-runner-cart finished || { scenario_end; return; }
  start_replay "$d/tasks.yaml" shop-red-runner-cart
  watch_done 90 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 6 "search@3 query@3 product@4 size@5 add@6" '[0,0,0.4,0.6,0.8,1]' "$SHOP_STEPS"
    jcheck "replay drove a new tab: a second tab_open, and every step is in that tab" '
      (tabs | length) >= 2 and (tabs[1] as $t | stepev | all(.tab == $t))'
    jcheck "Enter after typing: press (key Enter), then navigate how=form to search.html?q=…" '
      (E | map(select(.type == "press")) | length) == 1
      and (E | map(select(.type == "press"))[0].key == "Enter")
      and (E | (map(.type) | index("press")) as $p | .[$p + 1:] | map(select(.type == "navigate"))[0]
           | .how == "form" and (.url | test("/shop/search\\.html\\?q=red")))'
    jcheck "the replayed clicks and typing are trusted" '[E[] | select(.type | IN("click", "type", "press")) | .trusted] | all'
    jcheck "add-to-cart click matched node add, the size select matched node size (value 9)" '
      (E | map(select(.type == "click" and .selector == "#add-to-cart")) | length == 1 and .[0].matched == ["add"])
      and (E | map(select(.type == "select"))[0] | .value == "9" and .matched == ["size"])'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# Playwright: fill + press Enter (GET form), a link, selectOption, a click on the <span> inside
# #add-to-cart; --until finished must end the run at that click, before the agent's extra click 2 s later.
s_pw_shop() {
  scenario_begin pw-shop || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" shop-red-runner-cart finished || { scenario_end; return; }
  start_agent pw-shop shop.mjs extra "$base"
  watch_done 60 0
  agent_done 60 0
  local last extra
  last=$(mark_time last) extra=$(mark_time extra)
  if [ -n "$last" ] && [ -n "$extra" ] && [ "$watch_ended" -lt "$extra" ]; then
    ok "pw-shop: --until finished: watch ended $(( watch_ended - last )) ms after the last node's step, before the agent's next action"
  else
    fail "pw-shop: --until finished: watch ended at $watch_ended, last node's step at ${last:-?}, the next action at ${extra:-?}"
  fi
  if files_ok; then
    expect_run finished 6 "search@3 query@3 product@4 size@5 add@6" '[0,0,0.4,0.6,0.8,1]' "$SHOP_STEPS"
    jcheck "one tab; the agent's goto is the only agent navigation" '(tabs | length) == 1 and ([E[] | select(.type == "navigate" and (.how | IN("goto", "back", "forward", "reload")))] | length) == 1'
    jcheck "the goto: navigate how=goto to /shop/" '(nav("goto")[0].url | test("/shop/$"))'
    jcheck "fill: one type step on #q with the final value" '(E | map(select(.type == "type"))) | length == 1 and .[0].selector == "#q" and .[0].value == "red running shoes"'
    jcheck "Enter: press (key Enter) on #q, then navigate how=form (a consequence: no step) to search.html?q=red+running+shoes" '
      (E | map(select(.type == "press"))) as $p | ($p | length) == 1 and $p[0].key == "Enter" and $p[0].selector == "#q"
      and (E | (map(.type) | index("press")) as $i | .[$i + 1:] | map(select(.type == "navigate"))[0]
           | .how == "form" and (.url | test("/shop/search\\.html\\?q=red\\+running\\+shoes$")))'
    jcheck "the form submit is recorded as information (a submit event) and is not a step" '(E | map(select(.type == "submit")) | length) >= 1'
    jcheck "the result link: navigate how=link to item.html?id=3" '(nav("link") | map(.url) | any(test("/shop/item\\.html\\?id=3$")))'
    jcheck "selectOption: select #size value 9, matched [size]" '(E | map(select(.type == "select"))) | length == 1 and .[0].selector == "#size" and .[0].value == "9" and .[0].matched == ["size"]'
    jcheck "click on the inner <span>: click on #add-to-cart (the button), matched [add], text Add to cart" '
      (E | map(select(.type == "click")) | last) | .selector == "#add-to-cart" and .matched == ["add"] and (.text | test("Add to cart"))'
    jcheck "trusted: the agent's clicks, typing and Enter" '[E[] | select(.type | IN("click", "type", "press")) | .trusted] | all'
    jcheck "nothing after the last node: no event of the agent's extra click (cart.html)" '[E[] | select((.url // "") | test("cart\\.html"))] | length == 0'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# --until steps:5 ends after the 5th step (the select), before the "Add to cart" click 1.5 s later
s_pw_steps() {
  scenario_begin pw-steps || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" shop-red-runner-cart steps:5 || { scenario_end; return; }
  start_agent pw-steps shop.mjs pause "$base"
  watch_done 60 1
  agent_done 60 0
  local s5 last
  s5=$(mark_time step5) last=$(mark_time last)
  if [ -n "$s5" ] && [ -n "$last" ] && [ "$watch_ended" -lt "$last" ]; then
    ok "pw-steps: --until steps:5 ended $(( watch_ended - s5 )) ms after step 5, before step 6"
  else
    fail "pw-steps: --until steps:5 ended at $watch_ended, step 5 at ${s5:-?}, step 6 done at ${last:-?}"
  fi
  if files_ok; then
    expect_run incomplete 5 "search@3 query@3 product@4 size@5" '[0,0,0.4,0.6,0.8]' '["nav:goto","type","press","click","select"]'
    jcheck "no click on #add-to-cart recorded" '[E[] | select(.selector == "#add-to-cart")] | length == 0'
  fi
  checks_end
  scenario_end
}

# An agent that fails half-way (4 steps, then a selector the page lacks); --until idle:5 ends the run
# 5 s after the last event: incomplete, exit 1. The agent attaches first and waits for a go file, created
# once watch has attached: node + Playwright take ~2 s to start, which would be idle time for watch
# (and 5 s, not less, because a loaded machine can take seconds from the go to the first event).
s_pw_idle() {
  scenario_begin pw-idle || { scenario_end; return; }
  start_agent pw-idle shop.mjs fail "$base" "$d/go"
  wait_mark connected 60 >/dev/null || { fail "pw-idle: the agent did not attach"; scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" shop-red-runner-cart idle:5 || { scenario_end; return; }
  touch "$d/go"
  watch_done 60 1
  agent_done 60 1
  local c4 s4
  c4=$(mark_time click4) s4=$(mark_time step4)
  if [ -n "$c4" ] && [ -n "$s4" ]; then
    # the last event (the navigation of step 4) lies between the agent's marks click4 and step4
    if [ $(( watch_ended - c4 )) -ge 5000 ] && [ $(( watch_ended - s4 )) -le 11000 ]; then
      ok "pw-idle: --until idle:5 ended $(( watch_ended - s4 ))..$(( watch_ended - c4 )) ms after the last event"
    else
      fail "pw-idle: --until idle:5 ended $(( watch_ended - s4 ))..$(( watch_ended - c4 )) ms after the last event (want 5 s + a little)"
    fi
  else
    fail "pw-idle: the agent did not reach step 4"
  fi
  if files_ok; then
    expect_run incomplete 4 "search@3 query@3 product@4" '[0,0,0.4,0.6]' '["nav:goto","type","press","click"]'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# Typing left pending when the agent navigates away (fill, then goto elsewhere): the recorder flushes the
# type step as the page goes away, so it reaches the monitor around the next page's navigation. It is one
# step on the old page, between the two gotos; no navigation is invented from its (old) URL.
s_pw_pagehide() {
  scenario_begin pw-pagehide || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" shop-red-runner-cart finished || { scenario_end; return; }
  start_agent pw-pagehide shop.mjs leave "$base"
  agent_done 60 0
  # the flushed type step and the second goto reach the trajectory (bounded; not a fixed second)
  typed_then_goto_() { grep -q '"type": *"type"' "$d/run.jsonl" && grep -q '"url": *"[^"]*/forum/"' "$d/run.jsonl"; }
  kn_wait_for "the type step and the second goto in the trajectory" 20 typed_then_goto_
  kill -INT "$wpid"
  watch_done 20 1
  if files_ok; then
    expect_run incomplete 3 "" '[0,0,0]' '["nav:goto","type","nav:goto"]'
    jcheck "the type step: #q, the final value, the old page's URL" '(E | map(select(.type == "type"))) | length == 1 and .[0].selector == "#q" and .[0].value == "red running shoes" and (.[0].url | test("/shop/$"))'
    jcheck "navigations: exactly goto /shop/, goto /forum/" '[E[] | select(.type == "navigate") | "\(.how) \(.url | sub("^http://[^/]+"; ""))"] == ["goto /shop/", "goto /forum/"]'
  fi
  checks_end
  scenario_end
}

# keynode replay of a broken workflow (step 4's selector is gone): replay waits 5 s for the element, then
# exits 1; watch --until idle:5 ends incomplete after the four steps replay could do
s_replay_broken() {
  scenario_begin replay-broken || { scenario_end; return; }
  start_watch "$cdp" "$d/wtasks.yaml" shop-broken idle:5 || { scenario_end; return; }
  start_replay "$d/wtasks.yaml" shop-broken
  agent_done 90 1
  watch_done 60 1
  if files_ok; then
    expect_run incomplete 4 "search@3 query@3 product@4" '[0,0,0.4,0.6]' '["nav:goto","type","press","click"]'
    jcheck "no select recorded (the step replay could not do)" '[E[] | select(.type == "select")] | length == 0'
  fi
  checks_end
  scenario_end
}

# Hash routing (Pinemail): the Settings link changes only the fragment: navigate how=hash, no step
s_pw_hash() {
  scenario_begin pw-hash || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" spa-mail-dark-theme finished || { scenario_end; return; }
  start_agent pw-hash mail.mjs full "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 4 "settings@2 theme@3 save@4" '[0,0.33333,0.66667,1]' '["nav:goto","click","select","click"]'
    jcheck "the Settings click: click #nav-settings, then navigate how=hash to …#/settings" '
      (E | (map(.type == "click" and .selector == "#nav-settings") | index(true)) as $i | $i != null
       and (.[$i + 1:] | map(select(.type == "navigate"))[0] | .how == "hash" and (.url | endswith("/spa/mail.html#/settings"))))'
    jcheck "the theme select matched [theme], the save click matched [save]" '
      (E | map(select(.type == "select"))[0] | .selector == "#theme" and .value == "dark" and .matched == ["theme"])
      and (E | map(select(.type == "click" and .selector == "#save-settings"))[0].matched == ["save"])'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# The step budget (upstream: max(10, 1.5 x reference length), at most 25; here 10): an agent that wanders
# for eleven steps cannot finish any more, so --until finished must end the run: status step_limit, exit 1
s_pw_budget() {
  scenario_begin pw-budget || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" spa-mail-dark-theme finished || { scenario_end; return; }
  start_agent pw-budget mail.mjs wander "$base"
  watch_done 20 1
  agent_done 60 0
  local w
  w=$(mark_time wandered)
  if [ -n "$w" ] && [ "$watch_rc" != 124 ] && [ "$watch_ended" -lt $(( w + 1500 )) ]; then
    ok "pw-budget: the run ended when the budget was spent (before the agent's later steps)"
  else
    fail "pw-budget: the run did not end when the budget was spent (watch rc $watch_rc, ended $watch_ended, budget spent at ${w:-?})"
  fi
  if files_ok; then
    jcheck "status step_limit, steps 10, nothing reached" 'R.status == "step_limit" and R.steps == 10 and R.reached == 0'
    jcheck "the first ten step events: goto and nine clicks" '[stepev[] | sig][0:10] == ["nav:goto","click","click","click","click","click","click","click","click","click"]'
    jcheck "step_scores has ten entries" '(R.step_scores | length) == 10'
  fi
  checks_end
  scenario_end
}

# pushState routing (Help Centre): Enter in the search box and the result link push URLs: how=history
s_pw_history() {
  scenario_begin pw-history || { scenario_end; return; }
  start_watch "$cdp" "$d/wtasks.yaml" kb-refund-search finished || { scenario_end; return; }
  start_agent pw-history kb.mjs full "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 4 "search@3 article@4" '[0,0,0.5,1]' '["nav:goto","type","press","click"]'
    jcheck "Enter: navigate how=history to kb.html?q=refund+damaged" '(nav("history") | map(.url) | any(test("/spa/kb\\.html\\?q=refund\\+damaged$")))'
    jcheck "the result link: navigate how=history to ?view=article&id=12" '(nav("history") | map(.url) | any(test("view=article&id=12$")))'
    jcheck "no navigate how=link/form for these (no document was loaded)" '(nav("link") + nav("form")) | length == 0'
    offline_agrees "$d/wtasks.yaml"
  fi
  checks_end
  scenario_end
}

# goBack is a step (how=back); links are not; --quiet prints nothing on stderr; the browser given as
# its ws:// URL
s_pw_back() {
  scenario_begin pw-back || { scenario_end; return; }
  local ws
  ws=$(curl -s --max-time 5 "$cdp/json/version" | jq -r .webSocketDebuggerUrl)
  start_watch "$ws" "$d/wtasks.yaml" forum-visits finished --quiet || { scenario_end; return; }
  start_agent pw-back forum.mjs full "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 4 "stove-post@2 tent-post@4" '[0,0.5,0.5,1]' '["nav:goto","click","nav:back","click"]'
    jcheck "goBack: navigate how=back to /forum/" '(nav("back") | length == 1 and (.[0].url | test("/forum/$")))'
    jcheck "the two post links: navigate how=link" '(nav("link") | map(.url) | (any(test("post\\.html\\?id=3$")) and any(test("post\\.html\\?id=5$"))))'
    offline_agrees "$d/wtasks.yaml"
  fi
  [ ! -s "$d/watch.err" ] && ok "pw-back: --quiet: nothing on stderr" || fail "pw-back: --quiet: stderr has $(wc -l <"$d/watch.err") line(s): $(head -2 "$d/watch.err")"
  checks_end
  scenario_end
}

# window.open popup (Journal newsletter): a second tab, navigate how=popup, the form in the popup
# (GET submit by a click: navigate how=form), Playwright check() on the terms checkbox
s_pw_popup() {
  scenario_begin pw-popup || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" popup-newsletter finished || { scenario_end; return; }
  start_agent pw-popup popup.mjs full "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 6 "popup@2 email@3 monthly@6 thanks@6" '[0,0.25,0.5,0.5,0.5,1]' '["nav:goto","click","type","select","click","click"]'
    jcheck "the popup: tab_open of a second tab, whose first navigate is how=popup to subscribe.html" '
      (tabs | length) == 2 and (tabs[1] as $t | E | map(select(.type == "navigate" and .tab == $t))[0]
        | .how == "popup" and (.url | test("/popup/subscribe\\.html$")))'
    jcheck "the steps in the popup are in the popup tab; the first two in the first tab" '
      tabs as $tb | [stepev[] | .tab] == [$tb[0], $tb[0], $tb[1], $tb[1], $tb[1], $tb[1]]'
    jcheck "the subscribe click: navigate how=form (no step) to thanks.html?…freq=monthly…" '(nav("form") | map(.url) | any(test("/popup/thanks\\.html\\?.*freq=monthly")))'
    jcheck "check(): one trusted click on #sub-terms" '(E | map(select(.type == "click" and .selector == "#sub-terms"))) | length == 1 and .[0].trusted == true'
    jcheck "the email type step matched [email]" '(E | map(select(.type == "type"))[0] | .selector == "#sub-email" and .value == "hiker@example.com" and .matched == ["email"])'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# A target=_blank link (Journal deals): a new tab; the element node is reached in it
s_pw_newtab() {
  scenario_begin pw-newtab || { scenario_end; return; }
  start_watch "$cdp" "$d/wtasks.yaml" deals-reveal finished || { scenario_end; return; }
  start_agent pw-newtab popup.mjs newtab "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 3 "deals@2 reveal@3" '[0,0.5,1]' '["nav:goto","click","click"]'
    jcheck "the new tab: tab_open, first navigate how=popup to deals.html; the reveal click is there, matched [reveal]" '
      (tabs | length) == 2 and (tabs[1] as $t | (E | map(select(.type == "navigate" and .tab == $t))[0]
        | .how == "popup" and (.url | test("/popup/deals\\.html$")))
        and (E | map(select(.type == "click" and .selector == "#reveal-code"))[0] | .tab == $t and .matched == ["reveal"]))'
    offline_agrees "$d/wtasks.yaml"
  fi
  checks_end
  scenario_end
}

# Answers: a Playwright agent reads the room in a message (hash route) and reports it outside the browser,
# one line in the file `watch --answer-file` follows; the answer is a step and reaches the answer node
s_pw_answer() {
  scenario_begin pw-answer || { scenario_end; return; }
  : >"$d/answers.txt"
  start_watch "$cdp" "$d/tasks.yaml" spa-mail-meeting-room finished --answer-file "$d/answers.txt" || { scenario_end; return; }
  start_agent pw-answer mail.mjs answer "$base"
  watch_done 60 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 3 "message@2 room@3" '[0,0.5,1]' '["nav:goto","click","answer"]'
    jcheck "the answer event carries the text" '(E | map(select(.type == "answer"))) | length == 1 and .[0].text == "Room 4B"'
    jcheck "the message click: navigate how=hash to #/message/4" '(nav("hash") | map(.url) | any(test("#/message/4$")))'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# keynode replay of the Help Centre task with its answer step (--answer-file shared with watch): pushState
# navigations in a replayed tab, and the answer node
s_replay_answer() {
  scenario_begin replay-answer || { scenario_end; return; }
  : >"$d/answers.txt"
  start_watch "$cdp" "$d/tasks.yaml" spa-kb-damaged-refund finished --answer-file "$d/answers.txt" || { scenario_end; return; }
  start_replay "$d/tasks.yaml" spa-kb-damaged-refund --answer-file "$d/answers.txt"
  watch_done 90 0
  agent_done 60 0
  if files_ok; then
    expect_run finished 5 "search@3 article@4 deadline@5" '[0,0,0.33333,0.66667,1]' '["nav:goto","type","press","click","answer"]'
    jcheck "Enter and the result link: navigate how=history (pushState), no document load" '
      (nav("history") | map(.url) | (any(test("kb\\.html\\?q=refund")) and any(test("view=article&id=12$"))))
      and ((nav("link") + nav("form")) | length == 0)'
    jcheck "the answer event carries the text" '(E | map(select(.type == "answer"))) | length == 1 and .[0].text == "30 days"'
    offline_agrees "$d/tasks.yaml"
  fi
  checks_end
  scenario_end
}

# FORGERY: a page that calls every guessable binding name with a forged payload and fakes events,
# trusted-looking ones included (execCommand, requestSubmit, scrollBy), and navigates itself. Only the
# agent's fill and click may be trusted; the page's own navigations are no steps.
s_forgery() {
  scenario_begin forgery fixtures || { scenario_end; return; }
  start_watch "$cdp" "$d/wtasks.yaml" forge-real finished || { scenario_end; return; }
  start_agent forgery forge.mjs full "$fbase"
  watch_done 60 0
  agent_done 60 0
  if grep -q '^agent: found: \[\]$' "$d/agent.out"; then ok "forgery: the page found no keynode global to call"
  else fail "forgery: the page found globals: $(grep 'found:' "$d/agent.out")"; fi
  if files_ok; then
    jcheck "status finished: node page at the step before the page's location.assign, real at the agent's click (the last step)" '
      R.status == "finished"
      and ((E | map(.type == "navigate" and .how == "script") | index(true)) as $i
           | $i != null and reached == "page@\(E[0:$i] | map(select(isstep)) | length) real@\(R.steps)")'
    jcheck "trusted:true only on what the agent did: type #real-name, click #real" '
      [E[] | select(.type != "navigate" and .trusted == true) | "\(.type) \(.selector)"] == ["type #real-name", "click #real"]'
    jcheck "the page's synthetic events are recorded, trusted:false (clicks on #bait, typing in #name, Enter, select, submit)" '
      ([E[] | select(.trusted == false) | .type] | unique) as $k
      | ($k | index("click")) != null and ($k | index("type")) != null and ($k | index("press")) != null and ($k | index("select")) != null
      and ([E[] | select(.selector == "#bait")] | length >= 2 and all(.trusted == false))'
    jcheck "no forged payload reached the trajectory" '[E[] | tostring | select(test("FORGED"))] | length == 0'
    jcheck "the page's execCommand typing (#name), requestSubmit and scrollBy are not trusted, though the UA fires them trusted" '
      ([E[] | select(.type == "type" and .selector == "#name")] | length >= 1)
      and ([E[] | select((.selector == "#name") or (.type == "submit") or (.type == "scroll")) | .trusted] | all(. == false))'
    jcheck "the page's own navigations are no steps: location.assign how=script, pushState how=history, hash how=hash; one goto" '
      (nav("script") | map(.url) | any(test("forge\\.html\\?round=2$")))
      and (nav("history") | length >= 1) and (nav("hash") | length >= 1)
      and ([E[] | select(.type == "navigate" and (.how | IN("goto", "back", "forward", "reload")))] | length == 1)'
    jcheck "every step but the goto carries trusted (true or false)" '[stepev[] | select(.type != "navigate") | .trusted | type] | all(. == "boolean")'
  fi
  checks_end
  scenario_end
}

# The browser dies mid-run (SIGKILL to Chromium): watch exits 2, "browser disconnected" on stderr, the
# trajectory keeps every event before the kill, the result says status error
s_killed() {
  scenario_begin browser-killed || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" shop-red-runner-cart finished || { scenario_end; return; }
  start_agent browser-killed shop.mjs hang "$base"
  if ! wait_mark ready 60 >/dev/null; then
    fail "browser-killed: the agent did not get ready"; sed 's/^/    agent: /' "$d/agent.out" | tail; scenario_end; return
  fi
  kill -KILL "$cpid"
  local killed
  killed=$(now_ms)
  wait "$cpid" 2>/dev/null
  kn_forget "$cpid"
  watch_done 30 2
  [ "$watch_rc" != 124 ] && ok "browser-killed: watch ended $(( watch_ended - killed )) ms after the kill"
  grep -q "browser disconnected" "$d/watch.err" && ok "browser-killed: stderr says \"browser disconnected\"" ||
    fail "browser-killed: stderr lacks \"browser disconnected\": $(tail -2 "$d/watch.err")"
  if files_ok; then
    jcheck "status error" 'R.status == "error"'
    jcheck "the trajectory holds the four steps done before the kill" '[stepev[] | sig][0:4] == ["nav:goto","type","press","click"]'
    jcheck "… and the navigations they caused (form to search.html, link to item.html?id=3)" '
      (nav("form") | map(.url) | any(test("search\\.html\\?q="))) and (nav("link") | map(.url) | any(test("item\\.html\\?id=3$")))'
    jcheck "the result counts what was seen: steps 4, nodes search@3 query@3 product@4" 'R.steps == 4 and reached == "search@3 query@3 product@4"'
  fi
  checks_end
  scenario_end
}

# SIGINT ends a run cleanly with a result: not finished (exit 1), status incomplete; progress on stderr
s_sigint() {
  scenario_begin sigint || { scenario_end; return; }
  start_watch "$cdp" "$d/tasks.yaml" spa-mail-dark-theme finished || { scenario_end; return; }
  start_agent sigint mail.mjs partial "$base"
  if ! wait_mark ready 60 >/dev/null; then
    fail "sigint: the agent did not get ready"; sed 's/^/    agent: /' "$d/agent.out" | tail; scenario_end; return
  fi
  kill -INT "$wpid"
  watch_done 20 1
  if files_ok; then
    expect_run incomplete 2 "settings@2" '[0,0.33333]' '["nav:goto","click"]'
  fi
  [ -s "$d/watch.err" ] && ok "sigint: progress lines on stderr (without --quiet)" || fail "sigint: nothing on stderr without --quiet"
  checks_end
  scenario_end
}

all="cli replay-shop pw-shop pw-steps pw-idle pw-pagehide replay-broken pw-hash pw-budget pw-history pw-back pw-popup pw-newtab pw-answer replay-answer forgery browser-killed sigint"
started=$(now_ms)
for s in $all; do
  want "$s" || continue
  case $s in
    cli) s_cli ;;
    replay-shop) s_replay_shop ;;
    pw-shop) s_pw_shop ;;
    pw-steps) s_pw_steps ;;
    pw-idle) s_pw_idle ;;
    pw-pagehide) s_pw_pagehide ;;
    replay-broken) s_replay_broken ;;
    pw-hash) s_pw_hash ;;
    pw-budget) s_pw_budget ;;
    pw-history) s_pw_history ;;
    pw-back) s_pw_back ;;
    pw-popup) s_pw_popup ;;
    pw-newtab) s_pw_newtab ;;
    pw-answer) s_pw_answer ;;
    replay-answer) s_replay_answer ;;
    forgery) s_forgery ;;
    browser-killed) s_killed ;;
    sigint) s_sigint ;;
  esac
done
echo "--- $(( ($(now_ms) - started) / 1000 )) s"
kn_finish
