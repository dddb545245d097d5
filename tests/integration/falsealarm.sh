#!/bin/bash
# falsealarm.sh — no false alarm on a site that did not change: replay validation of
# the false-alarm corpus (tests/sites/async: eleven pages whose steps finish later than they start) against
# real headless Chromium and `keynode sites`. Every unchanged task must be `passed` with no drift every time;
# every changed one (tests/sites/async-v2 laid over a copy) `broken` with exactly the step, reason and key node
# of tests/sites/async-v2/expected.json. The same four ways a maintainer replays:
#   inline   `keynode replay --validate` of the task file's inline steps (hand-written: no postcondition)
#   after    the same steps as workflows with recorded postconditions (tests/sites/async/postconditions)
#   record   workflows `keynode record` writes while a Playwright agent does each task (agents/async.mjs)
#   worker   `keynode worker` replay jobs (POST /api/replays) on a private PostgreSQL and `keynode serve`
# Unchanged tasks are replayed KN_FALSEALARM_REPEATS times (default 2) per way, changed ones once. Env
# KN_FALSEALARM_ONLY="TASK …" limits the tasks, KN_FALSEALARM_PARTS="inline after …" the ways (the sanitizer
# build runs a subset). Missing tools fail. No time is asserted.
# usage: falsealarm.sh KEYNODE SOURCE_DIR
#
# The sanitizer build replays five of the eleven tasks once each way but record (the recorder's side is
# JavaScript, the same in both builds).
# ctest: integration.falsealarm ARGS=keynode,repo TIMEOUT=1200 SANITIZE_TIMEOUT=900 ENV=KN_FALSEALARM_REPEATS=1 'SANITIZE_ENV=KN_FALSEALARM_ONLY=timer-nav fetch-nav remount lazy-list late-iframe' 'SANITIZE_ENV=KN_FALSEALARM_PARTS=inline after worker'
kn=$1 src=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init falsealarm
here=$(cd "$(dirname "$0")" && pwd)
for t in jq node curl; do command -v $t >/dev/null || { kn_fail "missing $t"; kn_finish; }; done
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
corpus=$src/tests/sites/async
exp=$src/tests/sites/async-v2/expected.json
reps=${KN_FALSEALARM_REPEATS:-2}
tasks=${KN_FALSEALARM_ONLY:-$(jq -r 'keys[] | select(startswith("_") | not)' "$exp")}
parts=${KN_FALSEALARM_PARTS:-inline after record worker}
for t in $tasks; do grep -q "^  - id: $t\$" "$corpus/tasks.yaml" || kn_fail "$t: not a task of $corpus/tasks.yaml"; done
[ "$(echo $tasks | wc -w)" -gt 0 ] || { kn_fail "no tasks"; kn_finish; }

kn_chromium_start "$tmp" || kn_finish
kn_sites_overlay "$corpus" "$src/tests/sites/async-v2" "$tmp/v2root" || { kn_fail "cannot build the changed site"; kn_finish; }
kn_sites_start "$kn" "$corpus" "$tmp/sites-v1.log" || kn_finish
port1=$port
kn_sites_start "$kn" "$tmp/v2root" "$tmp/sites-v2.log" || kn_finish
port2=$port
# on_port FILE PORT — FILE with the corpus URLs moved to PORT
on_port() { kn_task_at_site "$1" - "$2"; }
for v in 1 2; do
  eval "p=\$port$v"
  on_port "$corpus/tasks.yaml" "$p" >"$tmp/tasks-v$v.yaml"
  mkdir -p "$tmp/after-v$v"
  for f in "$corpus"/postconditions/*.yaml; do on_port "$f" "$p" >"$tmp/after-v$v/$(basename "$f")"; done
done

# a recorded workflow never holds the card number the agent typed (late-iframe): it says `secret: CARD`, and
# a replay types $KN_SECRET_CARD
export KN_SECRET_CARD=4242424242424242
# validate OUTDIR TASKFILE TASK [REPLAY_ARGS…] — one `replay --validate` of TASK, its report OUTDIR/TASK.json
validate() {
  local out=$1 file=$2 t=$3
  shift 3
  mkdir -p "$out"
  "$kn" replay --validate --quiet --no-repairs --browser "$cdp" --tasks "$file" --task "$t" --out "$out" "$@" \
    >>"$out/replay.out" 2>>"$out/replay.err"
}
# brief FILE — the parts of a report a failure message shows
brief() { jq -c '{status, broken: (.broken // {} | del(.dom_excerpt, .selector, .url)), drift: [.replay.drift[]? | {step, locator, detail}],
  reached_at: [.key_nodes[]? | "\(.id):\(.reached_at_step)"],
  steps: [.replay.steps[]? | "\(.step):\(.outcome)"]}' "$1" 2>&1 | cut -c1-600; }
# Both checks also want no key node counted before the first step: that would be a page of another
# validation (an earlier replay's late navigation) scored in this one, a verdict not to be trusted.
nolate='([.key_nodes[]? | select(.reached_at_step == 0)] | length == 0)'
# check_passed LABEL FILE — an unchanged task: passed, no drift
# (the counts per way are summed in tally: "WAY unchanged|changed" → "good bad")
declare -A tally
count() { local k="${1%% *} $2" g b; read -r g b <<<"${tally[$k]:-0 0}"; [ "$3" = 0 ] && g=$((g + 1)) || b=$((b + 1)); tally[$k]="$g $b"; }
check_passed() {
  jq -e ".status == \"passed\" and (.replay.drift | length == 0) and $nolate" "$2" >/dev/null 2>&1
  local rc=$?
  count "$1" unchanged $rc
  [ $rc = 0 ] && kn_ok "$1: passed, no drift" || kn_fail "$1: false alarm: $(brief "$2")"
}
# check_broken LABEL FILE TASK STEP_KEY — a changed task: broken at its expected step (STEP_KEY: step; step_after
# for workflows with postconditions; step_record for recorded ones, falling back to step_after), reason (a recorded
# workflow's reason_record when it has one) and key node.
check_broken() {
  local e a
  e=$(jq -c --arg t "$3" --arg k "$4" '.[$t] | {status, key_node,
    reason: (if $k == "step_record" and has("reason_record") then .reason_record else .reason end),
    step: (if has($k) then .[$k] elif has("step_after") and $k == "step_record" then .step_after else .step end)}' "$exp")
  jq -e --argjson e "$e" '.status == $e.status and .broken.step == $e.step and .broken.reason == $e.reason
    and .broken.key_node == $e.key_node and '"$nolate" "$2" >/dev/null 2>&1
  local rc=$?
  count "$1" changed $rc
  [ $rc = 0 ] && kn_ok "$1: broken as expected ($e)" || kn_fail "$1: got $(brief "$2"), want $e"
}
# replay_part NAME WF_V1 WF_V2 STEP_KEY — every task on the unchanged corpus $reps times, on the changed
# one once (WF_*: a --workflows folder, or "" for the inline steps)
# GAPS: tasks of this way with a known, open defect — replayed, their verdict printed as "gap", neither
# counted nor failed (the issue's closing note names each; remove a task from GAPS once its defect is fixed)
replay_part() {
  local name=$1 w1=$2 w2=$3 key=$4 gaps=" ${5:-} " r t
  for t in $tasks; do
    [[ "$gaps" == *" $t "* ]] || continue
    validate "$tmp/$name-gap" "$tmp/tasks-v1.yaml" "$t" ${w1:+--workflows "$w1"}
    echo "gap  $name unchanged $t (known defect, not counted): $(brief "$tmp/$name-gap/$t.json")"
  done
  for r in $(seq 1 "$reps"); do
    for t in $tasks; do
      [[ "$gaps" == *" $t "* ]] && continue
      validate "$tmp/$name-v1-$r" "$tmp/tasks-v1.yaml" "$t" ${w1:+--workflows "$w1"}
      check_passed "$name unchanged #$r $t" "$tmp/$name-v1-$r/$t.json"
    done
  done
  for t in $tasks; do
    [[ "$gaps" == *" $t "* ]] && continue
    validate "$tmp/$name-v2" "$tmp/tasks-v2.yaml" "$t" ${w2:+--workflows "$w2"}
    check_broken "$name changed $t" "$tmp/$name-v2/$t.json" "$t" "$key"
  done
}

# --- inline steps, and the same steps with recorded postconditions
[[ " $parts " == *" inline "* ]] && replay_part inline "" "" step
[[ " $parts " == *" after "* ]] && replay_part after "$tmp/after-v1" "$tmp/after-v2" step_after

# --- workflows recorded by `keynode record` while a Playwright agent (agents/async.mjs) does each task
if [[ " $parts " == *" record "* ]]; then
  wf=$tmp/recorded
  # the agent's tab stays on each task's last page: record in a Chromium of its own, so that the validations
  # (whose monitor attaches browser-wide) never see it
  vcdp=$cdp
  mkdir -p "$tmp/record-browser"
  kn_chromium_start "$tmp/record-browser" || kn_finish
  rcdp=$cdp cdp=$vcdp
  for t in $tasks; do
    kn_spawn -o "$tmp/rec-$t.out" -e "$tmp/rec-$t.err" "rec-$t" "$kn" record --browser "$rcdp" --tasks "$tmp/tasks-v1.yaml" \
      --task "$t" --out "$wf" --until finished
    rpid=$kn_pid
    kn_wait_for "record $t to say it is recording" 30 grep -q '^recording task' "$tmp/rec-$t.out"
    grep -q '^recording task' "$tmp/rec-$t.out" || kn_fail "record $t: never said it was recording"
    node "$here/agents/async.mjs" "$rcdp" "http://127.0.0.1:$port1" "$tmp/marks-$t" "$t" >"$tmp/agent-$t.out" 2>&1 ||
      kn_fail "record $t: the agent failed: $(tail -2 "$tmp/agent-$t.out" | tr '\n' ' ')"
    # every key node reached ends the recording by itself; one that does not end in 30 s is stopped
    kn_wait_for "record $t to end by itself" 30 kn_ended "$rpid"
    kill -0 "$rpid" 2>/dev/null && { kn_fail "record $t: did not end when every key node was reached"; kill -TERM "$rpid"; }
    wait "$rpid"
    rc=$?
    kn_forget "$rpid"
    [ "$rc" = 0 ] && [ -f "$wf/$t.yaml" ] && grep -q 'after: {' "$wf/$t.yaml" &&
      kn_ok "record $t: a workflow with postconditions ($(grep -c '^  - ' "$wf/$t.yaml") steps)" ||
      kn_fail "record $t: exit $rc: $(tail -3 "$tmp/rec-$t.out" "$tmp/rec-$t.err" | tr '\n' ' ')"
  done
  kn_task_at_site "$wf" "$tmp/recorded-v2" "$port1=$port2"
  # recorded workflows: a frame's action is recorded with its frame path (late-iframe: `#card-frame >>
  # #card-number`), a scroll with its distance (lazy-list); KN_FALSEALARM_RECORD_GAPS names tasks with a known,
  # open recorder defect (none now)
  replay_part record "$wf" "$tmp/recorded-v2" step_record "${KN_FALSEALARM_RECORD_GAPS-}"
fi

# --- `keynode worker` replay jobs: the task file uploaded to `keynode serve` (v1 URLs, then v2 URLs as the
# task's next version), POST /api/replays for each task, the worker's results read from replay_results
if [[ " $parts " == *" worker "* ]]; then
  kn_pg_start || kn_finish
  "$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
  token="fa-$RANDOM$RANDOM"
  KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
    kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
  A=(-H "Authorization: Bearer $token")
  printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$tmp/keynode.yaml"
  kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200
  worker_pid=$kn_pid
  results_at_least_() { local n; n=$(kn_psql "SELECT count(*) FROM replay_results"); [ "${n:-0}" -ge "$1" ]; }
  done_n=0
  # worker_round LABEL V CHECK — upload tasks-vV.yaml, queue every task, wait for their results, CHECK each
  worker_round() {
    local label=$1 v=$2 check=$3 t code n=0
    code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/yaml' \
      --data-binary @"$tmp/tasks-v$v.yaml" "$api_base/api/tasksets?name=async")
    [[ "$code" = 20[01] ]] || kn_fail "$label: taskset upload: $code $(head -c 300 "$tmp/ts.json")"
    for t in $tasks; do
      code=$(curl -s -o "$tmp/rp.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' \
        --data "{\"task\": \"async:$t\"}" "$api_base/api/replays")
      [ "$code" = 202 ] || kn_fail "$label $t: POST /api/replays: $code $(cat "$tmp/rp.json")"
    done
    done_n=$((done_n + $(echo $tasks | wc -w)))
    kn_wait_for "$label: $done_n replay results" 600 kn_ended_or "$worker_pid" results_at_least_ "$done_n"
    n=$(kn_psql "SELECT count(*) FROM replay_results")
    [ "${n:-0}" -ge "$done_n" ] || kn_fail "$label: $n of $done_n results (worker: $(tail -3 "$tmp/worker.log"))"
    mkdir -p "$tmp/$label"
    for t in $tasks; do
      kn_psql "SELECT report FROM replay_results WHERE report->>'task' = '$t' ORDER BY id DESC LIMIT 1" >"$tmp/$label/$t.json"
      if [ "$check" = passed ]; then check_passed "$label $t" "$tmp/$label/$t.json"
      else check_broken "$label $t" "$tmp/$label/$t.json" "$t" step; fi
    done
  }
  for r in $(seq 1 "$reps"); do worker_round "worker unchanged #$r" 1 passed; done
  worker_round "worker changed" 2 broken
fi

# the summary a maintainer reads first
for part in $parts; do
  read -r g b <<<"${tally[$part unchanged]:-0 0}"
  read -r cg cb <<<"${tally[$part changed]:-0 0}"
  echo "summary $part: false alarms $b of $((g + b)) unchanged replays; changed tasks broken as expected $cg of $((cg + cb))"
done

# every validation disposed of its context: one page left (the browser's own)
pages=$(curl -s "$cdp/json/list" | jq '[.[] | select(.type == "page")] | length')
[ "$pages" = 1 ] && kn_ok "no tab left behind (1 page)" || kn_fail "$pages pages left open"
kn_finish
