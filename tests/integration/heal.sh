#!/bin/bash
# heal.sh — healing that weighs evidence against real headless Chromium: the Trailwiki
# task (tests/sites/skin/tasks.yaml) replayed with `keynode replay --validate` on the unchanged
# site (passed, no drift) and on its re-skinned copy tests/sites/skin-v2 ("View history" →
# "history", same href, same role, same place, other classes: passed, step 2 ok-by-fallback with the
# drift, its evidence and a verified repair proposal), and once on each real change: skin-broken (the
# relabelled tab leads elsewhere) and skin-ambiguous (a "View history" tab with another href beside the
# relabelled one: the two contradict) — broken at step 2, element not found. Each variant is served at
# /skin/; skin-broken and skin-ambiguous hold only the files that differ from skin-v2.
# The unchanged and the re-skinned task are replayed KN_HEAL_TIMES times each (default 1: every check once;
# tests/bench/bench_repeats.sh runs 10 to show the verdicts never waver).
# usage: heal.sh KEYNODE SOURCE_DIR
#
# ctest: integration.heal ARGS=keynode,repo TIMEOUT=300
kn=$1 src=$2 times=${KN_HEAL_TIMES:-1}
. "$(dirname "$0")/lib.sh"
kn_lib_init heal
command -v jq >/dev/null || kn_fail "missing jq"
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish

# variant NAME DIR... — a site root with DIRs (tests/sites/…, later ones laid over) at /skin/, served;
# the task replayed TIMES times into $tmp/NAME-<i>/; exit codes in rcs
variant() {
  local name=$1 times=$2 d i
  shift 2
  mkdir -p "$tmp/root-$name/skin"
  for d in "$@"; do cp -r "$sites/$d/." "$tmp/root-$name/skin/"; done
  rcs=()
  kn_sites_start "$kn" "$tmp/root-$name" "$tmp/sites-$name.log" || return 1
  kn_task_at_site "$sites/skin/tasks.yaml" "$tmp/tasks-$name.yaml" "$port"
  for i in $(seq 1 "$times"); do
    "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-$name.yaml" --out "$tmp/$name-$i" \
      >"$tmp/$name-$i.out" 2>"$tmp/$name-$i.err"
    rcs+=("$?")
  done
  kn_stop "$sites_pid"
}

report() { jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), steps: [.replay.steps[] | {outcome, locator, detail}], repairs: [.repairs[]? | {step, was, proposed, verified}]}' "$1" 2>&1; }

# --- unchanged: passed every time, every step by its selector, no drift, no proposal
variant v1 "$times" skin
for i in $(seq 1 "$times"); do
  f=$tmp/v1-$i/skin-view-history.json
  [ "${rcs[$((i - 1))]}" = 0 ] && jq -e '.status == "passed" and (.replay.drift | length == 0)
      and ([.replay.steps[] | .outcome == "ok"] | all) and ([.replay.key_nodes[] | .reached] | all)
      and (.repairs | length == 0)' "$f" >/dev/null &&
    kn_ok "v1 run $i: passed, every step ok by its selector, both key nodes reached" ||
    kn_fail "v1 run $i: exit ${rcs[$((i - 1))]}: $(report "$f") $(cat "$tmp/v1-$i.err")"
done

# --- skin changed: the relabelled tab is the recorded element with drift, found by its href
variant v2 "$times" skin-v2
for i in $(seq 1 "$times"); do
  f=$tmp/v2-$i/skin-view-history.json
  [ "${rcs[$((i - 1))]}" = 0 ] && jq -e '.status == "passed" and ([.replay.key_nodes[] | .reached] | all)
      and ([.replay.drift[] | {step, locator, proposed_selector}] == [{step: 2, locator: "href", proposed_selector: "#ca-history > a"}])
      and .replay.steps[1].outcome == "ok-by-fallback" and .replay.steps[2].outcome == "ok"
      and (.replay.steps[1].detail | test("recorded text .View history., the element.s is .history., relabelled \\(evidence 7: href agrees\\+3, role agrees\\+1, tag agrees\\+1, place agrees\\+2\\)"))
      and .replay.steps[1].postcondition == true' "$f" >/dev/null &&
    kn_ok "v2 run $i: passed; step 2 ok-by-fallback by its href, drift 'View history' → 'history' with its evidence (7)" ||
    kn_fail "v2 run $i: exit ${rcs[$((i - 1))]}: $(report "$f") $(cat "$tmp/v2-$i.err")"
  jq -e '[.repairs[] | {step, kind, was, proposed, verified}] == [{step: 2, kind: "selector",
      was: "li.vector-tab-noicon:nth-child(3) > a", proposed: "a[href=\"history.html?title=Trail_etiquette\"]", verified: true}]
      and (.repairs[0].yaml | test("text: \"history\""))' "$f" >/dev/null &&
    kn_ok "v2 run $i: a verified repair proposal (the tab by its href, text: \"history\")" ||
    kn_fail "v2 run $i: repairs $(jq -c .repairs "$f" 2>&1)"
done
grep -q 'drift: step 2 selector li.vector-tab-noicon:nth-child(3) > a no longer matches; use #ca-history > a' "$tmp/v2-1.out" &&
  kn_ok "v2: the drift warning is printed with the proposed selector" || kn_fail "v2: no drift line: $(cat "$tmp/v2-1.out")"

# --- really broken: the relabelled tab leads elsewhere; two tabs contradict each other
variant broken 1 skin-v2 skin-broken
f=$tmp/broken-1/skin-view-history.json
[ "${rcs[0]}" = 1 ] && jq -e '.status == "broken" and .broken.step == 2 and .broken.reason == "element not found"
    and .broken.key_node == null and (.replay.steps | length == 2)' "$f" >/dev/null &&
  kn_ok "broken (the history tab leads to the talk page): broken at step 2, element not found" ||
  kn_fail "broken: exit ${rcs[0]}: $(report "$f")"
variant ambiguous 1 skin-v2 skin-ambiguous
f=$tmp/ambiguous-1/skin-view-history.json
[ "${rcs[0]}" = 1 ] && jq -e '.status == "broken" and .broken.step == 2 and .broken.reason == "element not found"
    and (.broken.detail | test("two elements contradict \\(role\\+text locator: the recorded name, another href; href locator: recorded text .View history., the element.s is .history., relabelled"))' "$f" >/dev/null &&
  kn_ok "ambiguous (\"history\" with the recorded href, \"View history\" with another): broken at step 2, the two contradict" ||
  kn_fail "ambiguous: exit ${rcs[0]}: $(report "$f")"
kn_finish
