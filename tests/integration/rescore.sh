#!/usr/bin/env bash
# rescore.sh — task-set snapshots and rescoring on a private PostgreSQL
# cluster, `keynode serve`, `keynode worker` and the local test sites (lib.sh):
#   snapshots  an upload takes snapshot 1 (hash over the tasks' version hashes), the same file again
#              takes none, a changed file (a key node of `alpha` changed, only the intent of `beta`)
#              snapshot 2; GET /api/tasksets/{name}/snapshots lists both with what changed; runs record
#              their snapshot and task version
#   pinned     an agent batch made before version 2 lands runs version 1 of every task (its pin): its
#              attempts' runs and results are of version 1 and score as version 1 says; `keynode run
#              --server --snapshot 1` runs version 1 and prints its snapshot
#   rescore    POST /api/rescore from snapshot 1 to 2: every run recorded on version 1 (external API
#              runs with posted events, the batch's runs) gets its score on version 1 and on version 2,
#              each equal to `keynode score` on the run exported (its stored events as a trajectory)
#              against the task file of that version; the run's own result is unchanged; again: nothing
#              left to do
#   view       GET /api/agent-runs/{id}?version=2 shows the pinned batch on version 2 (its rescores)
#   compare    two batches on snapshots 1 and 2 compared: only `beta` (same key nodes) is paired;
#              `alpha` is left out, the answer says why; the dashboard shows the batch on snapshot 2
#              and the comparison's reason (rescore-page.mjs, headless Chromium)
#   cache      a finished batch's page and results are stored (by the worker that stores its last
#              attempt, else when first read) and served from the row (a ?version= view never is);
#              computed again they are byte for byte the same (page and comparison); a retried attempt (a
#              job queued again and run by a worker), a changed attempt or a changed site marks the row
#              stale and the next answer follows
#   another    a version made outside the upload (SQL, as a repair or an edit does) takes one snapshot
#              at its commit, a rolled-back one none
#   malformed  bodies to POST /api/rescore that are not what they should be: 400, serve still answers
#
#   tests/integration/rescore.sh KEYNODE_BIN REPO_DIR
#
# Env: KN_KEEP=1 keeps the scratch folder. Needs node + the pinned npm packages (node/ensure.sh),
# Chromium, PostgreSQL, jq, curl.
#
# ctest: integration.rescore ARGS=keynode,repo TIMEOUT=360
set -u -o pipefail
kn=${1:?usage: rescore.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: rescore.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"

command -v jq >/dev/null 2>&1 || { echo "FAIL jq not found (apt-get install jq)"; exit 1; }
[ -x "$kn" ] || { echo "FAIL no keynode binary at $kn"; exit 1; }
"$repo/tests/integration/node/ensure.sh" || exit 1
kn_lib_init rescore
export TMPDIR=$tmp
export KEYNODE_CHROMIUM=$kn_chromium
expect() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
site=http://127.0.0.1:$port
kn_api_start "$kn" || kn_finish
export KEYNODE_DATABASE_URL=$KN_PG_URL
api() { curl -s --max-time 60 -H "Authorization: Bearer $token" "$@"; }

# tasks FILE ITEM_ID BETA_INTENT — the task set: alpha's second key node (the item's id) and beta's
# intent vary
tasks() {
  cat >"$1" <<EOF
tasks:
  - id: alpha
    intent: "Search the shop and open an item"
    start_url: $site/shop/
    reference_length: 3
    key_nodes:
      - id: search
        url: { include: "/shop/search.html" }
      - id: item
        url: { key: id, exact: "$2" }
  - id: beta
    intent: "$3"
    start_url: $site/shop/
    reference_length: 3
    key_nodes:
      - id: search
        url: { include: "/shop/search.html" }
EOF
}
mkdir -p "$tmp/v1" "$tmp/v2"
tasks "$tmp/v1/rs.yaml" 3 "Search the shop"
tasks "$tmp/v2/rs.yaml" 7 "Search the shop for anything"

# --- snapshots ---------------------------------------------------------------------------------
up1=$(api -X POST --data-binary @"$tmp/v1/rs.yaml" "$base/api/tasksets?name=rs")
expect "snapshots: the first upload takes snapshot 1" "$(jq -r '.snapshot.version' <<<"$up1")" 1
hash1=$(jq -r '.snapshot.hash' <<<"$up1")
want1=$(kn_psql "SELECT encode(sha256(convert_to(string_agg(t.task_key || E'\t' || v.hash, E'\n' ORDER BY t.task_key), 'UTF8')), 'hex') FROM tasks t JOIN task_versions v ON v.id = t.current_version")
expect "snapshots: the hash is over the tasks' version hashes in task order" "$hash1" "$want1"
again=$(api -X POST --data-binary @"$tmp/v1/rs.yaml" "$base/api/tasksets?name=rs")
expect "snapshots: the same file again takes no snapshot" "$(jq -r '.snapshot.version' <<<"$again")" 1

# external runs: events posted by the harness, no browser. run_ext TASK URL… → the run id
run_ext() {
  local task=$1 id ev='[' u t=1
  shift
  id=$(api -X POST -d "{\"task\": \"rs:$task\"}" "$base/api/runs" | jq -r .id)
  for u in "$@"; do
    ev="$ev$([ "$ev" = '[' ] || echo ,){\"t\": $t, \"type\": \"navigate\", \"url\": \"$site$u\", \"how\": \"goto\"}"
    t=$((t + 1))
  done
  api -X POST -d "$ev]" "$base/api/runs/$id/events" >/dev/null
  api -X POST "$base/api/runs/$id/stop" >/dev/null
  echo "$id"
}
r1=$(run_ext alpha /shop/ "/shop/search.html?q=shoes" "/shop/item.html?id=3")
r2=$(run_ext alpha /shop/ "/shop/search.html?q=fleece" "/shop/item.html?id=7")
r3=$(run_ext beta /shop/ "/shop/search.html?q=x")
run1=$(api "$base/api/runs/$r1")
expect "snapshots: a run records its snapshot and task version" \
  "$(jq -c '[.snapshot.version, .snapshot.hash == "'"$hash1"'", .task_version, .score]' <<<"$run1")" '[1,true,1,1]'

# a batch made now, before version 2 lands: pinned to snapshot 1
cat >"$tmp/keynode.yaml" <<EOF
agents:
  goto: "exec node $repo/tests/agents/goto.mjs '$site/shop/search.html?q=runner' '$site/shop/item.html?id=3'"
EOF
ba=$(api -X POST -d '{"agent": "goto", "taskset": "rs"}' "$base/api/agent-runs")
batch_a=$(jq -r .id <<<"$ba")
expect "pinned: a batch records the snapshot it was made on" "$(jq -r .snapshot.version <<<"$ba")" 1

up2=$(api -X POST --data-binary @"$tmp/v2/rs.yaml" "$base/api/tasksets?name=rs")
expect "snapshots: a changed file takes snapshot 2 with two new versions" \
  "$(jq -c '[.snapshot.version, .new_versions]' <<<"$up2")" '[2,2]'
snaps=$(api "$base/api/tasksets/rs/snapshots")
expect "snapshots: the listing, newest first, says what changed" \
  "$(jq -c '[.snapshots[] | [.version, .current, ([.changed[] | [.task, .from, .to, .key_nodes_changed]])]]' <<<"$snaps")" \
  '[[2,true,[["alpha",1,2,true],["beta",1,2,false]]],[1,false,[]]]'
expect "snapshots: the task and its replays still answer (REPLAY gained its snapshot)" \
  "$(api -o /dev/null -w '%{http_code}' "$base/api/tasks/rs:alpha") $(api "$base/api/replays?task=rs:alpha" | jq -c .replays)" "200 []"
expect "snapshots: an unknown set is 404" "$(api -o /dev/null -w '%{http_code}' "$base/api/tasksets/nope/snapshots")" 404

bb=$(api -X POST -d '{"agent": "goto", "taskset": "rs"}' "$base/api/agent-runs")
batch_b=$(jq -r .id <<<"$bb")
expect "pinned: a batch made after takes snapshot 2" "$(jq -r .snapshot.version <<<"$bb")" 2

# one worker runs both batches (4 attempts, one Chromium each), then stops (--once)
kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --id w1 --once --poll 200 --agent-out "$tmp/out"
wpid=$kn_pid
kn_wait_sql 240 "SELECT count(*) FROM agent_results WHERE batch IN ($batch_a, $batch_b)" 4 ||
  kn_fail "pinned: the worker did not finish the batches: $(tail -5 "$tmp/worker.log")"
kn_stop "$wpid"
expect "pinned: batch A ran version 1 of every task, its runs record snapshot 1" \
  "$(kn_psql "SELECT string_agg(DISTINCT v.version || '/' || x.version, ',') FROM agent_results r JOIN task_versions v ON v.id = r.task_version JOIN runs u ON u.id = r.result->>'run' JOIN taskset_snapshots x ON x.id = u.snapshot WHERE r.batch = $batch_a")" "1/1"
expect "pinned: batch B ran version 2" \
  "$(kn_psql "SELECT string_agg(DISTINCT v.version::text, ',') FROM agent_results r JOIN task_versions v ON v.id = r.task_version WHERE r.batch = $batch_b")" 2
bja=$(api "$base/api/agent-runs/$batch_a")
expect "pinned: batch A's alpha scored on version 1 (both key nodes)" \
  "$(jq -c '[.tasks[] | select(.task == "alpha") | .attempts[] | [.task_version, .score]]' <<<"$bja")" '[[1,1]]'

# `keynode run --server --snapshot 1` after version 2 landed: its attempt runs version 1
KEYNODE_API_TOKEN=$token "$kn" run --tasks "$tmp/v1/rs.yaml" --task alpha --server "$base" --taskset rs --snapshot 1 --out "$tmp/run1" \
  --agent "exec node $repo/tests/agents/goto.mjs '$site/shop/search.html?q=runner' '$site/shop/item.html?id=3'" \
  >"$tmp/run1.out" 2>"$tmp/run1.err" || kn_fail "pinned: keynode run --server --snapshot 1: $(tail -3 "$tmp/run1.err")"
grep -q "keynode run: task set rs snapshot 1 (sha256 $hash1) on $base" "$tmp/run1.err" &&
  kn_ok "pinned: keynode run --server prints the snapshot it pinned" ||
  kn_fail "pinned: keynode run --server did not print its snapshot: $(head -3 "$tmp/run1.err")"
rid=$(jq -r .run "$(find "$tmp/run1" -name result.json | head -1)")
expect "pinned: keynode run --server --snapshot 1 ran version 1 and scored by it" \
  "$(api "$base/api/runs/$rid" | jq -c '[.snapshot.version, .task_version, .score]')" '[1,1,1]'
expect "pinned: --snapshot of no snapshot is refused" \
  "$("$kn" run --tasks "$tmp/v1/rs.yaml" --server "$base" --taskset rs --snapshot 9 --out "$tmp/run9" --agent true \
     >/dev/null 2>"$tmp/run9.err"; echo $?) $(grep -c 'no snapshot 9' "$tmp/run9.err")" "2 1"

# --- rescore -------------------------------------------------------------------------------------
rs=$(api -X POST -d '{"taskset": "rs", "from": 1, "to": 2}' "$base/api/rescore")
expect "rescore: every run of version 1 rescored (3 external, 2 of batch A, 1 of keynode run)" "$(jq -r .rescored <<<"$rs")" 6
expect "rescore: alpha's runs: old and new scores" \
  "$(jq -c '[.runs[] | select(.task == "alpha") | [.from.score, .to.score, .key_nodes_same]] | sort' <<<"$rs")" \
  '[[0.5,1,false],[1,0.5,false],[1,0.5,false],[1,0.5,false]]'
expect "rescore: the run's own result is unchanged" "$(api "$base/api/runs/$r1" | jq -c '[.score, .snapshot.version]')" '[1,1]'
expect "rescore: both scores stored" "$(kn_psql "SELECT count(*) FROM rescores WHERE run_id = '$r1'")" 2

# every rescored run exported (its stored events as a trajectory) and scored by `keynode score`
# against the task file of each version: the same numbers
mkdir -p "$tmp/export"
for run in $(jq -r '.runs[].run' <<<"$rs"); do
  j=$(api "$base/api/runs/$run")
  { jq -c '{run: .run, task: (.task | sub("^rs:"; "")), started: .started}' <<<"$j"
    api "$base/api/runs/$run/events?limit=10000" | jq -c '.events[].event'; } >"$tmp/export/$run.jsonl"
done
ok=1
for v in 1 2; do
  "$kn" score --tasks "$tmp/v$v/rs.yaml" --runs "$tmp/export" --json >"$tmp/score$v.json" 2>"$tmp/score$v.err" ||
    { ok=0; kn_fail "rescore: keynode score v$v: $(cat "$tmp/score$v.err")"; }
  side=$([ $v = 1 ] && echo from || echo to)
  got=$(jq -c "[.runs[] | {run, score: .$side.score, reached: .$side.reached, completion: .$side.completion}] | sort_by(.run)" <<<"$rs")
  want=$(jq -c '[.results[] | {run, score, reached, completion}] | sort_by(.run)' "$tmp/score$v.json")
  [ "$got" = "$want" ] || { ok=0; kn_fail "rescore: version $v: API $got, keynode score $want"; }
done
[ $ok = 1 ] && kn_ok "rescore: each score equals keynode score on the exported run against that version"
expect "rescore: again, nothing left to do" \
  "$(api -X POST -d '{"taskset": "rs", "from": "1", "to": "'"$(jq -r .snapshot.hash <<<"$up2" | cut -c1-12)"'"}' "$base/api/rescore" | jq -c '[.rescored, .done_before]')" '[0,6]'

# --- view and compare ----------------------------------------------------------------------------
v2=$(api "$base/api/agent-runs/$batch_a?version=2")
expect "view: batch A on version 2: alpha's attempt rescored (0.5), beta's as it ran" \
  "$(jq -c '[.scored_on.version, .unscored, ([.tasks[] | [.task, (.attempts[] | [.task_version, .scored_on, .score])]])]' <<<"$v2")" \
  '[2,0,[["alpha",[1,2,0.5]],["beta",[1,2,1]]]]'
expect "view: ?snapshot=1 is the batch as it ran" \
  "$(api "$base/api/agent-runs/$batch_a?snapshot=1" | jq -c '[.tasks[] | .attempts[] | .score]')" '[1,1]'
expect "view: a bad snapshot is 400" "$(api -o /dev/null -w '%{http_code}' "$base/api/agent-runs/$batch_a?version=x")" 400
cmp=$(api "$base/api/agent-runs/compare?a=$batch_a&b=$batch_b")
expect "compare: only the task whose key nodes are the same is paired" \
  "$(jq -c '[.paired, [.per_task[].task], .changed, .a.snapshot.version, .b.snapshot.version]' <<<"$cmp")" \
  '[1,["rs:beta"],["rs:alpha"],1,2]'
expect "compare: the answer says what was left out and why" "$(jq -r '.left_out[0] | .task + ": " + .why' <<<"$cmp")" \
  "rs:alpha: key nodes differ: batch A ran version 1, batch B version 2"

# the dashboard: the batch on snapshot 2, the comparison's reasons (headless Chromium)
kn_chromium_start "$tmp/chromium" || kn_finish
node "$repo/tests/integration/rescore-page.mjs" "$cdp" "$base" "$token" "$batch_a" "$batch_b" >"$tmp/page.out" 2>&1
while read -r l; do case $l in ok*) kn_ok "${l#ok   }" ;; FAIL*) kn_fail "${l#FAIL }" ;; esac; done <"$tmp/page.out"
grep -q '^ok   compare page' "$tmp/page.out" || kn_fail "dashboard: rescore-page.mjs: $(tail -3 "$tmp/page.out")"

# --- cache (a finished batch's page and packed attempts computed once, 190 and 200) ------------
# fresh — batch A's row marked stale, so the next answer is computed (as a change to the batch does)
fresh() { kn_psql "UPDATE agent_batch_stats SET token = nextval('agent_batch_stats_token'), page = NULL, rows = NULL WHERE batch = $batch_a" >/dev/null; }
stored() { kn_psql "SELECT (page IS NOT NULL) || ' ' || (rows IS NOT NULL) FROM agent_batch_stats WHERE batch = $batch_a"; }
p1=$(api "$base/api/agent-runs/$batch_a")
expect "cache: a finished batch's page and results are stored when first read" "$(stored)" "true true"
expect "cache: the stored page is the answer" "$(kn_psql "SELECT page FROM agent_batch_stats WHERE batch = $batch_a")" "$p1"
kn_psql "UPDATE agent_batch_stats SET page = '{\"stored\": 1}' WHERE batch = $batch_a" >/dev/null
expect "cache: the page is read from the stored row, a view on a snapshot is not" \
  "$(api "$base/api/agent-runs/$batch_a") $(api "$base/api/agent-runs/$batch_a?version=2" | jq -c .scored_on.version)" '{"stored": 1} 2'
c1=$(api "$base/api/agent-runs/compare?a=$batch_a&b=$batch_b")
fresh
expect "cache: a page computed again (after the rescore) is byte for byte the one stored before it" "$(api "$base/api/agent-runs/$batch_a")" "$p1"
fresh
expect "cache: a comparison on stored results is byte for byte one computed" \
  "$(api "$base/api/agent-runs/compare?a=$batch_a&b=$batch_b")" "$c1"
expect "cache: the attempts are stored packed (run_rows.h), not as JSON" \
  "$(kn_psql "SELECT split_part(rows, E'\n', 1) || ' ' || (results IS NULL) FROM agent_batch_stats WHERE batch = $batch_a")" "keynode-rows 1 true"
kn_psql "UPDATE agent_batch_stats SET rows = '{\"id\": 1}' WHERE batch = $batch_a" >/dev/null
expect "cache: stored attempts that do not unpack (an older keynode's JSON) are computed again and replaced" \
  "$(api "$base/api/agent-runs/compare?a=$batch_a&b=$batch_b") $(kn_psql "SELECT split_part(rows, E'\n', 1) FROM agent_batch_stats WHERE batch = $batch_a")" "$c1 keynode-rows 1"
# a retried attempt: a job of the finished batch queued again (its result gone, as a retry leaves it);
# while it is open nothing is stored; a worker runs it, and the next read follows
api "$base/api/agent-runs/$batch_a" >/dev/null
rjob=$(kn_psql "SELECT min(job_id) FROM agent_results WHERE batch = $batch_a")
kn_psql "BEGIN; DELETE FROM agent_results WHERE job_id = $rjob; UPDATE jobs SET state = 'queued', worker = NULL, finished = NULL WHERE id = $rjob; COMMIT" >/dev/null
expect "cache: a retried attempt marks the stored page stale" "$(stored)" "false false"
expect "cache: an open batch is computed, not stored" \
  "$(api "$base/api/agent-runs/$batch_a" | jq -c '[.queued, .done]') $(stored)" "[1,1] false false"
kn_spawn worker2 "$kn" worker --config "$tmp/keynode.yaml" --id w2 --once --poll 200 --agent-out "$tmp/out2"
wpid=$kn_pid
kn_wait_sql 240 "SELECT count(*) FROM agent_results r JOIN agent_batch_stats c ON c.batch = r.batch WHERE r.job_id = $rjob AND c.page IS NOT NULL" 1 &&
  kn_ok "cache: the worker that stored the batch's last attempt stored its page, before any read" ||
  kn_fail "cache: the worker did not run the retried attempt or store the page: $(tail -5 "$tmp/worker2.log")"
kn_stop "$wpid"
p2=$(api "$base/api/agent-runs/$batch_a")
expect "cache: the retried attempt's page shows it" \
  "$(jq -c "[.done, (.tasks[].attempts[] | select(.job == $rjob) | .worker)]" <<<"$p2") $(stored)" '[2,"w2"] true true'
fresh
expect "cache: ... byte for byte what is computed" "$(api "$base/api/agent-runs/$batch_a")" "$p2"
kn_psql "UPDATE agent_results SET score = 0.25, result = jsonb_set(result, '{score}', '0.25') WHERE job_id = $rjob" >/dev/null
expect "cache: a stored attempt changed: the page follows" \
  "$(api "$base/api/agent-runs/$batch_a" | jq -c "[.tasks[].attempts[] | select(.job == $rjob) | .score]")" '[0.25]'
kn_psql "UPDATE task_versions SET site = 'cache.example' WHERE id = (SELECT task_version FROM jobs WHERE id = $rjob)" >/dev/null
expect "cache: a task version's site changed: the page follows" \
  "$(api "$base/api/agent-runs/$batch_a" | jq -r "[.tasks[] | select(.attempts[].job == $rjob) | .site] | .[0]")" cache.example
api "$base/api/agent-runs/compare?a=$batch_a&b=$batch_b" >/dev/null
expect "cache: the results comparisons read follow too" \
  "$(kn_psql "SELECT rows LIKE '%cache.example%' AND rows LIKE '%'||E'\t'||'0.25'||E'\t'||'%' FROM agent_batch_stats WHERE batch = $batch_a")" t
api "$base/api/agent-runs/$batch_a" >/dev/null
expect "cache: stored again after the reads" "$(stored)" "true true"
kn_psql "INSERT INTO jobs (task_version, kind, batch, agent, attempt_no) SELECT task_version, 'agent', batch, agent, 9
  FROM jobs WHERE batch = $batch_a LIMIT 1" >/dev/null
expect "cache: a job inserted into a finished batch marks it stale (jobs_batch_stats_insert, once per statement)" \
  "$(stored)" "false false"
kn_psql "DELETE FROM jobs WHERE batch = $batch_a AND attempt_no = 9" >/dev/null
# an idle worker computes a finished batch whose page and attempts are not stored (finished before
# keynode kept them, or changed since): one per idle poll, newest first, so no reader pays for it
api "$base/api/agent-runs/$batch_b" >/dev/null
fresh
for i in 1 2 3; do
  "$kn" worker --config "$tmp/keynode.yaml" --id w3 --once --poll 200 --agent-out "$tmp/out3" >>"$tmp/worker3.log" 2>&1
  [ "$(stored)" = "true true" ] && break
done
expect "cache: an idle worker stores a finished batch's page and packed attempts before any read" \
  "$(stored) $(grep -c "batch page stored.*batch=$batch_a" "$tmp/worker3.log")" "true true 1"

# --- another path ----------------------------------------------------------------------------------
# a version made outside the upload (as applying a repair or an edit does: task_versions rows and the
# tasks' current_version in one transaction): the database takes one snapshot for it at the commit; a
# transaction rolled back takes none
newv="INSERT INTO task_versions (task_id, version, hash, definition, intent, start_url, site, key_nodes)
  SELECT t.id, v.version + 1, encode(sha256(convert_to(v.hash || 'edit', 'UTF8')), 'hex'), v.definition,
  v.intent || ' (edited)', v.start_url, v.site, v.key_nodes FROM tasks t JOIN task_versions v ON v.id = t.current_version;
  UPDATE tasks t SET current_version = v.id FROM task_versions v WHERE v.task_id = t.id AND v.version = 3;"
kn_psql "BEGIN; $newv ROLLBACK;"
expect "another path: a rolled-back change takes no snapshot" "$(kn_psql "SELECT count(*) FROM taskset_snapshots")" 2
kn_psql "BEGIN; $newv COMMIT;"
expect "another path: two versions in one transaction take one snapshot, at the commit" \
  "$(api "$base/api/tasksets/rs/snapshots" | jq -c '[(.snapshots | length), ([.snapshots[0].changed[] | [.task, .to]])]')" \
  '[3,[["alpha",3],["beta",3]]]'
expect "another path: its hash is over the new versions" \
  "$(kn_psql "SELECT x.hash = kn_taskset_hash(x.taskset_id) FROM taskset_snapshots x WHERE x.version = 3")" t

# --- malformed -----------------------------------------------------------------------------------
bad=0
for body in '' 'not json' '[]' '{}' '{"taskset": "rs"}' '{"taskset": 5, "from": 1, "to": 2}' \
  '{"taskset": "rs", "from": {}, "to": 2}' '{"taskset": "rs", "from": 1, "to": -3}' \
  '{"taskset": "rs", "from": "zz", "to": 2}' '{"taskset": "rs", "from": 1, "to": 2, "limit": 0}' \
  '{"taskset": "rs", "from": 1, "to": 2, "limit": "9"}' '{"taskset": "rs", "from": 1e300, "to": 2}' \
  '{"taskset": "rs", "from": "1x", "to": 2}' '{"taskset": "", "from": 1, "to": 2}'; do
  code=$(api -o /dev/null -w '%{http_code}' -X POST -d "$body" "$base/api/rescore")
  [ "$code" = 400 ] || { bad=1; kn_fail "malformed: '$body' answered $code, want 400"; }
done
[ $bad = 0 ] && kn_ok "malformed: 14 bad bodies answered 400"
expect "malformed: an unknown snapshot is 404" \
  "$(api -o /dev/null -w '%{http_code}' -X POST -d '{"taskset": "rs", "from": 1, "to": 9}' "$base/api/rescore")" 404
expect "malformed: no token is 401" \
  "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"taskset": "rs", "from": 1, "to": 2}' "$base/api/rescore")" 401
expect "malformed: serve still answers" "$(api "$base/healthz" | jq -r .ok)" true

kn_finish
