#!/usr/bin/env bash
# durability.sh — the acceptance of `keynode serve`'s write path and crash recovery, against a
# private PostgreSQL (lib.sh). A harness (event-poster.mjs) posts numbered events without pause while
# serve is killed with SIGKILL and restarted three times — the third time with PostgreSQL stopped first,
# so the acknowledged events sit in the spool (fdatasync'ed) when the process dies. Checks: every
# acknowledged event is in the database exactly once; every run live at a kill is ended at the next
# start (status error, reason "service restarted", scored from its stored events, an alert, an "end"
# on the stream); a second serve on the same spool is refused; the spool is made (0700) under a
# missing parent, one folder per database; stop answers the final state and a GET right after says so;
# the per-run event cap (413); a 1M-event run (200k in the sanitizer build) read back page by page;
# a task id holding '/' read back; keep-alive after a POST without a body length. Two serves on the
# database: a run's events, answer and stop sent to the serve that does not run it are forwarded, its
# live feed relayed, and the run of a serve killed for good ended by the other's orphan sweep.
#
#   durability.sh KEYNODE_BINARY REPO_DIR
# Needs PostgreSQL 15, node (+ the pinned npm packages, node/ensure.sh), curl, jq: a missing one is a failure.
#
# The sanitizer build reads a run of 200k events instead of 1M.
# ctest: integration.durability ARGS=keynode,repo TIMEOUT=360 SANITIZE_TIMEOUT=600 SANITIZE_ENV=KN_BIG_RUN_EVENTS=200000
set -u -o pipefail
KN=${1:?usage: durability.sh KEYNODE REPO}
REPO=${2:?usage: durability.sh KEYNODE REPO}
. "$(dirname "$0")/lib.sh"
kn_lib_init durability
HERE=$(cd "$(dirname "$0")" && pwd)
TOKEN=t0k-$RANDOM$RANDOM
W=(-H "Authorization: Bearer $TOKEN")
BIG=${KN_BIG_RUN_EVENTS:-1000000}

for t in curl jq node; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
"$HERE/node/ensure.sh" --no-chromium >"$tmp/ensure.log" 2>&1 || { kn_fail "node/ensure.sh: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
api() { curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' "$@"; }

SPOOL=$tmp/state/deep/spool # its parents do not exist yet
printf 'http:\n  max_run_events: 60\n' >"$tmp/cap.yaml"
serve_up() { # [extra serve args]
  P=$(kn_free_port)
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve.$P.log" \
    --listen "127.0.0.1:$P" --spool-dir "$SPOOL" "$@" || kn_finish
  B=$api_base
  echo "$B" >"$tmp/base.new" && mv "$tmp/base.new" "$tmp/base" # atomic: the poster never reads it half written
}
serve_up
c=$(api "${W[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites")
[ "$c" = 201 ] && kn_ok "task set loaded" || { kn_fail "tasksets: $c $(cat "$tmp/body")"; kn_finish; }

d=$(find "$SPOOL" -mindepth 1 -maxdepth 1 -type d)
[ "$(echo "$d" | wc -l)" = 1 ] && [[ "$(basename "$d")" =~ ^keynode-[0-9a-f]{8}$ ]] && [ "$(stat -c %a "$SPOOL")" = 700 ] &&
  [ "$(stat -c %a "$tmp/state/deep")" = 700 ] && kn_ok "spool made with its parents (0700), one folder per database: $(basename "$d")" ||
  kn_fail "spool dir: $d $(stat -c %a "$SPOOL" 2>&1)"
out=$(KEYNODE_DATABASE_URL="$KN_PG_URL" "$KN" serve --listen 127.0.0.1:0 --spool-dir "$SPOOL" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "in use by another process" <<<"$out" && kn_ok "a second serve on the same spool: exit 2 ($out)" || kn_fail "second serve on the spool: $rc $out"
# without --spool-dir, serves on one machine share the default spool folder: each its own slot
keep_pid=$serve_pid keep_base=$api_base default_pids=()
for i in 1 2; do
  KEYNODE_DATABASE_URL="$KN_PG_URL" XDG_STATE_HOME=$tmp/xdg kn_serve_start "$KN" "$tmp/serve-default-$i.log" --listen 127.0.0.1:0 ||
    kn_fail "serve #$i with the default spool did not start: $(tail -2 "$tmp/serve-default-$i.log")"
  default_pids+=("$serve_pid")
done
kill -TERM "${default_pids[@]}" 2>/dev/null
wait "${default_pids[@]}" 2>/dev/null; for p in "${default_pids[@]}"; do kn_forget "$p"; done
serve_pid=$keep_pid api_base=$keep_base
slots=$(cd "$tmp/xdg/keynode/spool" 2>/dev/null && ls -d keynode-* | tr '\n' ' ')
[[ "$slots" =~ ^keynode-[0-9a-f]{8}\ keynode-[0-9a-f]{8}\.2\ $ ]] && grep -q "spool=\"$tmp/xdg/keynode/spool/keynode-[0-9a-f]*\.2\"" "$tmp/serve-default-2.log" &&
  kn_ok "two serves on the default spool: the second took the next slot ($slots)" || kn_fail "default spool slots: '$slots'"
printf 'database: { url: "host=/nonexistent-kn dbname=other" }\n' >"$tmp/other.yaml"

# --- stop answers the final state; a GET right after agrees --------------------------------------
bad=0
for i in $(seq 1 10); do
  c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); id=$(jq -r .id "$tmp/body")
  c=$(api "${W[@]}" -d '{"t":1,"type":"navigate","url":"http://127.0.0.1:1/shop/"}' "$B/api/runs/$id/events")
  c1=$(api "${W[@]}" -X POST "$B/api/runs/$id/stop"); s1=$(jq -r .status "$tmp/body")
  c2=$(api "$B/api/runs/$id"); s2=$(jq -r '.status + "," + (.ended != null | tostring)' "$tmp/body")
  [ "$c1" = 200 ] && [ "$s1" = incomplete ] && [ "$c2" = 200 ] && [ "$s2" = "incomplete,true" ] || { bad=1; echo "    $id: stop $c1 $s1, get $c2 $s2"; }
done
[ $bad = 0 ] && kn_ok "stop answers the final state and a GET right after says so (10 runs)" || kn_fail "GET after stop"

# --- crash: a poster without pause, serve killed -9 three times ----------------------------------
kn_spawn -o "$tmp/poster.out" poster node "$HERE/event-poster.mjs" "$B" "$tmp/base" "$TOKEN" "sites:shop-red-runner-cart" \
  "$tmp/acks" "$tmp/stop" 20
poster=$kn_pid
acked() { grep -c '^ack ' "$tmp/acks" 2>/dev/null || echo 0; }
acked_at_least_() { [ "$(acked)" -ge "$1" ]; }
wait_acks() { local want=$(( $(acked) + $1 )); kn_wait_for "$1 more acknowledgements" 15 acked_at_least_ "$want"; }
killed_runs=()
for round in 1 2 3; do
  wait_acks 30 || kn_fail "round $round: the poster is not getting acknowledgements"
  live=$(grep '^run ' "$tmp/acks" | tail -1 | cut -d' ' -f2)
  if [ $round = 3 ]; then
    kn_pg_stop
    wait_acks 20 && kn_ok "database down: events still acknowledged (spooled, fdatasync'ed)" || kn_fail "no acks while the database is down"
  fi
  kill -KILL "$serve_pid"; wait "$serve_pid" 2>/dev/null; kn_forget "$serve_pid"
  killed_runs+=("$live")
  [ $round = 3 ] && { kn_pg_start || kn_finish; }
  serve_up
  grep -q 'ended runs left live by a dead process" runs=' "$tmp/serve.$P.log" && ! grep -q 'orphan sweep failed' "$tmp/serve.$P.log" &&
    kn_ok "round $round: restart ended the dead process's runs" ||
    kn_fail "round $round: no recovery line: $(grep -v 'component=http' "$tmp/serve.$P.log" | tail -3)"
done
wait_acks 30 || kn_fail "after the last restart: no acknowledgements"
locks=$(kn_psql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")
[ "$locks" = 1 ] && kn_ok "after recovery only the live serve's owner lock is held" || kn_fail "$locks advisory locks held"
touch "$tmp/stop"; wait "$poster"; rc=$?; kn_forget "$poster"
[ $rc = 0 ] && kn_ok "poster: $(cat "$tmp/poster.out"), $(acked) batches acknowledged, $(grep -c '^fail ' "$tmp/acks") refused" || kn_fail "poster exit $rc: $(tail -3 "$tmp/poster.out")"

# every acknowledged number exactly once
grep '^ack ' "$tmp/acks" | while read -r _ a z _; do seq "$a" "$z"; done | sort >"$tmp/acked.txt"
kn_psql "SELECT substring(line->>'url' from 'n=([0-9]+)') FROM events WHERE line->>'url' LIKE 'http://127.0.0.1:1/shop/search.html?n=%'" | sort >"$tmp/stored.txt"
missing=$(comm -23 "$tmp/acked.txt" <(sort -u "$tmp/stored.txt") | wc -l)
dups=$(uniq -d "$tmp/stored.txt" | wc -l)
[ "$missing" = 0 ] && [ "$dups" = 0 ] && [ -s "$tmp/acked.txt" ] && kn_ok "every acknowledged event stored exactly once ($(wc -l <"$tmp/acked.txt") acknowledged, $(wc -l <"$tmp/stored.txt") stored)" ||
  kn_fail "acknowledged events: $missing missing, $dups stored twice"
# per run, seq 1..N without gaps
gaps=$(kn_psql "SELECT count(*) FROM (SELECT run_id FROM events GROUP BY run_id HAVING max(seq) <> count(*) OR min(seq) <> 1) g")
[ "$gaps" = 0 ] && kn_ok "every run's events are seq 1..N" || kn_fail "$gaps runs with gaps in seq"
# every killed run ended, scored, alerted
bad=0
for r in "${killed_runs[@]}"; do
  row=$(kn_psql "SELECT status || ',' || (ended IS NOT NULL) || ',' || (result->>'reason') || ',' || reached || '/' || total || ',' || (score > 0) FROM runs WHERE id = '$r'")
  nev=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$r'")
  al=$(kn_psql "SELECT count(*) FROM alerts WHERE dedupe_key = 'run-interrupted:$r'")
  [[ "$row" == "error,true,service restarted,1/5,true" ]] && [ "$nev" -gt 0 ] && [ "$al" = 1 ] || { bad=1; echo "    $r: $row events=$nev alerts=$al"; }
  c=$(api "${W[@]}" -d '{"t":1,"type":"click"}' "$B/api/runs/$r/events"); [ "$c" = 409 ] || { bad=1; echo "    $r: events after recovery $c"; }
done
[ $bad = 0 ] && kn_ok "the 3 runs live at each kill: ended error / \"service restarted\", scored from their stored events (the "search" key node reached: 1/5), alerted, 409 after" || kn_fail "recovered runs"
live=$(kn_psql "SELECT count(*) FROM runs WHERE ended IS NULL AND id <> '$(grep '^run ' "$tmp/acks" | tail -1 | cut -d' ' -f2)'")
[ "$live" = 0 ] && kn_ok "no run left live but the poster's current one" || kn_fail "$live runs still live"

# --- two serves on one database -----------------------------------------------------
# a live serve's runs are never recovered by another; a run's calls reaching the serve that does not run
# it are forwarded to the one that does; its live feed is relayed; a serve killed for good has its live
# runs ended by the survivor's orphan sweep (here every second)
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); mine=$(jq -r .id "$tmp/body")
P2=$(kn_free_port)
s1=$serve_pid B1=$B
printf 'http:\n  orphan_sweep_s: 1\n' >"$tmp/sweep.yaml"
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve2.log" --listen "127.0.0.1:$P2" \
  --spool-dir "$tmp/spool2" --config "$tmp/sweep.yaml" || kn_finish
s2=$serve_pid B2=$api_base
[ "$(kn_psql "SELECT ended IS NULL FROM runs WHERE id = '$mine'")" = t ] && kn_ok "a second serve leaves the first one's live run alone" || kn_fail "second serve ended a live run"
expect_rows() { [ "$(kn_psql "$2")" = "$3" ] && kn_ok "$1" || kn_fail "$1: got '$(kn_psql "$2")', want '$3'"; }
expect_rows "both serves in serve_instances, each with its listen address" \
  "SELECT string_agg(address, ' ' ORDER BY address) FROM serve_instances" "$(printf '%s\n' "${B1#http://}" "${B2#http://}" | sort | tr '\n' ' ' | sed 's/ $//')"
kn_spawn xstream node "$HERE/stream-client.mjs" "ws://${B2#http://}/api/stream?run=$mine" "$tmp/xstream.out" "$mine" 30 "$TOKEN"
xs=$kn_pid
kn_wait_for "the cross-serve stream to open" 10 grep -q '"type":"open"' "$tmp/xstream.out"
bad=0
for k in 1 2 3 4 5 6; do # alternately to each serve: seq 1..12 in posting order
  b=$(printf '{"t":%d,"type":"navigate","url":"http://127.0.0.1:1/x?n=%d"}\n{"t":%d,"type":"click"}' $((2 * k - 1)) "$k" $((2 * k)))
  base=$B1; [ $((k % 2)) = 0 ] && base=$B2
  c=$(api "${W[@]}" --data-binary "$b" "$base/api/runs/$mine/events"); a=$(jq -r .accepted "$tmp/body")
  [ "$c" = 200 ] && [ "$a" = 2 ] || { bad=1; echo "    batch $k via $base: $c $(cat "$tmp/body")"; }
done
[ $bad = 0 ] && kn_ok "events of a run of serve 1 posted to both serves: all acknowledged (serve 2 forwards to serve 1)" || kn_fail "forwarded events"
expect_rows "each stored once, seq 1..12 in posting order" \
  "SELECT count(*) || ' ' || count(DISTINCT seq) || ' ' || max(seq) || ' ' || string_agg(substring(line->>'url' from 'n=([0-9]+)'), ',' ORDER BY seq) FROM events WHERE run_id = '$mine'" \
  "12 12 12 1,2,3,4,5,6"
# one event whose stream message passes PostgreSQL's 8000-byte NOTIFY payload: relayed truncated
long=$(head -c 9000 /dev/zero | tr '\0' 'a')
c=$(api "${W[@]}" -d "{\"t\":13,\"type\":\"navigate\",\"url\":\"http://127.0.0.1:1/$long\"}" "$B1/api/runs/$mine/events")
[ "$c" = 200 ] || kn_fail "long event: $c $(cat "$tmp/body")"
c=$(api "${W[@]}" -d '{"text":"done"}' "$B2/api/runs/$mine/answer"); s=$(jq -r .status "$tmp/body")
[ "$c" = 200 ] && [ "$s" = running ] && kn_ok "answer through serve 2: forwarded ($c $s)" || kn_fail "forwarded answer: $c $(cat "$tmp/body")"
c=$(api "${W[@]}" -H 'X-Kn-Forwarded: a-test' -d '{"t":15,"type":"click"}' "$B2/api/runs/$mine/events"); e=$(jq -r .error "$tmp/body")
[ "$c" = 409 ] && [ "$e" = "the run is not live here" ] && kn_ok "a call already forwarded is never forwarded again ($c $e)" || kn_fail "hop: $c $(cat "$tmp/body")"
c=$(api "${W[@]}" -H 'X-Kn-Forwarded: a b' -d '{"t":13,"type":"click"}' "$B2/api/runs/$mine/events"); c2=$(api "${W[@]}" -H 'X-Kn-Forwarded: x' "$B2/api/runs")
c3=$(api -H 'X-Kn-Forwarded: x' -d '{"t":13,"type":"click"}' "$B2/api/runs/$mine/events")
[ "$c" = 400 ] && [ "$c2" = 400 ] && [ "$c3" = 401 ] && kn_ok "X-Kn-Forwarded: a bad value 400, on another route 400, without the token 401" || kn_fail "hop header: $c $c2 $c3"
c=$(api "${W[@]}" -X POST "$B2/api/runs/$mine/stop"); s=$(jq -r '.status + "," + .run' "$tmp/body")
[ "$c" = 200 ] && [ "$s" = "incomplete,$mine" ] && kn_ok "stop through serve 2: serve 1's result relayed ($s)" || kn_fail "forwarded stop: $c $(head -c 300 "$tmp/body")"
wait "$xs"; rc=$?; kn_forget "$xs"
[ $rc = 0 ] && [ "$(grep -c '"type":"event"' "$tmp/xstream.out")" = 14 ] && grep -q '"type":"end"' "$tmp/xstream.out" &&
  [ "$(jq -r 'select(.type=="event") | .seq' "$tmp/xstream.out" | tr '\n' ' ')" = "$(seq 1 14 | tr '\n' ' ')" ] &&
  [ "$(jq -c 'select(.seq == 13) | [.truncated, .event, .type]' "$tmp/xstream.out")" = '[true,null,"event"]' ] &&
  kn_ok "serve 2's /api/stream?run= shows serve 1's run: its 14 events (13 posted, the answer) in order, the one too large for NOTIFY truncated, and its end" ||
  kn_fail "relayed stream: exit $rc $(head -c 400 "$tmp/xstream.out")"
c=$(api "${W[@]}" -d '{"t":14,"type":"click"}' "$B2/api/runs/$mine/events"); e=$(jq -r .error "$tmp/body")
[ "$c" = 409 ] && [ "$e" = "the run already ended" ] && kn_ok "events after the end, through serve 2: 409 ($e)" || kn_fail "after end: $c $(cat "$tmp/body")"
# serve 1 killed for good: serve 2's sweep (every 1 s) ends its live run, and its row goes
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B1/api/runs"); orph=$(jq -r .id "$tmp/body")
c=$(api "${W[@]}" -d '{"t":1,"type":"navigate","url":"http://127.0.0.1:1/shop/search.html?q=x"}' "$B2/api/runs/$orph/events")
[ "$c" = 200 ] || kn_fail "event for $orph through serve 2: $c"
kill -KILL "$s1"; wait "$s1" 2>/dev/null; kn_forget "$s1"
c=$(api "${W[@]}" -d '{"t":2,"type":"click"}' "$B2/api/runs/$orph/events"); e=$(jq -r .error "$tmp/body")
[ "$c" = 503 ] || [ "$c" = 409 ] && kn_ok "events for a run of a killed serve: $c ($e), not taken" || kn_fail "events for the dead serve's run: $c $(cat "$tmp/body")"
kn_wait_sql 20 "SELECT status || ',' || (result->>'reason') FROM runs WHERE id = '$orph'" "error,service restarted" &&
  kn_ok "serve 1 killed and not restarted: serve 2's orphan sweep ended its live run \"service restarted\"" ||
  kn_fail "sweep: $(kn_psql "SELECT status, ended FROM runs WHERE id = '$orph'") $(grep 'orphan sweep' "$tmp/serve2.log" | tail -2)"
kn_wait_sql 10 "SELECT count(*) FROM serve_instances" 1 && kn_ok "the dead serve's row is gone, the live one's stays" || kn_fail "serve_instances: $(kn_psql 'SELECT owner FROM serve_instances')"
kn_stop "$s2"
expect_rows "a clean stop deletes the serve's row" "SELECT count(*) FROM serve_instances" 0

# --- the per-run cap --------------------------------------------------------------------------------
serve_up --config "$tmp/cap.yaml"
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); cid=$(jq -r .id "$tmp/body")
ev50=$(for i in $(seq 1 50); do printf '{"t":%s,"type":"navigate","url":"http://127.0.0.1:1/c?%s"}\n' "$i" "$i"; done)
c1=$(api "${W[@]}" --data-binary "$ev50" "$B/api/runs/$cid/events")
c2=$(api "${W[@]}" --data-binary "$ev50" "$B/api/runs/$cid/events"); d2=$(jq -r .detail "$tmp/body")
c3=$(api "${W[@]}" --data-binary "$(head -10 <<<"$ev50")" "$B/api/runs/$cid/events")
n=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$cid'")
[ "$c1" = 200 ] && [ "$c2" = 413 ] && [ "$c3" = 200 ] && [ "$n" = 60 ] && grep -q "at most 60" <<<"$d2" &&
  kn_ok "per-run cap (http.max_run_events 60): 413 past it, nothing of that batch kept ($d2)" || kn_fail "cap: $c1 $c2 $c3 n=$n $d2"

# --- a task id holding '/' --------------------------------------------------------------------------
printf 'tasks:\n  - id: shop/red\n    intent: slash id\n    start_url: http://127.0.0.1:1/\n    key_nodes:\n      - id: k1\n        url: { include: /x }\n' >"$tmp/slash.yaml"
c=$(api "${W[@]}" --data-binary @"$tmp/slash.yaml" "$B/api/tasksets?name=slash")
c1=$(api "$B/api/tasks/shop%2Fred"); i1=$(jq -r .id "$tmp/body")
c2=$(api "$B/api/tasks/slash:shop%2Fred/health"); i2=$(jq -r .task "$tmp/body")
[ "$c" = 201 ] && [ "$c1" = 200 ] && [ "$i1" = shop/red ] && [ "$c2" = 200 ] && kn_ok "a task id holding '/' reads back (%2F): $i1, health $i2" || kn_fail "slash id: $c $c1 $i1 $c2 $i2"

# --- keep-alive after a POST without a body length --------------------------------------------------
kn_spawn -o "$tmp/ka.out" -e "$tmp/ka.err" keepalive curl -s -v "${W[@]}" -X POST "$B/api/runs/$cid/stop" -o /dev/null \
  --next -s -v "$B/healthz" -o "$tmp/ka"
if ! kn_wait_exit keepalive 2; then kn_fail "keep-alive: the request after a POST without a length got no answer in 2 s"; else
  jq -e '.ok == true' "$tmp/ka" >/dev/null && kn_ok "keep-alive: the next request after a POST without a body length is answered" || kn_fail "keep-alive: $(tail -5 "$tmp/ka.err")"
fi

# --- a big run read back page by page ---------------------------------------------------------------
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); big=$(jq -r .id "$tmp/body")
# the run's row reaches PostgreSQL through the ingest writer, after the 201: wait for it (bounded)
kn_wait_sql 10 "SELECT count(*) FROM runs WHERE id = '$big'" 1
kn_psql "INSERT INTO events (run_id, seq, line) SELECT '$big', g, json_build_object('t', g, 'type', 'navigate', 'url', 'http://127.0.0.1:1/big?n=' || g) FROM generate_series(1, $BIG) g" >/dev/null
after=0; pages=0; total=0; bad=0
while :; do
  c=$(api "$B/api/runs/$big/events?after=$after&limit=10000"); [ "$c" = 200 ] || { bad=1; echo "    page after $after: $c"; break; }
  read -r n first last next < <(jq -r '[(.events|length), (.events[0].seq // 0), (.events[-1].seq // 0), (.next_after // "null")] | @tsv' "$tmp/body")
  [ "$n" -gt 0 ] && [ "$first" = $((after + 1)) ] && [ "$last" = $((after + n)) ] || { bad=1; echo "    page after $after: n=$n first=$first last=$last"; break; }
  pages=$((pages + 1)); total=$((total + n)); after=$last
  [ "$next" = null ] && break
done
[ $bad = 0 ] && [ "$total" = "$BIG" ] && kn_ok "a $BIG-event run read back in $pages pages of 10000, in order" || kn_fail "paging: $total of $BIG"
c=$(api "$B/api/runs/$big"); jq -e ".events_total == $BIG and (.events|length) == 1000 and .events_next == \"/api/runs/$big/events?after=1000\"" "$tmp/body" >/dev/null &&
  kn_ok "GET /api/runs/{id}: the first 1000 events, events_total $BIG, events_next ($(stat -c %s "$tmp/body") bytes)" || kn_fail "GET big run: $c $(jq -c 'del(.events)' "$tmp/body" | head -c 300)"
c=$(api "$B/api/runs/$big/events?limit=10001"); [ "$c" = 400 ] && kn_ok "limit past 10000: 400" || kn_fail "limit 10001: $c"
c=$(api "$B/api/runs/$big/events?after=-1"); [ "$c" = 400 ] && kn_ok "after=-1: 400" || kn_fail "after -1: $c"
c=$(api "$B/api/runs/r-nosuch/events"); [ "$c" = 404 ] && kn_ok "events of no such run: 404" || kn_fail "no such run events: $c"

kill -TERM "$serve_pid"; wait "$serve_pid"; rc=$?; kn_forget "$serve_pid"
[ $rc = 0 ] && kn_ok "SIGTERM: exit 0" || kn_fail "SIGTERM: $rc"
kn_finish
