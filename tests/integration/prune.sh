#!/usr/bin/env bash
# prune.sh — retention against a private PostgreSQL cluster: `keynode prune` deletes the
# events of finished agent and replay runs older than keynode.yaml's `retention:` and old failure
# screenshots, keeps newer ones and a live run's events whatever its age, deletes nothing with --dry-run,
# keeps the runs themselves; serve applies the same retention on its own.
#   tests/integration/prune.sh KEYNODE REPO
#
# ctest: integration.prune ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
KN=${1:?usage: prune.sh KEYNODE REPO}
REPO=${2:?usage: prune.sh KEYNODE REPO}
. "$REPO/tests/integration/lib.sh"
kn_lib_init prune
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >/dev/null || { kn_fail "migrate"; kn_finish; }
TOKEN=prune$RANDOM
A=(-H "Authorization: Bearer $TOKEN")
# serve_up [ARGS…] — serve on a free port; sets spid, B
serve_up() {
  local p; p=$(kn_free_port)
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_spawn -a -o "$tmp/serve.out" -e "$tmp/serve.err" serve \
    "$KN" serve --listen "127.0.0.1:$p" --spool-dir "$tmp/spool" "$@"
  spid=$kn_pid
  kn_wait_for "serve's /healthz" 20 curl -s -o /dev/null "http://127.0.0.1:$p/healthz"
  B=http://127.0.0.1:$p
}
# run_with_events [stop] — an external run with 3 events, stopped when asked; prints its id
run_with_events() {
  local id i
  id=$(curl -s "${A[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs" | jq -r .id)
  for i in 1 2 3; do
    curl -s -o /dev/null "${A[@]}" -d "{\"t\":$i,\"type\":\"navigate\",\"url\":\"http://127.0.0.1:8100/shop/?p=$i\"}" "$B/api/runs/$id/events"
  done
  [ "${1:-}" = stop ] && curl -s -o /dev/null "${A[@]}" -X POST "$B/api/runs/$id/stop"
  echo "$id"
}
serve_up
curl -s -o /dev/null "${A[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites"
OLD=$(run_with_events stop); NEW=$(run_with_events stop); REP=$(run_with_events stop); LIVE=$(run_with_events)
kn_wait_sql 10 "SELECT count(*) FROM events" 12 && kn_ok "4 runs with 3 events each" || kn_fail "events stored: $(kn_psql "SELECT count(*) FROM events")"
kn_stop "$spid" # serve's stop ends LIVE: it is made live again below, as a run of a running serve is
# 100 days ago: OLD (agent), REP (a replay run), LIVE (started then, not ended: still running)
kn_psql "UPDATE runs SET started = now() - interval '100 days', ended = now() - interval '100 days' + interval '1 min'
  WHERE id IN ('$OLD', '$REP');
  UPDATE runs SET kind = 'replay' WHERE id = '$REP';
  UPDATE runs SET started = now() - interval '100 days', ended = NULL, status = 'running' WHERE id = '$LIVE';
  INSERT INTO replay_results (task_version, run_id, status, report, screenshot, created)
  SELECT task_version, '$REP', 'broken', '{}'::jsonb, '\\x89504e470d0a1a0a'::bytea, now() - interval '100 days' FROM runs WHERE id = '$REP'
  UNION ALL SELECT task_version, NULL, 'broken', '{}', '\\x89504e470d0a1a0a', now() FROM runs WHERE id = '$REP'" >/dev/null
cat >"$tmp/keynode.yaml" <<YAML
database:
  url: "$KN_PG_URL"
retention:
  agent_events_days: 30
  replay_events_days: 30
  screenshots_days: 30
YAML
"$KN" prune --help | grep -q -- '--dry-run' && kn_ok "prune --help" || kn_fail "prune --help"
"$KN" prune --config "$tmp/keynode.yaml" --batch 0 >/dev/null 2>&1; [ $? = 2 ] && kn_ok "prune --batch 0: usage error" || kn_fail "prune --batch 0"
out=$("$KN" prune --database "$KN_PG_URL" 2>&1); [ $? = 0 ] && grep -q 'nothing to do' <<<"$out" && kn_ok "prune without retention: nothing to do" || kn_fail "prune without retention: $out"

# --dry-run: counts, deletes nothing
out=$("$KN" prune --config "$tmp/keynode.yaml" --dry-run 2>"$tmp/dry.err"); rc=$?
[ $rc = 0 ] && grep -q '^prune: agent events: 1 runs, 3 events would be deleted$' <<<"$out" \
  && grep -q '^prune: replay events: 1 runs, 3 events would be deleted$' <<<"$out" \
  && grep -q '^prune: screenshots: 1 screenshots, 8 bytes would be deleted$' <<<"$out" \
  && kn_ok "prune --dry-run counts 1 agent run, 1 replay run, 1 screenshot" || kn_fail "dry run ($rc): $out $(cat "$tmp/dry.err")"
[ "$(kn_psql "SELECT count(*) FROM events")" = 12 ] && [ "$(kn_psql "SELECT count(*) FROM replay_results WHERE screenshot IS NOT NULL")" = 2 ] \
  && [ "$(kn_psql "SELECT count(*) FROM runs WHERE events_pruned IS NOT NULL")" = 0 ] \
  && kn_ok "prune --dry-run deleted nothing" || kn_fail "dry run deleted something"

# the prune, one run per batch
out=$("$KN" prune --config "$tmp/keynode.yaml" --batch 1 2>"$tmp/prune.err"); rc=$?
[ $rc = 0 ] && grep -q '^prune: agent events: 1 runs, 3 events deleted$' <<<"$out" && grep -q '^prune: replay events: 1 runs, 3 events deleted$' <<<"$out" \
  && kn_ok "prune: 1 agent run's and 1 replay run's events deleted" || kn_fail "prune ($rc): $out $(cat "$tmp/prune.err")"
per=$(kn_psql "SELECT string_agg(id || '=' || (SELECT count(*) FROM events e WHERE e.run_id = r.id) || ':' || (events_pruned IS NOT NULL), ',' ORDER BY id)
  FROM runs r WHERE id IN ('$OLD', '$NEW', '$REP', '$LIVE')")
for want in "$OLD=0:true" "$REP=0:true" "$NEW=3:false" "$LIVE=3:false"; do
  grep -q "$want" <<<"$per" || kn_fail "after prune, want $want in $per"
done
grep -q "$OLD=0:true" <<<"$per" && grep -q "$NEW=3:false" <<<"$per" && grep -q "$LIVE=3:false" <<<"$per" && grep -q "$REP=0:true" <<<"$per" \
  && kn_ok "old runs' events gone (marked events_pruned), the new run's and the live run's (100 days old) kept" || true
[ "$(kn_psql "SELECT count(*) FROM runs")" = 4 ] && kn_ok "the runs themselves are kept" || kn_fail "runs deleted"
[ "$(kn_psql "SELECT string_agg((created < now() - interval '1 day')::text || ':' || (screenshot IS NULL), ',' ORDER BY created) FROM replay_results")" = "true:true,false:false" ] \
  && kn_ok "the old screenshot cleared, the new one kept, both replay results kept" || kn_fail "screenshots: $(kn_psql "SELECT created, screenshot IS NULL FROM replay_results")"
out=$("$KN" prune --config "$tmp/keynode.yaml" 2>&1); grep -q '^prune: agent events: 0 runs, 0 events deleted$' <<<"$out" \
  && kn_ok "a second prune finds nothing" || kn_fail "second prune: $out"

# serve applies retention: on its own
serve_up --config "$tmp/keynode.yaml"
SOLD=$(run_with_events stop)
kn_wait_sql 10 "SELECT count(*) FROM events WHERE run_id = '$SOLD'" 3 || kn_fail "events of $SOLD"
kn_stop "$spid"
kn_psql "UPDATE runs SET started = now() - interval '40 days', ended = now() - interval '40 days' WHERE id = '$SOLD'" >/dev/null
serve_up --config "$tmp/keynode.yaml"
kn_wait_sql 30 "SELECT count(*) FROM events WHERE run_id = '$SOLD'" 0 && [ "$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$NEW'")" = 3 ] \
  && grep -q 'msg="retention applied" agent_runs=1 agent_events=3' "$tmp/serve.err" \
  && kn_ok "serve with retention: pruned the old run's events on its own and logged it" || kn_fail "serve retention: $(grep prune "$tmp/serve.err")"
kn_finish
