#!/bin/bash
# softpage.sh — what the page shows is evidence: the Ridgeline Lists task (tests/sites/softpage, an
# item page that is a shell fetching api/items/N) replayed with `keynode replay --validate` from its
# recorded workflow (each step's `after:` carries what the page showed). Unchanged: passed, KN_SOFTPAGE_TIMES
# times (default 3: never a false alarm). softpage-v2 (item 7 removed: the shell answers 200, its data
# request 404, it shows "Sorry, we couldn't find it"): broken at step 2, reason "page shows an error",
# the 404 request, URL and screenshot in the evidence — although the URL key node is reached.
# softpage-analytics (an own-site analytics call that 404s on every page, a third party that refuses
# connections; its workflow recorded them): passed; against the unchanged site's workflow, which did not
# have the call: broken at step 1. Recorded: `keynode record` while an agent (agents/softpage.mjs) opens the
# item on the analytics site writes each step's baseline, and that recording replays passed there. Each variant is served at /softpage/.
# usage: softpage.sh KEYNODE SOURCE_DIR
#
# ctest: integration.softpage ARGS=keynode,repo TIMEOUT=300
kn=$1 src=$2 times=${KN_SOFTPAGE_TIMES:-3}
. "$(dirname "$0")/lib.sh"
kn_lib_init softpage
command -v jq >/dev/null || kn_fail "missing jq"
sites=$src/tests/sites
kn_chromium_start "$tmp" || kn_finish

# variant NAME TIMES WORKFLOWS [CHANGED] — tests/sites/softpage (with CHANGED laid over it) at
# /softpage/, served; the task replayed from WORKFLOWS TIMES times into $tmp/NAME-<i>/; exit codes in rcs
variant() {
  local name=$1 times=$2 wf=$3 changed=$4 i
  if [ -n "$changed" ]; then
    kn_sites_overlay "$sites/softpage" "$sites/$changed" "$tmp/root-$name/softpage" || return 1
  else
    mkdir -p "$tmp/root-$name/softpage" && cp -r "$sites/softpage/." "$tmp/root-$name/softpage/"
  fi
  rcs=()
  kn_sites_start "$kn" "$tmp/root-$name" "$tmp/sites-$name.log" || return 1
  kn_task_at_site "$sites/softpage/tasks.yaml" "$tmp/tasks-$name.yaml" "$port"
  kn_task_at_site "$wf" "$tmp/wf-$name" "$port"
  for i in $(seq 1 "$times"); do
    "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-$name.yaml" --workflows "$tmp/wf-$name" \
      --out "$tmp/$name-$i" >"$tmp/$name-$i.out" 2>"$tmp/$name-$i.err"
    rcs+=("$?")
  done
  kn_stop "$sites_pid"
}

report() { jq -c '{status, broken: (.broken // {} | del(.dom_excerpt)), steps: [.replay.steps[] | {outcome, detail}], key_nodes: .replay.key_nodes}' "$1" 2>&1; }

# --- unchanged: passed every time, every step ok
variant v1 "$times" "$sites/softpage/workflows"
for i in $(seq 1 "$times"); do
  f=$tmp/v1-$i/softpage-item.json
  [ "${rcs[$((i - 1))]}" = 0 ] && jq -e '.status == "passed" and ([.replay.steps[] | .outcome == "ok"] | all)
      and (.replay.steps | length == 2) and ([.replay.key_nodes[] | .reached] | all)' "$f" >/dev/null &&
    kn_ok "v1 run $i: passed, both steps ok, the item reached" ||
    kn_fail "v1 run $i: exit ${rcs[$((i - 1))]}: $(report "$f") $(cat "$tmp/v1-$i.err")"
done

# --- item removed: a soft 404 (200, the shell, "Sorry, we couldn't find it", its data request 404)
variant v2 1 "$sites/softpage/workflows" softpage-v2
f=$tmp/v2-1/softpage-item.json
[ "${rcs[0]}" = 1 ] && jq -e '.status == "broken" and .broken.step == 2 and .broken.reason == "page shows an error"
    and .broken.key_node == null and (.broken.request.url | test("/softpage/api/items/7$")) and .broken.request.status == 404
    and (.broken.url | test("/softpage/item.html\\?id=7$")) and (.broken.detail | test("answered 404; the page says .couldn.t find."))
    and .replay.steps[1].outcome == "page shows an error"' "$f" >/dev/null &&
  kn_ok "v2: broken at step 2, page shows an error, the 404 of api/items/7 in its evidence" ||
  kn_fail "v2: exit ${rcs[0]}: $(report "$f") $(cat "$tmp/v2-1.err")"
shot=$(jq -r '.broken.screenshot // empty' "$f")
[ -n "$shot" ] && [ -s "$tmp/v2-1/$shot" ] && kn_ok "v2: the screenshot $shot is there" ||
  kn_fail "v2: no screenshot ($(ls "$tmp/v2-1"))"

# --- an own-site analytics call that always fails (and a third party refusing connections): passed
variant analytics 1 "$sites/softpage-analytics/workflows" softpage-analytics
f=$tmp/analytics-1/softpage-item.json
[ "${rcs[0]}" = 0 ] && jq -e '.status == "passed" and ([.replay.steps[] | .outcome == "ok"] | all)' "$f" >/dev/null &&
  kn_ok "analytics: passed (the failing api/track call was the recording's too)" ||
  kn_fail "analytics: exit ${rcs[0]}: $(report "$f") $(cat "$tmp/analytics-1.err")"

# --- the same site against a recording that did not have the failing call: the baseline is what
# kept it passed (the call is seen, and new to this recording)
variant analytics-new 1 "$sites/softpage/workflows" softpage-analytics
f=$tmp/analytics-new-1/softpage-item.json
[ "${rcs[0]}" = 1 ] && jq -e '.status == "broken" and .broken.step == 1 and .broken.reason == "page shows an error"
    and (.broken.request.url | test("/softpage/api/track\\?page=")) and .broken.request.status == 404' "$f" >/dev/null &&
  kn_ok "analytics against a recording without the call: broken at step 1 (api/track 404 is new)" ||
  kn_fail "analytics-new: exit ${rcs[0]}: $(report "$f") $(cat "$tmp/analytics-new-1.err")"

# --- recorded: `keynode record` while an agent opens the item on the analytics site writes the
# baseline (no error page, the failing api/track call), and replaying that recording passes there
here=$(cd "$(dirname "$0")" && pwd)
if command -v node >/dev/null && "$here/node/ensure.sh"; then
  kn_sites_overlay "$sites/softpage" "$sites/softpage-analytics" "$tmp/root-rec/softpage"
  kn_sites_start "$kn" "$tmp/root-rec" "$tmp/sites-rec.log" || kn_finish
  kn_task_at_site "$sites/softpage/tasks.yaml" "$tmp/tasks-rec.yaml" "$port"
  kn_spawn -o "$tmp/rec.out" -e "$tmp/rec.err" rec "$kn" record --browser "$cdp" --tasks "$tmp/tasks-rec.yaml" \
    --task softpage-item --out "$tmp/recorded"
  kn_wait_for "record to say it is recording" 30 grep -q '^recording task' "$tmp/rec.out"
  node "$here/agents/softpage.mjs" "$cdp" "http://127.0.0.1:$port" "$tmp/marks-rec" >"$tmp/agent-rec.out" 2>&1 ||
    kn_fail "the agent failed: $(tail -3 "$tmp/agent-rec.out" | tr "\n" " ")"
  kn_wait_for "record to print step 2" 10 grep -q '^  step 2 ' "$tmp/rec.out"
  kill -TERM "${kn_spawned[rec]}" 2>/dev/null # as Ctrl-C (it ends by itself once every key node is reached)
  kn_wait_exit rec 30
  w=$tmp/recorded/softpage-item.yaml
  [ "$(grep -c 'error_page: false, failed_requests: "/softpage/api/track"' "$w" 2>/dev/null)" = 2 ] &&
    kn_ok "recorded: both steps carry the baseline (no error page, api/track failing)" ||
    kn_fail "recorded: $(cat "$w" "$tmp/rec.out" "$tmp/rec.err" 2>&1 | tail -20)"
  "$kn" replay --validate --quiet --browser "$cdp" --tasks "$tmp/tasks-rec.yaml" --workflows "$tmp/recorded" \
    --out "$tmp/rec-replay" >"$tmp/rec-replay.out" 2>&1
  f=$tmp/rec-replay/softpage-item.json
  jq -e '.status == "passed"' "$f" >/dev/null && kn_ok "the recorded workflow passes on the site it was recorded on" ||
    kn_fail "recorded replay: $(report "$f") $(cat "$tmp/rec-replay.out")"
  kn_stop "$sites_pid"
else
  kn_fail "node or playwright-core missing (tests/integration/node/ensure.sh)"
fi
kn_finish
