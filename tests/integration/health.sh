#!/usr/bin/env bash
# health.sh — a task set's health over time (GET /api/tasksets/{name}/health, the dashboard's task-set
# page): a private PostgreSQL (`keynode migrate`), `keynode serve`, `keynode sites` for tests/sites (v1)
# and its v2, `keynode worker --once` replays of jobs queued through the real store (worker_queue).
#   hand   a hand-made history (the worked example of docs/maintain.md) put into replay_results and
#          health_transitions with known timestamps: the validated share (7 and 5 days), the four breaks
#          with their exact detection times, the survival curve's steps and median, breaks per month;
#          an unknown set is 404, a bad ?days= 400; the answer validates against
#          schemas/taskset-health.schema.json.
#   live   two tasks replayed on v1 (both pass), then one of them moved to its v2 (the forum links posts
#          by a renamed URL parameter: broken, health.broken_after 1): the endpoint shows 2 of 2 validated,
#          one break and its detection time, hand-worked here from the stored rows' timestamps (the last
#          passing replay's `created`, the transition's `at`), and the survival curve 1 → 0.5.
#   cli    `keynode run --server` (an agent that does nothing) prints "validated within 7 days: 2 of 2
#          tasks" beside every rate and keeps it in summary.json "validation"; `keynode leaderboard`
#          states the recorded one, and with --server --taskset asks the server now.
#   page   the dashboard's task-set page (taskset-page.mjs, headless Chromium): the statement, the
#          breaks-per-month bars and the survival steps carry the same numbers; a screenshot of the charts
#          goes to ARTIFACT_DIR/taskset-health.png.
#
#   tests/integration/health.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR ARTIFACT_DIR
#
# 20-38 s at load 12-13 on 2 cores in the -Werror build (maintenance.sh took 58 s beside it); 35 s in the
# sanitizer build, where it is the one test that drives store_health.c and api_taskset_health.c.
#
# ctest: integration.health ARGS=keynode,target:worker_queue,repo,build:artifacts/health TIMEOUT=300 SANITIZE_TIMEOUT=480
set -u -o pipefail
kn=${1:?usage: health.sh KEYNODE_BIN WORKER_QUEUE_BIN REPO_DIR ARTIFACT_DIR}
wq=${2:?usage}
repo=$(cd "${3:?usage}" && pwd)
out=${4:?usage}
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init health
export TMPDIR=$tmp
export KEYNODE_CHROMIUM=$kn_chromium
for tool in curl jq node psql; do command -v "$tool" >/dev/null 2>&1 || { kn_fail "$tool not found"; kn_finish; }; done
mkdir -p "$out"
check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

kn_pg_start || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
export KEYNODE_API_TOKEN=health-$$ # serve's token: keynode run --server writes with it
cat >"$tmp/keynode.yaml" <<'EOF2'
# the database comes from KEYNODE_DATABASE_URL
health: { broken_after: 1 }
EOF2
"$kn" migrate --config "$tmp/keynode.yaml" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
kn_serve_start "$kn" "$tmp/serve.log" --config "$tmp/keynode.yaml" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
B=$api_base
health() { curl -sS "$B/api/tasksets/$1/health${2:+?$2}"; }

# task ID BASE — the worker test task (worker.sh): on v2 the forum links posts as post.html?post=N, so key
# node "post" (URL parameter id=3) is not reached and the replay is broken
task() {
  cat <<EOF2
  - id: $1
    intent: "Open the forum post about stoves"
    start_url: $2/forum/
    key_nodes:
      - id: post
        url: { key: id, exact: "3" }
    steps:
      - goto: $2/forum/
      - click: { selector: "#post-3 a.post-title", text: "Winter camping stove advice" }
EOF2
}

# ---- hand: the worked example, with known timestamps ---------------------------------------------------
{ echo "tasks:"; for t in a b c d e; do task "$t" http://127.0.0.1:9; done; } >"$tmp/hand.yaml"
"$wq" put "$KN_PG_URL" hand "$tmp/hand.yaml" >"$tmp/hand.versions" || { kn_fail "put hand"; kn_finish; }
T=$(kn_psql "SELECT floor(extract(epoch FROM now()) * 1000)::bigint - 40 * 86400000::bigint")
# pass TASK DAY / brk TASK DAY — a passing replay / a transition into broken, DAY days after T
pass() {
  kn_psql "INSERT INTO replay_results (task_version, status, created) SELECT v.id, 'passed', to_timestamp(($T + $2 * 86400000::bigint) / 1000.0)
           FROM task_versions v JOIN tasks t ON t.current_version = v.id JOIN tasksets s ON s.id = t.taskset_id
           WHERE s.name = 'hand' AND t.task_key = '$1'" >/dev/null
}
brk() {
  kn_psql "INSERT INTO health_transitions (task_id, from_state, to_state, at) SELECT t.id, 'healthy', 'broken', to_timestamp(($T + $2 * 86400000::bigint) / 1000.0)
           FROM tasks t JOIN tasksets s ON s.id = t.taskset_id WHERE s.name = 'hand' AND t.task_key = '$1'" >/dev/null
}
pass a 0; pass a 5; pass a 10; brk a 12
pass b 0; pass b 20; pass b 35
pass c 5; brk c 20; pass c 25; brk c 38
pass d 2; pass d 15; pass d 30; brk d 33; pass d 36
# (a 5, b 20 and d 15 decide nothing: the store leaves them out, the numbers are the same)
# and one failed replay, which never enters
kn_psql "INSERT INTO replay_results (task_version, status) SELECT current_version, 'broken' FROM tasks WHERE task_key = 'e'" >/dev/null

health hand >"$tmp/hand.json"
check "hand: 2 of 5 validated within 7 days" "$(jq -r '"\(.validated) of \(.tasks) \(.validated_share)"' "$tmp/hand.json")" "2 of 5 0.4"
check "hand: the statement" "$(jq -r .statement "$tmp/hand.json")" "validated within 7 days: 2 of 5 tasks"
check "hand: ?days=5 counts d only" "$(health hand days=5 | jq -r '"\(.days) \(.validated)"')" "5 1"
check "hand: four breaks, in time order" "$(jq -r '[.breaks[] | .task] | join(" ")' "$tmp/hand.json")" "a c d c"
check "hand: detection times (days)" "$(jq -r '[.breaks[] | .detection_s / 86400] | map(tostring) | join(" ")' "$tmp/hand.json")" "2 15 3 13"
check "hand: detection summary" "$(jq -r '.detection | "\(.count) \(.median_s / 86400) \(.max_s / 86400)"' "$tmp/hand.json")" "4 8 15"
check "hand: breaks per month add up" "$(jq -r '[.breaks_per_month[].breaks] | add' "$tmp/hand.json")" 4
want_months=$(kn_psql "SELECT count(*) FROM generate_series(date_trunc('month', to_timestamp($T / 1000.0) AT TIME ZONE 'UTC'), date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month')")
check "hand: one bar per month from the first replay's to now's" "$(jq -r '.breaks_per_month | length' "$tmp/hand.json")" "$want_months"
check "hand: survival intervals" "$(jq -r '.survival | "\(.intervals) \(.ended) \(.median_s / 86400)"' "$tmp/hand.json")" "4 3 15"
check "hand: survival steps" \
  "$(jq -r '[.survival.curve[0:3][] | "\(.t_s / 86400):\(.at_risk):\(.ended):\(.survival)"] | join(" ")' "$tmp/hand.json")" \
  "12:4:1:0.75 15:3:1:0.5 31:2:1:0.25"
check "hand: b censored at now (40 days and the time since)" \
  "$(jq -r '.survival.curve[3] | "\(.t_s >= 40 * 86400 and .t_s < 41 * 86400) \(.at_risk) \(.censored) \(.survival)"' "$tmp/hand.json")" "true 1 1 0.25"
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 && node "$here/schema-validate.mjs" "$repo" taskset-health "$tmp/hand.json" >"$tmp/schema.log" 2>&1 &&
  kn_ok "hand: the answer validates against taskset-health.schema.json" || kn_fail "schema: $(tail -5 "$tmp/schema.log")"
check "unknown set: 404" "$(curl -sS -o /dev/null -w '%{http_code}' "$B/api/tasksets/nosuch/health")" 404
check "bad days: 400" "$(curl -sS -o /dev/null -w '%{http_code}' "$B/api/tasksets/hand/health?days=0")" 400

# ---- live: replays by the worker, then the site changed to its v2 -------------------------------------
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites-v1.log" || kn_finish
v1=http://127.0.0.1:$port
kn_sites_v2_root "$repo/tests/sites" "$tmp/site-v2" || { kn_fail "v2 site tree"; kn_finish; }
kn_sites_start "$kn" "$tmp/site-v2" "$tmp/sites-v2.log" || kn_finish
v2=http://127.0.0.1:$port
# put A_BASE — task set "live": task ta at A_BASE, tb on v1
put() { { echo "tasks:"; task ta "$1"; task tb "$v1"; } >"$tmp/live.yaml"; "$wq" put "$KN_PG_URL" live "$tmp/live.yaml" >"$tmp/live.versions"; }
# replay TASK — one job for TASK's current version, run by one worker until the queue is empty
replay() {
  "$wq" enqueue "$KN_PG_URL" "$(awk -v t="$1" '$1 == t {print $2}' "$tmp/live.versions")" 1 live >/dev/null || kn_fail "enqueue $1"
  "$kn" worker --config "$tmp/keynode.yaml" --id wh --once --element-timeout 2000 --settle-timeout 20000 \
    >/dev/null 2>>"$tmp/worker.log"
  check "worker for $1: exit 0" "$?" 0
}
status() { kn_psql "SELECT r.status FROM replay_results r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id WHERE t.task_key = '$1' ORDER BY r.id DESC LIMIT 1"; }
put "$v1" || { kn_fail "put live"; kn_finish; }
replay tb; replay ta # tb first: its interval is the longer one, so the curve's order is known
check "v1: both passed" "$(status ta) $(status tb)" "passed passed"
health live >"$tmp/live1.json"
check "live v1: 2 of 2 validated, no break" "$(jq -r '"\(.validated) of \(.tasks) \(.breaks_total)"' "$tmp/live1.json")" "2 of 2 0"
put "$v2" || kn_fail "put live v2"
replay ta
check "v2: ta broken" "$(status ta)" broken
check "v2: ta's health broken" "$(kn_psql "SELECT h.state FROM task_health h JOIN tasks t ON t.id = h.task_id WHERE t.task_key = 'ta'")" broken
health live >"$tmp/live2.json"
# the detection time by hand: the transition's time minus ta's last passing replay's, in whole ms
want=$(kn_psql "SELECT floor(extract(epoch FROM h.at) * 1000)::bigint - (SELECT floor(extract(epoch FROM max(r.created)) * 1000)::bigint
  FROM replay_results r JOIN task_versions v ON v.id = r.task_version WHERE v.task_id = h.task_id AND r.status = 'passed')
  FROM health_transitions h JOIN tasks t ON t.id = h.task_id WHERE t.task_key = 'ta' AND h.to_state = 'broken'")
check "live v2: still 2 of 2 validated (ta passed today), one break" \
  "$(jq -r '"\(.validated) of \(.tasks) \(.breaks_total) \(.breaks[0].task)"' "$tmp/live2.json")" "2 of 2 1 ta"
check "live v2: detection time from the stored rows ($want ms)" "$(jq -r '.breaks[0].detection_s * 1000 | round' "$tmp/live2.json")" "$want"
check "live v2: this month's bar holds the break" \
  "$(jq -r '.breaks_per_month[-1] | "\(.month) \(.breaks)"' "$tmp/live2.json")" "$(kn_psql "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')") 1"
# ta's interval: its first pass to the break, the same span as the detection time (one pass before it)
check "live v2: survival 1 -> 0.5 at ta's interval, tb censored" \
  "$(jq -r '.survival | "\(.intervals) \(.ended) \(.curve[0].t_s * 1000 | round) \(.curve[0].survival) \(.curve[1].censored) \(.curve[1].survival)"' "$tmp/live2.json")" \
  "2 1 $want 0.5 1 0.5"
cp "$tmp/live2.json" "$out/live-health.json"
cp "$tmp/hand.json" "$out/hand-health.json"

# ---- cli: keynode run --server and keynode leaderboard state the validation beside their numbers ------
# an agent that does nothing: the attempt ends incomplete, the summary is written all the same
"$kn" run --server "$B" --taskset live --tasks "$tmp/live.yaml" --task tb --agent true --timeout 60 \
  --out "$tmp/run" >"$tmp/run.log" 2>&1
check "run --server: summary.json validation" "$(jq -r '.validation | "\(.taskset) \(.validated) \(.tasks) \(.statement)"' "$tmp/run/summary.json")" \
  "live 2 2 validated within 7 days: 2 of 2 tasks"
check "run --server: beside every rate" "$(grep -c '^  [a-z_]*_rate .*\[validated within 7 days: 2 of 2 tasks\]$' "$tmp/run.log")" 5
"$kn" leaderboard "$tmp/run" --csv >"$tmp/lb.csv" 2>"$tmp/lb.err"
check "leaderboard: the recorded statement" "$(tail -1 "$tmp/lb.csv" | grep -o '"validated[^"]*"$')" '"validated within 7 days: 2 of 2 tasks"'
"$kn" leaderboard "$tmp/run" --server "$B" --taskset hand --markdown >"$tmp/lb.md" 2>"$tmp/lb.err"
check "leaderboard --server --taskset: asked now, beside the row's numbers" \
  "$(grep -c '^| 1 | .* | validated within 7 days: 2 of 5 tasks |$' "$tmp/lb.md")" 1
"$kn" leaderboard "$tmp/run" --taskset hand >/dev/null 2>&1
check "leaderboard --taskset without --server: exit 2" "$?" 2

# ---- page: the dashboard's task-set page shows the same numbers ---------------------------------------
# months NAME — breaks per month of task set NAME, counted here in SQL from its rows: every month from its
# first passing replay or break to now's
months() {
  kn_psql "WITH t AS (SELECT t.id FROM tasks t JOIN tasksets s ON s.id = t.taskset_id WHERE s.name = '$1' AND t.active),
    br AS (SELECT h.at FROM health_transitions h JOIN t ON t.id = h.task_id WHERE h.to_state = 'broken' AND h.from_state <> 'broken'),
    ev AS (SELECT r.created AS at FROM replay_results r JOIN task_versions v ON v.id = r.task_version JOIN t ON t.id = v.task_id
           WHERE r.status = 'passed' UNION ALL SELECT at FROM br)
    SELECT json_agg(json_build_object('month', to_char(m, 'YYYY-MM'), 'breaks',
      (SELECT count(*) FROM br WHERE date_trunc('month', br.at AT TIME ZONE 'UTC') = m)) ORDER BY m)
    FROM generate_series(date_trunc('month', (SELECT min(at) FROM ev) AT TIME ZONE 'UTC'),
                         date_trunc('month', now() AT TIME ZONE 'UTC'), interval '1 month') m"
}
d=86400000
hand_want=$(jq -cn --argjson m "$(months hand)" --argjson d $d '{statement: "validated within 7 days: 2 of 5 tasks",
  validated: 2, tasks: 5, months: $m, steps: [[12 * $d, 0.75], [15 * $d, 0.5], [31 * $d, 0.25]], nsteps: 4,
  breaks: [["c", 13 * $d], ["d", 3 * $d], ["c", 15 * $d], ["a", 2 * $d]],
  days: {days: 30, statement: "validated within 30 days: 3 of 5 tasks"}}') # a's day-10 pass is just outside
live_want=$(jq -cn --argjson m "$(months live)" --argjson w "$want" '{statement: "validated within 7 days: 2 of 2 tasks",
  validated: 2, tasks: 2, months: $m, steps: [[$w, 0.5]], nsteps: 2, breaks: [["ta", $w]]}')
kn_chromium_start "$tmp/chromium" || kn_finish
node "$here/taskset-page.mjs" "$cdp" "$B" hand "$hand_want" "$out/taskset-health.png" >"$tmp/page-hand.out" 2>&1
node "$here/taskset-page.mjs" "$cdp" "$B" live "$live_want" >"$tmp/page-live.out" 2>&1
for f in "$tmp/page-hand.out" "$tmp/page-live.out"; do
  while read -r l; do case $l in ok*) kn_ok "page: ${l#ok   }" ;; FAIL*) kn_fail "page: ${l#FAIL }" ;; esac; done <"$f"
  grep -q '^ok   .*no console error' "$f" || kn_fail "taskset-page.mjs: $(tail -3 "$f")"
done
kn_finish
