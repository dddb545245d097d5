#!/usr/bin/env bash
# shadow.sh — selectors as people write them: key nodes and workflow steps in plain CSS
# (`#coupon`, as DevTools' "Copy selector" gives it) name elements inside open shadow roots the way
# Playwright's CSS does — the light DOM first, then the open shadow roots — while `host >> inner` chains
# still work. Real headless Chromium, `keynode sites` serving tests/sites/shadow-coupon (a checkout with a
# <coupon-box> web component: #coupon in its open shadow root, #apply in a nested one).
#
#   tests/integration/shadow.sh KEYNODE_BIN REPO_DIR
#
#   watch     a Playwright agent (agents/shadow.mjs) fills #coupon and clicks #apply while `keynode watch`
#             scores task shadow-coupon: 3 of 3 key nodes reached, live (`matched`); the events name the
#             elements by their chains (`#coupons >> #coupon`); the trace's probe resolves the plain
#             key-node selectors too
#   offline   the same trajectory without its `matched` lists, scored by `keynode score`: still 3 of 3
#             (a plain reference is compared with a recorded chain's last part)
#   edges     the same agent (typing key by key) against shadow-coupon-edges: a chain key node is reached,
#             `button.apply` names the light-DOM button first and is not, malformed selectors match nothing
#             and break nothing (watch exits cleanly, the valid nodes are reached)
#   validate  `keynode replay --validate` of shadow-coupon, whose steps are plain CSS: passed, every step by
#             its own selector (no fallback, no drift), 3 of 3 key nodes
#
# Exit 0 all checks passed, 1 any failed.
#
# ctest: integration.shadow ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: shadow.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: shadow.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init shadow

command -v jq >/dev/null 2>&1 || { kn_fail "jq not found (apt-get install jq)"; kn_finish; }
[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "node/ensure.sh failed"; kn_finish; }

kn_sites_start "$kn" "$repo/tests/sites/shadow-coupon" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/sites/shadow-coupon/tasks.yaml" "$tmp/tasks.yaml" "$port"

# watched NAME TASK MODE UNTIL [WATCH ARGS…] — a fresh Chromium, `keynode watch` on TASK, the agent in
# MODE; files in $d. UNTIL finished: watch ends by itself; anything else: SIGINT once the agent is done.
watched() {
  sc=$1
  d=$tmp/$sc
  mkdir -p "$d"
  echo "--- $sc"
  kn_chromium_start "$d" || return 1
  local int=()
  [ "$4" != finished ] && int=(--int)
  kn_watch_scenario "$d" "${int[@]}" -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "$2" --until "$4" "${@:5}" \
    -- node "$here/agents/shadow.mjs" "$cdp" "$base" "$d/marks" "$3" || return 1
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

# --- watch: the plain-CSS key nodes reached live
if watched watch shadow-coupon fill finished --trace on --trace-dir "$tmp/watch/trace"; then
  check "finished: 3 of 3 key nodes reached" 'R.status == "finished" and R.reached == 3 and R.total == 3'
  check "#coupon (in <coupon-box>'s open shadow root) reached by the type step, live" '
    [E[] | select(.type == "type")] | length == 1 and (.[0] | .selector == "#coupons >> #coupon"
      and .value == "SPRING25" and .matched == ["code"] and .trusted == true)'
  check "#apply (one shadow root deeper) reached by the click, live" '
    [E[] | select(.type == "click")] | length == 1 and (.[0] | .selector == "#coupons >> apply-button >> #apply"
      and .text == "Apply" and .matched == ["apply"] and .trusted == true)'
  check "the URL key node reached by the navigation the click started" 'node("applied").reached_at_step == 3'
  # the trace's probe resolves key-node selectors with the same rule: #coupon and #apply are found
  idx=$(find "$tmp/watch/trace" -name index.json | head -1)
  if [ -n "$idx" ] && jq -e '[.. | objects | select(has("selectors")) | .selectors
        | map(select(.node == "code" or .node == "apply") | .count)] | any(. == [1, 1])' "$idx" >/dev/null; then
    kn_ok "$sc: on the checkout page the trace finds one element for each plain key-node selector"
  else kn_fail "$sc: trace selector counts: $( [ -n "$idx" ] && jq -c '[.. | objects | select(has("selectors")) | .selectors]' "$idx" | cut -c1-300)"; fi
  kn_stop "$cpid"

  # --- offline: the same trajectory without `matched`, scored from its selectors
  sc=offline
  jq -c 'del(.matched)' "$tmp/watch/run.jsonl" >"$tmp/offline.jsonl"
  if "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/offline.jsonl" --json >"$tmp/offline.json" 2>"$tmp/offline.err" &&
    jq -e '.results[0] | .reached == 3 and .total == 3' "$tmp/offline.json" >/dev/null; then
    kn_ok "$sc: without live matches, the plain references match the recorded chains' last parts: 3 of 3"
  else kn_fail "$sc: $(jq -c '.results[0] | {reached, total, status}' "$tmp/offline.json" 2>/dev/null) $(tail -2 "$tmp/offline.err")"; fi
fi

# --- edges: chains, light DOM first, malformed selectors
if watched edges shadow-coupon-edges keys idle:60; then
  check "reached: the padded plain field and the chain; not: the light-DOM-first and the malformed ones" '
    ([R.key_nodes[] | select(.score >= 1) | .id] | sort) == ["chain", "code"]'
  check "the click matched the chain key node only (button.apply names the light-DOM button first)" '
    [E[] | select(.type == "click")] | length == 1 and .[0].matched == ["chain"]'
  check "typing key by key is one type step, matched" '
    [E[] | select(.type == "type")] | length == 1 and (.[0] | .value == "SPRING25" and .matched == ["code"])'
  kn_stop "$cpid"
fi

# --- validate: the plain-CSS workflow replays
sc=validate
d=$tmp/$sc
mkdir -p "$d/out"
echo "--- $sc"
if kn_chromium_start "$d"; then
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shadow-coupon --out "$d/out" \
    >"$d/replay.out" 2>"$d/replay.err"
  rrc=$?
  [ $rrc = 0 ] && kn_ok "$sc: exit 0" || { kn_fail "$sc: exit $rrc"; cat "$d/replay.out" "$d/replay.err" | tail -8 | sed 's/^/    /'; }
  if jq -e '.status == "passed" and (.replay.drift | length == 0)
        and ([.replay.steps[] | .outcome == "ok"] | all)
        and ([.replay.steps[] | select(.verb == "type" or .verb == "click") | .locator] | all(. == "selector"))
        and ([.replay.key_nodes[] | .reached] | length == 3 and all)' "$d/out/shadow-coupon.json" >/dev/null; then
    kn_ok "$sc: passed, #coupon and #apply found by their own plain selectors, 3 of 3 key nodes"
  else kn_fail "$sc: $(jq -c '{status, broken, steps: [.replay.steps[] | {verb, outcome, locator}], nodes: .replay.key_nodes}' "$d/out/shadow-coupon.json" 2>&1 | cut -c1-600)"; fi
  kn_stop "$cpid"
fi

kn_finish
