#!/usr/bin/env bash
# nonblocking.sh — no request of `keynode serve` waits on the server thread, and the
# cached listings are invalidated correctly. A private PostgreSQL (migrated) and `keynode serve`:
# - invalidation: GET /api/tasks is cached once asked (twice here); a task set uploaded through the
#   API, a run started and a run stopped are each seen by the very next GET /api/tasks; a change
#   another process commits (psql writes task_health) is seen once its notification arrives (polled,
#   bounded), by GET /api/tasks and by /metrics' task-health gauge;
# - slow dependencies (slow-deps.mjs): a "browser" that accepts and never answers holds
#   POST /api/runs in discovery while /healthz, /api/tasks, /api/runs and /metrics answer; a large
#   task-set upload (KN_BIG_TASKS generated tasks, default 3000, ~0.8 MB) is parsed and stored while
#   /healthz and /api/tasks keep answering. Order is asserted, never time.
#
#   nonblocking.sh KEYNODE_BINARY REPO_DIR
#
# The sanitizer build uploads 1,500 tasks (the same code paths).
# ctest: integration.nonblocking ARGS=keynode,repo TIMEOUT=300 SANITIZE_ENV=KN_BIG_TASKS=1500
set -u -o pipefail
KN=${1:?usage: nonblocking.sh KEYNODE REPO}
REPO=${2:?usage: nonblocking.sh KEYNODE REPO}
. "$(dirname "$0")/lib.sh"
kn_lib_init nonblocking
HERE=$(cd "$(dirname "$0")" && pwd)
TOKEN=t0k-$RANDOM$RANDOM
W=(-H "Authorization: Bearer $TOKEN")
for t in curl jq node; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve.log" \
  --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
B=$api_base
api() { curl -s -o "$tmp/body" -w '%{http_code}' "$@"; }
ntasks() { curl -s "$B/api/tasks" | jq '.tasks | length'; }

# --- invalidation ----------------------------------------------------------------------------------
c=$(api "${W[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] || { kn_fail "upload: $c $(cat "$tmp/body")"; kn_finish; }
n0=$(ntasks); n1=$(ntasks)
[ "$n0" -gt 0 ] && [ "$n0" = "$n1" ] && kn_ok "GET /api/tasks: $n0 tasks, asked twice (cached)" || kn_fail "tasks: '$n0' '$n1'"
printf 'tasks:\n  - id: extra-one\n    intent: "An extra task"\n    start_url: http://127.0.0.1:9/x\n    key_nodes:\n      - id: x\n        url: { include: "/x/y" }\n' >"$tmp/extra.yaml"
c=$(api "${W[@]}" --data-binary @"$tmp/extra.yaml" "$B/api/tasksets?name=extra")
n2=$(ntasks)
[ "$c" = 201 ] && [ "$n2" = $((n0 + 1)) ] && curl -s "$B/api/tasks" | jq -e '[.tasks[].id] | index("extra-one") != null' >/dev/null &&
  kn_ok "a task set uploaded: the next GET /api/tasks has it ($n2 tasks)" || kn_fail "after upload: $c, $n2 tasks (was $n0)"
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); RID=$(jq -r .id "$tmp/body")
last=$(curl -s "$B/api/tasks" | jq -r '.tasks[] | select(.id == "shop-red-runner-cart") | .last_run.id + " " + .last_run.status')
[ "$c" = 201 ] && [ "$last" = "$RID running" ] && kn_ok "a run started: the next GET /api/tasks shows it as last_run" || kn_fail "last_run after start: $c '$last' (run $RID)"
c=$(api "${W[@]}" -X POST "$B/api/runs/$RID/stop")
last=$(curl -s "$B/api/tasks" | jq -r '.tasks[] | select(.id == "shop-red-runner-cart") | .last_run.status')
[ "$c" = 200 ] && [ "$last" != running ] && [ -n "$last" ] && kn_ok "a run stopped: the next GET /api/tasks shows it ended ($last)" || kn_fail "last_run after stop: $c '$last'"
curl -s "$B/metrics" >/dev/null
kn_psql "INSERT INTO task_health (task_id, state) SELECT t.id, 'broken' FROM tasks t WHERE t.task_key = 'extra-one'
         ON CONFLICT (task_id) DO UPDATE SET state = 'broken'" >/dev/null
extra_health_() { curl -s "$B/api/tasks" | jq -r '.tasks[] | select(.id == "extra-one") | .health'; }
extra_broken_() { [ "$(extra_health_)" = broken ]; }
kn_wait_for "GET /api/tasks to show extra-one broken" 10 extra_broken_
h=$(extra_health_)
[ "$h" = broken ] && kn_ok "another process's commit (psql): GET /api/tasks sees it" || kn_fail "health from psql not seen: '$h'"
curl -s "$B/metrics" | grep -q '^keynode_task_health{state="broken"} 1$' && kn_ok "/metrics: the health gauge follows" ||
  kn_fail "/metrics task_health: $(curl -s "$B/metrics" | grep task_health | tr '\n' ' ')"
grep -q 'level=error' "$tmp/serve.log" && kn_fail "serve logged an error: $(grep level=error "$tmp/serve.log" | head -2)"

# --- slow dependencies ----------------------------------------------------------------------------
node "$HERE/slow-deps.mjs" "$B" "$TOKEN" sites:shop-red-runner-cart "${KN_BIG_TASKS:-3000}" >"$tmp/slow.out" 2>&1
cat "$tmp/slow.out"
kn_fails=$((kn_fails + $(grep -c '^FAIL' "$tmp/slow.out")))
grep -q '^ok   upload' "$tmp/slow.out" || kn_fail "slow-deps.mjs did not finish: $(tail -3 "$tmp/slow.out")"
c=$(api "$B/healthz"); [ "$c" = 200 ] && kn_ok "still serving" || kn_fail "healthz at the end: $c"
kill -TERM "$serve_pid"; wait "$serve_pid"; rc=$?; kn_forget "$serve_pid"
[ $rc = 0 ] && kn_ok "SIGTERM: exit 0 (worker threads joined)" || kn_fail "serve exit $rc: $(tail -3 "$tmp/serve.log")"
kn_finish
