# watch_lib.sh — the harness of watch.sh, sourced by it: starting and stopping the processes of a
# scenario (sites, Chromium, `keynode watch`, the agent; every one through lib.sh's kn_spawn, stopped by
# its PID at the scenario's end), waiting for them, and the jq checks of a run result and trajectory.
# Uses watch.sh's globals (kn, repo, here, agents, tmp, ok, fail) and lib.sh.

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- processes

# scenario_begin NAME [fixtures] — a scratch folder $d, `keynode sites` for tests/sites ($base) and, with
# "fixtures", for watch-fixtures/ ($fbase), the task files with the ports substituted ($d/tasks.yaml from
# tests/sites, $d/wtasks.yaml from watch-fixtures), and a fresh Chromium. Returns 1 (after a FAIL) when
# anything does not start. Sets $sc (the scenario name).
scenario_begin() {
  sc=$1
  d=$tmp/$sc
  mkdir -p "$d"
  echo "--- $sc"
  sc_started=$(now_ms)
  local sport fport=8101
  kn_sites_start "$kn" "$repo/tests/sites" "$d/sites.log" || { fail "$sc: keynode sites did not start"; return 1; }
  sport=$port
  if [ "${2:-}" = fixtures ]; then
    kn_sites_start "$kn" "$here/watch-fixtures" "$d/fixtures.log" || { fail "$sc: keynode sites (fixtures) did not start"; return 1; }
    fport=$port
  fi
  base=http://127.0.0.1:$sport
  fbase=http://127.0.0.1:$fport
  kn_task_at_site "$repo/tests/sites/tasks.yaml" "$d/tasks.yaml" "$sport"
  kn_task_at_site "$here/watch-fixtures/tasks.yaml" "$d/wtasks.yaml" "$sport" "$fport"
  kn_chromium_start "$d" || { fail "$sc: Chromium did not start"; return 1; }
  return 0
}

scenario_end() {
  local t0
  t0=$(now_ms)
  kn_stop_all
  echo "    ($sc: $(( (t0 - sc_started) / 100 ))e-1 s, stopping processes $(( ($(now_ms) - t0) / 100 ))e-1 s)"
}

# start_watch BROWSER TASKFILE TASK UNTIL [ARGS…] — `keynode watch` in the background (wpid); waits until
# it has attached (a tab_open line in $d/run.jsonl). Files: $d/result.json, $d/run.jsonl, $d/watch.err.
start_watch() {
  local browser=$1 tasks=$2 task=$3 until=$4
  shift 4
  rm -f "$d/result.json" "$d/run.jsonl"
  kn_spawn -o "$d/watch.out" -e "$d/watch.err" "$sc/watch" "$kn" watch --browser "$browser" --tasks "$tasks" \
    --task "$task" --out "$d/result.json" --trajectory "$d/run.jsonl" --until "$until" "$@"
  wpid=$kn_pid
  kn_wait_for "$sc: watch to attach" 15 kn_ended_or "$wpid" grep -q '"type": *"tab_open"' "$d/run.jsonl"
  grep -q '"type": *"tab_open"' "$d/run.jsonl" 2>/dev/null && { ok "$sc: watch attached (tab_open written)"; return 0; }
  fail "$sc: watch did not attach within 15 s (no tab_open line in the trajectory)"
  sed 's/^/    watch stderr: /' "$d/watch.err" | head -20
  return 1
}

# start_agent NAME SCRIPT MODE BASE [GO_FILE] — a Playwright agent (agents/SCRIPT) on its own CDP connection
# (apid); marks in $d/marks, output in $d/agent.out. With GO_FILE it attaches, then waits for that file.
start_agent() {
  : >"$d/marks"
  KN_AGENT_GO=${5:-} KN_AGENT_ANSWER=$d/answers.txt kn_spawn -o "$d/agent.out" "$sc/agent" \
    node "$agents/$2" "$cdp" "$4" "$d/marks" "$3"
  apid=$kn_pid
}

# start_replay TASKFILE TASK [ARGS…] — `keynode replay` as the agent (apid), in a new tab of the same browser
start_replay() {
  local tasks=$1 task=$2
  shift 2
  kn_spawn -o "$d/agent.out" "$sc/agent" "$kn" replay --browser "$cdp" --tasks "$tasks" --task "$task" --out "$d/replay" "$@"
  apid=$kn_pid
}

# wait_exit PID SECONDS — waits for the process; sets rc and ended (epoch ms). When it is still running
# after SECONDS it is killed and rc=124.
wait_exit() {
  local p=$1 limit=$(( $2 * 20 )) i=0
  while kill -0 "$p" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt $limit ]; then
      kill -KILL "$p" 2>/dev/null
      wait "$p" 2>/dev/null
      kn_forget "$p"
      rc=124
      ended=$(now_ms)
      return 0
    fi
    sleep 0.05
  done
  ended=$(now_ms)
  wait "$p" 2>/dev/null
  rc=$?
  kn_forget "$p"
}

# wait_mark NAME SECONDS — waits until the agent wrote mark NAME; prints its time (epoch ms: the agent's
# own, not when the wait saw it). A timeout says so on stderr
wait_mark() {
  kn_wait_for "the agent's mark $1" "$2" mark_written_ "$1" >&2
  local t
  t=$(mark_time "$1")
  [ -n "$t" ] && echo "$t"
}
mark_time() { awk -v n="$1" '$1 == n { print $2; exit }' "$d/marks" 2>/dev/null; }
mark_written_() { [ -n "$(mark_time "$1")" ]; }

# watch_done SECONDS [WANT_RC] — waits for watch; checks its exit code
watch_done() {
  wait_exit "$wpid" "$1"
  watch_rc=$rc
  watch_ended=$ended
  if [ "$rc" = 124 ]; then
    fail "$sc: watch still running after $1 s (killed)"
  elif [ -n "${2:-}" ]; then
    [ "$rc" = "$2" ] && ok "$sc: watch exit $2" || fail "$sc: watch exit $rc, want $2"
  fi
}

# agent_done SECONDS WANT_RC — waits for the agent; checks its exit code
agent_done() {
  wait_exit "$apid" "$1"
  if [ "$rc" = "$2" ]; then ok "$sc: agent exit $2"; else fail "$sc: agent exit $rc, want $2"; sed 's/^/    agent: /' "$d/agent.out" | tail -15; fi
}

# ---------------------------------------------------------------- checks (jq)

# Helpers for the filters: R = the run result, H = the trajectory header, E = its events.
JQ_DEFS='
def R: $r[0];
def H: $t[0];
def E: $t[1:];
def isstep: (.type | IN("navigate", "submit", "tab_open", "tab_close") | not)
            or (.type == "navigate" and (.how | IN("goto", "back", "forward", "reload")));
def stepev: E | map(select(isstep));
def sig: if .type == "navigate" then "nav:" + (.how // "?") else .type end;
def nav($how): E | map(select(.type == "navigate" and .how == $how));
def reached: [R.key_nodes[]? | select(.reached_at_step != null) | "\(.id)@\(.reached_at_step)"] | join(" ");
def near($a; $b): ($a | length) == ($b | length)
  and ([range(0; $a | length)] | all(. as $i | ((($a[$i] // -1) - $b[$i]) | fabs) < 0.001));
def tabs: [E[] | select(.type == "tab_open") | .tab];
'

# facts — one line per run for the report on failure
facts() {
  jq -nr --slurpfile r "$d/result.json" --slurpfile t "$d/run.jsonl" "$JQ_DEFS"'
    "    result: status=\(R.status) steps=\(R.steps) reached=\(R.reached)/\(R.total) step_scores=\(R.step_scores | tostring) nodes=\"\(reached)\"",
    "    steps:  \([stepev[] | sig] | tostring)"' 2>/dev/null
  echo "    trajectory:"
  cut -c1-260 "$d/run.jsonl" 2>/dev/null | head -60 | sed 's/^/      /'
  echo "    watch stderr (last lines):"
  tail -8 "$d/watch.err" 2>/dev/null | cut -c1-260 | sed 's/^/      /'
}

# jcheck NAME FILTER — FILTER (over R, H, E) must be true
jcheck() {
  local out
  if [ ! -s "$d/result.json" ] || [ ! -s "$d/run.jsonl" ]; then
    fail "$sc: $1 (no result or no trajectory)"
    return
  fi
  out=$(jq -en --slurpfile r "$d/result.json" --slurpfile t "$d/run.jsonl" "$JQ_DEFS($2)" 2>&1)
  if [ $? = 0 ] && [ "$out" = true ]; then ok "$sc: $1"; else fail "$sc: $1${out:+ ($out)}" ; facts_wanted=1; fi
}

# files_ok — the result and the trajectory exist and parse; the trajectory's shape (§2)
files_ok() {
  facts_wanted=0
  if jq -e . "$d/result.json" >/dev/null 2>&1; then ok "$sc: run result written, valid JSON"; else fail "$sc: run result written, valid JSON"; return 1; fi
  if jq -e . "$d/run.jsonl" >/dev/null 2>&1; then ok "$sc: trajectory written, every line JSON"; else fail "$sc: trajectory written, every line JSON"; return 1; fi
  jcheck "trajectory header {run, task, started}" '(H.run | type) == "string" and H.task == R.task and (H.started | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T"))'
  jcheck "events: known types, numeric t in order, navigate has a known how" '
    (E | length) > 0
    and (E | all(.type | IN("navigate", "click", "type", "select", "submit", "press", "scroll", "tab_open", "tab_close", "answer")))
    and (E | all((.t | type) == "number"))
    and ([E[].t] as $ts | [range(1; $ts | length)] | all($ts[.] >= $ts[. - 1]))
    and (E | map(select(.type == "navigate")) | all(.how | IN("goto", "back", "forward", "reload", "link", "form", "script", "hash", "history", "redirect", "popup")))'
  jcheck "result carries \"mode\" and the run id of the trajectory" '(R | has("mode")) and R.run == H.run'
}

# expect_run STATUS STEPS NODES STEP_SCORES SIGNATURE — the result and the trajectory agree with the numbers
#   NODES        "id@step …" of the reached nodes, in task order
#   STEP_SCORES  JSON array
#   SIGNATURE    JSON array of the step events: type, or nav:HOW for a navigate step
expect_run() {
  local status=$1 steps=$2 nodes=$3 scores=$4 sigs=$5
  jcheck "status $status" "R.status == \"$status\""
  jcheck "reached nodes: $nodes" "reached == \"$nodes\""
  jcheck "steps $steps (result), and the trajectory holds exactly $steps step events" "R.steps == $steps and (stepev | length) == $steps"
  jcheck "step events: $sigs" "[stepev[] | sig] == $sigs"
  jcheck "step_scores $scores" "near(R.step_scores; $scores)"
  jcheck "score = reached/total, efficiency = steps/reached, completion" '
    R.reached == ([R.key_nodes[] | select(.reached_at_step != null)] | length)
    and R.total == (R.key_nodes | length)
    and ((R.score - (if R.total > 0 then R.reached / R.total else 0 end)) | fabs) < 0.001
    and ((R.efficiency - (if R.reached > 0 then R.steps / R.reached else 0 end)) | fabs) < 0.001
    and R.completion == (R.status == "finished")'
}

# offline_agrees TASKFILE — `keynode score` of the written trajectory reaches the same nodes at the same
# steps, with the same step count (the live result and the offline scorer agree)
offline_agrees() {
  local live off
  "$kn" score --tasks "$1" --runs "$d/run.jsonl" --json >"$d/offline.json" 2>"$d/offline.err"
  live=$(jq -r '[.steps, ([.key_nodes[] | select(.reached_at_step != null) | "\(.id)@\(.reached_at_step)"] | join(" "))] | tostring' "$d/result.json" 2>/dev/null)
  off=$(jq -r '.results[0] | [.steps, ([.key_nodes[] | select(.reached_at_step != null) | "\(.id)@\(.reached_at_step)"] | join(" "))] | tostring' "$d/offline.json" 2>/dev/null)
  if [ -n "$live" ] && [ "$live" = "$off" ]; then ok "$sc: keynode score of the trajectory agrees with the live result $live"
  else fail "$sc: keynode score of the trajectory: $off, live: $live $(head -2 "$d/offline.err")"; facts_wanted=1; fi
}

# checks_end — on any failure in the scenario, print what the run looked like
checks_end() {
  [ "${facts_wanted:-0}" = 1 ] && facts
  facts_wanted=0
}

want() { # want SCENARIO — KN_WATCH_ONLY filter
  [ -z "${KN_WATCH_ONLY:-}" ] && return 0
  case " $KN_WATCH_ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}
