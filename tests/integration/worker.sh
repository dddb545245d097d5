#!/usr/bin/env bash
# worker.sh — `keynode worker` end to end (parts 3 and 4, worker side): a private PostgreSQL
# (`keynode migrate`), `keynode sites` for tests/sites (v1) and tests/sites/v2, workers that start their
# own headless Chromium, jobs enqueued through the real store (worker_queue), results checked in SQL.
#
#   tests/integration/worker.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR
#
# Scenarios:
#   multi-worker  3 workers on one database, KN_WORKER_JOBS queued replays of a 2-step local task; one worker
#                 SIGKILLed while it holds a lease: every job ends done with exactly one result, the killed
#                 worker's job re-claimed by another worker after its (short) lease expired, the killed
#                 worker's browser gone with it, the others stop on SIGTERM with exit 0; a replay run a
#                 dead worker left "running" ended as error "worker lost", none left running.
#   health        one task replayed against v1 (healthy), its v2 fixture (broken: retried once, then
#                 flaky, then broken after health.broken_after = 2 failures), v1 again (recovered, then
#                 healthy), an unreachable site (error, not broken): every transition in
#                 health_transitions with its evidence, an alert per transition in the alerts table.
#   cli           usage errors and an unreachable database: exit 2 with one line on stderr.
# Env: KN_WORKER_JOBS (default 200: the acceptance number, run by tests/bench/bench_repeats.sh; ctest runs 30 in
# both builds: every code path and check, CMakeLists.txt),
# KN_CHROMIUM (default /usr/lib/chromium/chromium), KN_KEEP=1 keeps the scratch folder.
# Exit: 0 all checks passed, 1 any failed.
#
# Both builds replay 30 jobs (every code path and check); the acceptance number, 200, is
# tests/bench/bench_repeats.sh's.
# ctest: integration.worker ARGS=keynode,target:worker_queue,repo TIMEOUT=600 SANITIZE_TIMEOUT=900 ENV=KN_WORKER_JOBS=30
set -u -o pipefail
kn=${1:?usage: worker.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR}
wq=${2:?usage: worker.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR}
repo=$(cd "${3:?usage: worker.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init worker
export TMPDIR=$tmp # the workers' browser profiles live here and go with it
export KEYNODE_CHROMIUM=$kn_chromium
njobs=${KN_WORKER_JOBS:-200}

# check NAME ACTUAL EXPECTED
check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

# start_worker NAME [ARGS…] — a `keynode worker` in the background; sets wpid, log in $tmp/NAME.log
start_worker() {
  local name=$1
  shift
  kn_spawn -o "$tmp/$name.out" -e "$tmp/$name.log" "$name" "$kn" worker --config "$tmp/keynode.yaml" --id "$name" --poll 200 \
    --element-timeout 5000 --settle-timeout 30000 "$@"
  wpid=$kn_pid
}

# browser_pid LOG — the pid of the browser a worker started (from its log line)
browser_pid() { sed -n 's/.*msg="browser started" pid=\([0-9]*\).*/\1/p' "$1" | tail -1; }

# ---- setup ---------------------------------------------------------------------------------------------
[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
[ -x "$wq" ] || { kn_fail "no worker_queue binary at $wq"; kn_finish; }
[ -d "$repo/tests/sites/v2" ] || { kn_fail "no tests/sites/v2 fixtures"; kn_finish; }
kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
cat >"$tmp/keynode.yaml" <<'EOF'
# the database comes from KEYNODE_DATABASE_URL
health: { broken_after: 2 }
EOF
"$kn" migrate --config "$tmp/keynode.yaml" >"$tmp/migrate.log" 2>&1 &&
  kn_ok "keynode migrate" || { kn_fail "keynode migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites-v1.log" || kn_finish
v1=$port
kn_sites_v2_root "$repo/tests/sites" "$tmp/site-v2" || { kn_fail "v2 site tree"; kn_finish; }
kn_sites_start "$kn" "$tmp/site-v2" "$tmp/sites-v2.log" || kn_finish
v2=$port
kn_dead_port; down=$dead # nothing listens there: the site is unreachable

# tasks FILE BASE [ID] — the worker test task (id ID, default forum-open-post) with its site at BASE (http://127.0.0.1:PORT). On v2 the forum
# links posts as post.html?post=N (a URL parameter renamed): the click works, key node "post" is not
# reached, so the replay is broken.
tasks() {
  cat >"$1" <<EOF
tasks:
  - id: ${3:-forum-open-post}
    intent: "Open the forum post about stoves"
    start_url: $2/forum/
    key_nodes:
      - id: post
        url: { key: id, exact: "3" }
    steps:
      - goto: $2/forum/
      - click: { selector: "#post-3 a.post-title", text: "Winter camping stove advice" }
EOF
}

# ---- cli ----------------------------------------------------------------------------------------------
"$kn" worker --help >"$tmp/help" 2>&1 && grep -q -- "--max-jobs" "$tmp/help" && kn_ok "worker --help" ||
  kn_fail "worker --help"
"$kn" worker >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && kn_ok "no --config: exit 2, one line" ||
  kn_fail "no --config: exit $rc: $(cat "$tmp/err")"
"$kn" worker --config "$tmp/keynode.yaml" --lease x >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && kn_ok "bad --lease: exit 2" || kn_fail "bad --lease: exit $rc"
KEYNODE_DATABASE_URL="host=$tmp/nowhere port=1 user=postgres dbname=keynode connect_timeout=2" \
  "$kn" worker --config "$tmp/keynode.yaml" --once >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "keynode worker:" "$tmp/err" && kn_ok "database unreachable: exit 2" ||
  kn_fail "database unreachable: exit $rc: $(cat "$tmp/err")"

# ---- multi-worker -------------------------------------------------------------------------------------
tasks "$tmp/multi.yaml" "http://127.0.0.1:$v1"
ver=$("$wq" put "$KN_PG_URL" multi "$tmp/multi.yaml" | awk '$1 == "forum-open-post" {print $2}')
[ -n "$ver" ] && kn_ok "task set stored (version $ver)" || { kn_fail "task set stored"; kn_finish; }
"$wq" enqueue "$KN_PG_URL" "$ver" "$njobs" multi >"$tmp/jobs" && [ "$(wc -l <"$tmp/jobs")" = "$njobs" ] &&
  kn_ok "$njobs jobs queued" || kn_fail "$njobs jobs queued"
first=$(head -1 "$tmp/jobs"); last=$(tail -1 "$tmp/jobs")
batch="id BETWEEN $first AND $last"
# a replay run left "running" by a worker that is gone (w0, SIGKILLed between storing its run's start and
# end): the next worker to start ends it as error, "worker lost"
kn_psql "INSERT INTO runs (id, task_version, kind, started, owner) VALUES ('r-orphan-w0', $ver, 'replay', now(), 'w0')" >/dev/null

lease=4
start_worker w1 --lease $lease; w1=$wpid
start_worker w2 --lease $lease; w2=$wpid
start_worker w3 --lease $lease; w3=$wpid

# kill w1 while it holds a lease: freeze it, check the job is still its own and running, then SIGKILL
# (kn_wait_for runs kill_w1_holding_ in a subshell: the job and w1's browser PID come back in $tmp/killed_job)
kill_w1_holding_() {
  local j
  j=$(kn_psql "SELECT id FROM jobs WHERE worker = 'w1' AND state = 'running' AND $batch LIMIT 1")
  [ -n "$j" ] || return 1
  kill -STOP "$w1"
  if [ "$(kn_psql "SELECT state || ' ' || worker FROM jobs WHERE id = $j")" = "running w1" ]; then
    echo "$j $(browser_pid "$tmp/w1.log")" >"$tmp/killed_job"
    kill -KILL "$w1"
    return 0
  fi
  kill -CONT "$w1"
  return 1
}
killed_job=
kn_wait_for "w1 to hold a lease" 60 kill_w1_holding_
if [ -s "$tmp/killed_job" ]; then
  read -r killed_job w1browser <"$tmp/killed_job"
  wait "$w1" 2>/dev/null
  kn_forget "$w1"
fi
[ -n "$killed_job" ] && kn_ok "w1 SIGKILLed holding the lease of job $killed_job" ||
  kn_fail "w1 never held a lease"

kn_wait_sql 330 "SELECT count(*) FROM jobs WHERE $batch AND state = 'done'" "$njobs" &&
  kn_ok "all $njobs jobs done" || kn_fail "all $njobs jobs done"
check "one result per job" \
  "$(kn_psql "SELECT count(*) || ' ' || count(DISTINCT job_id) FROM replay_results WHERE job_id BETWEEN $first AND $last")" \
  "$njobs $njobs"
check "no job with two results" \
  "$(kn_psql "SELECT count(*) FROM (SELECT job_id FROM replay_results WHERE job_id BETWEEN $first AND $last GROUP BY job_id HAVING count(*) > 1) d")" 0
check "every job points at its result" \
  "$(kn_psql "SELECT count(*) FROM jobs j JOIN replay_results r ON r.id = j.replay_id AND r.job_id = j.id WHERE j.$batch")" "$njobs"
check "every replay passed" \
  "$(kn_psql "SELECT count(*) FROM replay_results WHERE job_id BETWEEN $first AND $last AND status = 'passed'")" "$njobs"
if [ -n "$killed_job" ]; then
  check "the killed worker's job re-claimed by another worker" \
    "$(kn_psql "SELECT state || ' ' || (worker IN ('w2', 'w3')) || ' ' || (attempts >= 2) FROM jobs WHERE id = $killed_job")" \
    "done true true"
  if [ -n "${w1browser:-}" ]; then
    gone=0
    kn_wait_for "the killed worker's browser to end" 5 kn_ended "$w1browser" && gone=1
    [ $gone = 1 ] && kn_ok "the killed worker's browser went with it" ||
      { kn_fail "the killed worker's browser $w1browser still runs"; kill -KILL "$w1browser"; }
  else
    kn_fail "w1 logged no browser pid"
  fi
fi
check "the dead worker's replay run ended: error, worker lost" \
  "$(kn_psql "SELECT status || ' ' || (ended IS NOT NULL) || ' ' || (result->>'reason') FROM runs WHERE id = 'r-orphan-w0'")" \
  "error true worker lost"
check "no replay run left running (w1's included)" \
  "$(kn_psql "SELECT count(*) FROM runs WHERE ended IS NULL AND kind = 'replay'")" 0
check "every stored replay run names its worker" \
  "$(kn_psql "SELECT count(*) FROM runs WHERE kind = 'replay' AND id <> 'r-orphan-w0' AND owner NOT IN ('w2', 'w3', 'w1')")" 0
for n in w2 w3; do
  pid=${!n}
  b=$(browser_pid "$tmp/$n.log")
  kill -TERM "$pid"
  wait "$pid"; rc=$?
  kn_forget "$pid"
  check "$n: SIGTERM → exit 0" "$rc" 0
  [ -n "$b" ] && ! kill -0 "$b" 2>/dev/null && kn_ok "$n: its browser stopped" || kn_fail "$n: its browser stopped"
  grep -q 'msg="worker stopped"' "$tmp/$n.log" && kn_ok "$n: logged its stop" || kn_fail "$n: logged its stop"
done
grep -hq 'level=info component=worker worker=w2 msg="job done" job=' "$tmp/w2.log" &&
  kn_ok "log lines in the house form" || kn_fail "log lines in the house form"
echo "  (jobs per worker: $(kn_psql "SELECT string_agg(worker || '=' || n, ' ') FROM (SELECT worker, count(*) n FROM jobs WHERE $batch GROUP BY worker ORDER BY worker) d"))"

# ---- health transitions -------------------------------------------------------------------------------
# run_job FILE — store FILE as task set "health", queue one job for its task, run one worker until the
# queue is empty; sets hver (the version replayed)
run_job() {
  hver=$("$wq" put "$KN_PG_URL" health "$1" | awk '{print $2}')
  "$wq" enqueue "$KN_PG_URL" "$hver" 1 health >/dev/null || kn_fail "enqueue health job"
  "$kn" worker --config "$tmp/keynode.yaml" --id wh --once --element-timeout 2000 --settle-timeout 20000 \
    >/dev/null 2>>"$tmp/wh.log"
  check "health worker exit 0" "$?" 0
}
state() { kn_psql "SELECT h.state || ' ' || h.consecutive_failures FROM task_health h JOIN task_versions v ON v.task_id = h.task_id WHERE v.id = $hver"; }
last_status() { kn_psql "SELECT status FROM replay_results WHERE task_version = $hver ORDER BY id DESC LIMIT 1"; }

# its own task id: alerts are keyed by task id, and the multi-worker replays may have raised some
tasks "$tmp/h-v1.yaml" "http://127.0.0.1:$v1" health-open-post
tasks "$tmp/h-v2.yaml" "http://127.0.0.1:$v2" health-open-post
tasks "$tmp/h-down.yaml" "http://127.0.0.1:$down" health-open-post

run_job "$tmp/h-v1.yaml"
check "v1: passed" "$(last_status)" passed
check "v1: healthy" "$(state)" "healthy 0"
run_job "$tmp/h-v2.yaml"
check "v2: broken" "$(last_status)" broken
grep -q 'msg="replay failed, retrying in a fresh context"' "$tmp/wh.log" && kn_ok "v2: retried once" ||
  kn_fail "v2: retried once"
check "v2 once: flaky, 1 failure" "$(state)" "flaky 1"
run_job "$tmp/h-v2.yaml"
check "v2 twice: broken after 2" "$(state)" "broken 2"
run_job "$tmp/h-v1.yaml"
check "v1 again: recovered" "$(state)" "recovered 0"
run_job "$tmp/h-v1.yaml"
check "v1 once more: healthy" "$(state)" "healthy 0"
run_job "$tmp/h-down.yaml"
check "unreachable: error result" "$(last_status)" error
check "unreachable: error, not broken" "$(state)" "error 0"

task_id=$(kn_psql "SELECT task_id FROM task_versions WHERE id = $hver")
check "transitions recorded in order" \
  "$(kn_psql "SELECT string_agg(from_state || '>' || to_state, ' ' ORDER BY id) FROM health_transitions WHERE task_id = $task_id")" \
  "unknown>healthy healthy>flaky flaky>broken broken>recovered recovered>healthy healthy>error"
check "each transition's evidence names its stored replay" \
  "$(kn_psql "SELECT count(*) FROM health_transitions t JOIN replay_results r ON r.id = (t.evidence->>'replay')::bigint WHERE t.task_id = $task_id AND t.evidence->>'status' = r.status")" 6
check "broken evidence says why" \
  "$(kn_psql "SELECT count(*) FROM health_transitions WHERE task_id = $task_id AND to_state = 'broken' AND evidence->>'retried' = 'true' AND coalesce(evidence->>'reason', '') <> ''")" 1
# an alert per transition except unknown → healthy (health.h), wait: alerts are recorded on their thread
kn_wait_sql 20 "SELECT string_agg(dedupe_key, ' ' ORDER BY id) FROM alerts WHERE dedupe_key LIKE '%health-open-post%'" \
  "health:health:health-open-post:flaky health:health:health-open-post:broken health:health:health-open-post:recovered health:health:health-open-post:healthy health:health:health-open-post:error" &&
  kn_ok "an alert per transition (5)" ||
  kn_fail "an alert per transition: $(kn_psql "SELECT string_agg(dedupe_key, ' ' ORDER BY id) FROM alerts")"
kn_finish
