#!/usr/bin/env bash
# faults.sh — the fault-injection matrix: every way an attempt can fail that is not the agent's lands in
# its class (docs/formats.md "Faults"), every way that is the agent's stays the agent's, and nothing
# misfiled moves a metric. Real `keynode run` attempts (real Chromium) and `keynode score` against a
# real local judge; only 127.0.0.1 is contacted. The faults:
#   judge 402 429 500 timeout garbled text   `keynode score --semantic llm` of recorded runs while the
#                        judge (lib.sh kn_judge_start, llm-server.mjs) fails that way → unjudged, judge;
#                        the metrics those of the same runs without the judged ones
#   judge 500 (run)      a `keynode run` attempt judged during the 500 outage → unjudged, judge
#   dns refused tls      published Mind2Web-Live test task 0 (no start URL; its site only in content.url:
#                        as published for dns, its pages moved to a dead port / a self-signed HTTPS
#                        server for the others — unreachable.sh's kn_unr_task), the agent's goto to the
#                        task's own site failing → error, reason unreachable, site
#   browser killed       SIGKILL to the attempt's browser process mid-attempt → error, infrastructure
#   browser frozen       SIGSTOP to the attempt's browser process mid-attempt → error, infrastructure,
#                        ended by the attempt's DevTools probe ("browser not responding", 10 s without
#                        an answer) before the --timeout: never the agent's timeout
#   challenge            a bot challenge page (tests/sites/blocked "Just a moment", blocked-server.mjs)
#                        → blocked, site
#   agent crash          the agent exits 3 before finishing → incomplete, agent
#   agent timeout        the agent hangs past --timeout → incomplete (attempt end timeout), agent
# plus a control attempt that finishes. Each class is read from result.json / the score output; then
# summary.json: attempts.faults and excluded[] as expected, and its metrics equal `keynode score` of the
# same batch without the attempts that are not the agent's (the control and the agent's two).
# Two `keynode run` invocations at once (the YAML tasks; the three Mind2Web-Live copies), one sites
# server, one judge. Prints the table `fault | expected | got | ok` and writes it to $tmp/matrix.txt
# (and ARTIFACTS/matrix.txt when given); fails when any row is misfiled. 36-42 s at load 13-24 on 2 cores.
#
#   tests/integration/faults.sh KEYNODE_BIN REPO_DIR SHARED_DIR [ARTIFACTS_DIR]
#
# ctest: integration.faults ARGS=keynode,repo,shared,build:artifacts/faults TIMEOUT=240
set -u -o pipefail
kn=${1:?usage: faults.sh KEYNODE_BIN REPO_DIR SHARED_DIR [ARTIFACTS_DIR]}
repo=$(cd "${2:?usage: faults.sh KEYNODE_BIN REPO_DIR SHARED_DIR}" && pwd)
shared=${3:?usage: faults.sh KEYNODE_BIN REPO_DIR SHARED_DIR}
artifacts=${4:-}
. "$repo/tests/integration/lib.sh"
. "$repo/tests/integration/unreachable.sh" # kn_unr_init, kn_unr_task (sourcing runs nothing)
kn_lib_init faults
export TMPDIR=$tmp # the browsers' profiles go here
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
command -v openssl >/dev/null 2>&1 || { kn_fail "openssl not found"; kn_finish; }
kn_unr_init "$kn" "$repo" || kn_finish # jq, node packages; $unr_chromium: every host but loopback "not found"
published=$shared/data/mind2web-live/mind2web-live_test_20241024.json
[ -s "$published" ] || { kn_fail "no published test file at $published"; kn_finish; }

# --- the world: sites, the blocked-site server, a dead port, a self-signed HTTPS server, the judge
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
kn_spawn bserver node "$repo/tests/integration/blocked-server.mjs" "$repo/tests/sites/blocked"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
  -subj /CN=localhost >/dev/null 2>&1 || { kn_fail "openssl could not make a certificate"; kn_finish; }
kn_spawn tls node "$repo/tests/integration/tls-server.mjs" "$tmp/key.pem" "$tmp/cert.pem"
both_ports_() { grep -q '^port=' "$tmp/bserver.log" && grep -q '^port=' "$tmp/tls.log"; }
kn_wait_for "the blocked and TLS servers' ports" 20 both_ports_
bport=$(sed -n 's/^port=//p' "$tmp/bserver.log") tls=$(sed -n 's/^port=//p' "$tmp/tls.log")
[ -n "$bport" ] && [ -n "$tls" ] || { kn_fail "servers: blocked '$bport' tls '$tls'"; kn_finish; }
kn_dead_port || kn_finish
kn_judge_start || kn_finish

# --- the tasks. YAML: one per fault, each with its own start URL (the test finds its browser by it)
site=http://127.0.0.1:$port
cat >"$tmp/tasks.yaml" <<EOF
tasks:
  - id: control
    intent: "Open the shop's search page"
    start_url: $site/shop/?fault=control
    key_nodes:
      - url: { include: "/shop/search.html" }
  - id: agent-crash
    intent: "Open the shop's cart"
    start_url: $site/shop/?fault=agent-crash
    key_nodes:
      - url: { include: "/shop/cart.html" }
  - id: agent-timeout
    intent: "Open the shop's cart"
    start_url: $site/shop/?fault=agent-timeout
    key_nodes:
      - url: { include: "/shop/cart.html" }
  - id: browser-killed
    intent: "Open the shop's cart"
    start_url: $site/shop/?fault=browser-killed
    key_nodes:
      - url: { include: "/shop/cart.html" }
  - id: browser-frozen
    intent: "Open the shop's cart"
    start_url: $site/shop/?fault=browser-frozen
    key_nodes:
      - url: { include: "/shop/cart.html" }
  - id: challenge
    intent: "Open the catalogue of Trailhead Outfitters"
    start_url: http://127.0.0.1:$bport/f/challenge-cf-just-a-moment/
    key_nodes:
      - url: { include: "/f/challenge-cf-just-a-moment/done.html" }
  - id: judge-run
    intent: "Say the answer"
    start_url: $site/shop/?fault=judge-run
    key_nodes:
      - id: answer
        answer: { semantic: "Decide whether the answer is forty-two" }
EOF
# Mind2Web-Live: test task 0 as published (dns), and two copies whose pages moved (refused, tls), each
# copy with its own index (the task id) so that one run holds all three
kn_unr_task "$published" 0 "$tmp/m-dns.json" || kn_finish
kn_unr_task "$published" 0 "$tmp/m-refused.json" "http://127.0.0.1:$dead" || kn_finish
kn_unr_task "$published" 0 "$tmp/m-tls.json" "https://127.0.0.1:$tls" || kn_finish
jq -s '[.[0][0], (.[1][0] | .index = 1), (.[2][0] | .index = 2)]' "$tmp/m-dns.json" "$tmp/m-refused.json" \
  "$tmp/m-tls.json" >"$tmp/m2w.json" || { kn_fail "cannot build the Mind2Web-Live file"; kn_finish; }
dns_url=$(jq -r '.[0].evaluation[0].content.url' "$tmp/m2w.json")
refused_url=http://127.0.0.1:$dead/ tls_url=https://127.0.0.1:$tls/

# One agent for every task, by task id: what it does is the fault (or the control)
cat >"$tmp/agent.sh" <<EOF
#!/bin/sh
touch "\$KEYNODE_ATTEMPT_DIR/started"
open() { curl -s -X PUT "\$KEYNODE_CDP_URL/json/new?\$1" >/dev/null; }
case \$KEYNODE_TASK_ID in
control) open "$site/shop/search.html"; sleep 1 ;;
agent-crash) open "$site/shop/search.html"; sleep 1; exit 3 ;;
agent-timeout | browser-killed | browser-frozen) exec sleep 1000 ;;
challenge) open "\$KEYNODE_START_URL"; sleep 2 ;;
judge-run) echo 42 >>"\$KEYNODE_ANSWER_FILE"; sleep 1 ;;
0) GOTO_WAIT_S=30 exec node "$repo/tests/agents/goto.mjs" "$dns_url" ;;
1) GOTO_WAIT_S=30 exec node "$repo/tests/agents/goto.mjs" "$refused_url" ;;
2) GOTO_WAIT_S=30 exec node "$repo/tests/agents/goto.mjs" "$tls_url" ;;
*) exit 9 ;;
esac
EOF
chmod +x "$tmp/agent.sh"

# --- the two runs, at once; the judge fails with 500 while the YAML run judges
kn_judge_outage 500 || kn_finish
timeout_s=20 # the frozen attempt must end by the probe (~11 s after its freeze), long before this
kn_spawn run "$kn" run --tasks "$tmp/tasks.yaml" --out "$tmp/run" --agent "exec $tmp/agent.sh" --parallel 7 --warm 0 \
  --retries 0 --timeout $timeout_s --chromium "$unr_chromium" --quiet "${judge_args[@]}"
run_pid=$kn_pid
kn_spawn m2w "$kn" run --tasks "$tmp/m2w.json" --out "$tmp/m2w" --agent "exec $tmp/agent.sh" --parallel 3 --warm 0 \
  --retries 0 --timeout 60 --chromium "$unr_chromium" --quiet
m2w_pid=$kn_pid

# inject: once the agent of the task runs, its browser (keynode's child launched on the task's start
# URL) is killed or frozen
browser_of() { pgrep -P "$run_pid" -f -- "fault=$1" | head -1; }
# fault_browsers_ — as each fault's attempt starts, its browser SIGKILLed (browser-killed) or SIGSTOPped
# (browser-frozen), once: the PIDs go to $tmp/killed and $tmp/frozen (kn_wait_for runs this in a subshell).
# Done when both are, or the run has ended
fault_browsers_() {
  local b
  if [ ! -s "$tmp/killed" ] && [ -e "$tmp/run/browser-killed/1/started" ]; then
    b=$(browser_of browser-killed) && [ -n "$b" ] && kill -KILL "$b" && echo "$b" >"$tmp/killed"
  fi
  if [ ! -s "$tmp/frozen" ] && [ -e "$tmp/run/browser-frozen/1/started" ]; then
    b=$(browser_of browser-frozen) && [ -n "$b" ] && kill -STOP "$b" && echo "$b" >"$tmp/frozen"
  fi
  [ -s "$tmp/killed" ] && [ -s "$tmp/frozen" ] || kn_ended "$run_pid"
}
kn_wait_for "the browser-killed and browser-frozen attempts to start" 90 fault_browsers_
killed=$(cat "$tmp/killed" 2>/dev/null) frozen=$(cat "$tmp/frozen" 2>/dev/null)
[ -n "$killed" ] && kn_ok "browser-killed: SIGKILL to browser $killed" || kn_fail "browser-killed: no browser found to kill"
[ -n "$frozen" ] && kn_ok "browser-frozen: SIGSTOP to browser $frozen" || kn_fail "browser-frozen: no browser found to freeze"
wait "$run_pid"
run_rc=$?
kn_forget "$run_pid"
[ -z "$frozen" ] || kill -CONT "$frozen" 2>/dev/null # keynode stopped it; a leftover would go on
wait "$m2w_pid"
m2w_rc=$?
kn_forget "$m2w_pid"
[ "$run_rc" = 1 ] && kn_ok "keynode run (YAML): exit 1 (errors)" || kn_fail "keynode run (YAML): exit $run_rc: $(tail -3 "$tmp/run.log")"
[ "$m2w_rc" = 1 ] && kn_ok "keynode run (Mind2Web-Live): exit 1" || kn_fail "keynode run (Mind2Web-Live): exit $m2w_rc: $(tail -3 "$tmp/m2w.log")"

# --- the matrix: each row's class read from the result files
matrix=$tmp/matrix.txt
printf '%-22s | %-28s | %-28s | %s\n' fault expected got ok >"$matrix"
rows=0 misfiled=0 faults=0
fault() { faults=$((faults + 1)); row "$@"; } # a fault injected: its class
row() { # row WHAT EXPECTED GOT
  local ok=yes
  [ "$2" = "$3" ] || { ok=NO; misfiled=$((misfiled + 1)); }
  rows=$((rows + 1))
  printf '%-22s | %-28s | %-28s | %s\n' "$1" "$2" "$3" "$ok" >>"$matrix"
}
# an attempt's class: the run result's status, the attempt's fault, and the reason for an unreachable
got_run() { # got_run DIR TASK
  jq -r '[.status, (if .reason == "unreachable" then "unreachable" else empty end), (.attempt.fault // "-")] | join(" ")' \
    "$1/$2/1/result.json" 2>/dev/null || echo "no result"
}
# the judge's faults through `keynode score`: recorded runs a, b of a task with a semantic answer node
# (a reaches its deterministic node, b does not), c, d of a task without one
kn_judged_runs "$tmp/judged.yaml" "$tmp"
"$kn" score --tasks "$tmp/judged.yaml" --runs "$tmp/plain" --json >"$tmp/plain.json" 2>"$tmp/plain.err" ||
  kn_fail "the runs without judged ones did not score: $(cat "$tmp/plain.err")"
for mode in 402 429 500 timeout garbled text; do
  kn_judge_outage "$mode" || continue
  "$kn" score --tasks "$tmp/judged.yaml" --runs "$tmp/all" --json "${judge_args[@]}" >"$tmp/score-$mode.json" 2>"$tmp/score-$mode.err"
  fault "judge $mode (score)" "unjudged judge, unjudged judge" \
    "$(jq -r '[.results[] | select(.run == "a" or .run == "b") | "\(.status) \(.fault // "-")"] | join(", ")' "$tmp/score-$mode.json" 2>/dev/null)"
  # the outage never changes a metric: every summary key as scored without the judged runs
  row "judge $mode: metrics" "as without the judged runs" \
    "$(jq -r --slurpfile p "$tmp/plain.json" '.summary as $s | [$p[0].summary | to_entries[] | select(.key != "unjudged")
        | select($s[.key] != .value) | .key] | if length == 0 then "as without the judged runs" else "differ: " + join(",") end' \
      "$tmp/score-$mode.json" 2>/dev/null)"
done
kn_judge_outage none
fault "judge 500 (run)" "unjudged judge" "$(got_run "$tmp/run" judge-run)"
fault "dns" "error unreachable site" "$(got_run "$tmp/m2w" 0)"
fault "refused" "error unreachable site" "$(got_run "$tmp/m2w" 1)"
fault "tls" "error unreachable site" "$(got_run "$tmp/m2w" 2)"
fault "browser killed" "error infrastructure" "$(got_run "$tmp/run" browser-killed)"
fault "browser frozen" "error infrastructure" "$(got_run "$tmp/run" browser-frozen)"
fault "challenge page" "blocked site" "$(got_run "$tmp/run" challenge)"
fault "agent crash (exit 3)" "incomplete agent" "$(got_run "$tmp/run" agent-crash)"
fault "agent timeout" "incomplete agent" "$(got_run "$tmp/run" agent-timeout)"
row "control (no fault)" "finished -" "$(got_run "$tmp/run" control)"
# how each attempt ended, in the attempt's words
row "killed: end" "browser gone" "$(jq -r .attempt.end "$tmp/run/browser-killed/1/result.json" 2>/dev/null)"
row "frozen: end" "browser not responding" "$(jq -r .attempt.end "$tmp/run/browser-frozen/1/result.json" 2>/dev/null)"
row "frozen: before timeout" "agent_s < $timeout_s" \
  "$(jq -r --argjson t $timeout_s 'if .attempt.agent_s < $t then "agent_s < \($t)" else "agent_s \(.attempt.agent_s)" end' \
    "$tmp/run/browser-frozen/1/result.json" 2>/dev/null)"
row "crash: exit code" "3" "$(jq -r .attempt.exit_code "$tmp/run/agent-crash/1/result.json" 2>/dev/null)"
row "timeout: end" "timeout" "$(jq -r .attempt.end "$tmp/run/agent-timeout/1/result.json" 2>/dev/null)"
row "challenge: kind" "challenge" "$(jq -r .blocked.kind "$tmp/run/challenge/1/result.json" 2>/dev/null)"
# summary.json: the faults counted by whose, every attempt not the agent's excluded
row "run: attempts.faults" "agent 2 site 1 infra 2 judge 1" \
  "$(jq -r '.attempts.faults | "agent \(.agent) site \(.site) infra \(.infrastructure) judge \(.judge)"' "$tmp/run/summary.json" 2>/dev/null)"
row "run: excluded" "browser-frozen browser-killed challenge judge-run" \
  "$(jq -r '[.excluded[].task] | sort | join(" ")' "$tmp/run/summary.json" 2>/dev/null)"
row "m2w: attempts.faults" "agent 0 site 3 infra 0 judge 0" \
  "$(jq -r '.attempts.faults | "agent \(.agent) site \(.site) infra \(.infrastructure) judge \(.judge)"' "$tmp/m2w/summary.json" 2>/dev/null)"
row "m2w: metrics" "over 0 attempts" "$(jq -r '"over \(.metrics.attempts) attempts"' "$tmp/m2w/summary.json" 2>/dev/null)"
# the metrics equal those of the same batch without the attempts that are not the agent's: the
# trajectories of the control and the agent's two faults scored on their own
mkdir -p "$tmp/clean"
for t in control agent-crash agent-timeout; do cp "$tmp/run/$t/1/trajectory.jsonl" "$tmp/clean/$t.jsonl"; done
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/clean" --json >"$tmp/clean.json" 2>"$tmp/clean.err" ||
  kn_fail "the clean batch did not score: $(head -3 "$tmp/clean.err")"
row "run: metrics" "as the clean batch (3)" \
  "$(jq -r --slurpfile c "$tmp/clean.json" '$c[0].summary as $s
      | [.metrics | to_entries[] | select(.key != "attempts")
         | select(($s[.key] == null) or ((.value - $s[.key]) | fabs) > 0.000001) | .key]
      + (if .metrics.attempts != $s.tasks then ["attempts \(.metrics.attempts)"] else [] end)
      | if length == 0 then "as the clean batch (\($s.tasks))" else "differ: " + join(",") end' \
    "$tmp/run/summary.json" 2>/dev/null)"
row "run: success rate" "1/3" "$(jq -r '"\(.attempts.successes)/\(.metrics.attempts)"' "$tmp/run/summary.json" 2>/dev/null)"

# the sanitizer build: no report from any keynode process of this test
san=$(grep -lE "AddressSanitizer|LeakSanitizer|runtime error:" "$tmp"/*.log "$tmp"/*.err 2>/dev/null)
row "sanitizer reports" "none" "${san:-none}"

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "$faults faults injected, $rows rows (their classes and checks), $misfiled misfiled; ${SECONDS} s; load $load_start -> $load_end"
} >>"$matrix"
cat "$matrix"
if [ -n "$artifacts" ]; then mkdir -p "$artifacts" && cp "$matrix" "$artifacts/matrix.txt"; fi
[ "$misfiled" = 0 ] && kn_ok "$faults faults, every row in its class" ||
  { kn_fail "$misfiled row(s) misfiled"; tail -5 "$tmp/run.log"; }
kn_finish
