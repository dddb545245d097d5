#!/usr/bin/env bash
# judge_async.sh — the asynchronous LLM judge in `keynode serve` (and the durable ack of events
# with a judge), against llm-server.mjs (a fake OpenAI-compatible server whose "gate"
# answers are held until the test releases them, and whose "hang" ones never come) and a private
# PostgreSQL. Every check is by order of events, never by wall-clock time:
#  1. while run A's judgement is held at the server, runs B and C are evaluated and scored (their
#     POST answers and their stream messages), and B's score for an event posted after A's request
#     reached the server is on the stream before A's verdict; A's own events are acknowledged (200,
#     durable) meanwhile; once released, A's score rises ("score" message, GET).
#  2. stop waits for a verdict still held: the run is finishing (events refused with 409) while
#     stop has not answered; after the release stop answers with the verdict in the result.
#  3. events posted (acknowledged) while a judgement is held survive `kill -9` of serve: all of them
#     are in PostgreSQL after the restart, and the run is ended by crash recovery.
#  4. a judge that never answers: stop answers once the verdict wait passed, the verdict recorded as
#     missing in the result; SIGTERM with that request in flight exits 0.
#  5. `keynode watch` with the LLM judge: while the query's judgement is held, the monitor records the
#     agent's later steps (its CDP loop does not wait); --until finished ends once the verdict came,
#     with the node reached at the step that asked.
#  6. `keynode watch --until steps:4`: the end comes at the step after the search (whose judgement,
#     asked at the results page, is still held); it waits for the verdict (the monitor's verdict
#     phase, services/monitor/README.md "The run's end"), then ends with its own reason, steps, the
#     query reached at step 3.
#
#   judge_async.sh KEYNODE_BINARY REPO_DIR
#
# ctest: integration.judge_async ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
KN=${1:?usage: judge_async.sh KEYNODE REPO}
REPO=${2:?usage: judge_async.sh KEYNODE REPO}
. "$(dirname "$0")/lib.sh"
kn_lib_init judge-async
HERE=$(cd "$(dirname "$0")" && pwd)
TOKEN=t0k-$RANDOM$RANDOM
W=(-H "Authorization: Bearer $TOKEN")
for t in curl jq node psql; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
"$HERE/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -3 "$tmp/ensure.log")"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
api() { curl -s -m 120 -o "$tmp/body" -w '%{http_code}' "$@"; }
# wait_for CMD… — until CMD succeeds (bounded: 60 s, so a broken build fails instead of hanging; the
# command is what a timeout says it waited for)
wait_for() { kn_wait_for "$*" 60 "$@"; }

kn_spawn -o "$tmp/llm.out" -e "$tmp/llm.err" llm node "$HERE/llm-server.mjs"
wait_for grep -qs port "$tmp/llm.out" || { kn_fail "fake llm server did not start"; kn_finish; }
L=http://127.0.0.1:$(jq -r .port "$tmp/llm.out")
held() { curl -s "$L/held"; }
held_is() { [ "$(held)" = "$1" ]; }
release() { curl -s -X POST "$L/release" >/dev/null; }
# the attempt timeout is far beyond the test: a held answer is never a timeout
printf 'semantic:\n  backend: llm\n  llm: { url: "%s", model: fake-judge, timeout_ms: 600000 }\n' "$L" >"$tmp/kn.yaml"
cat >"$tmp/tasks.yaml" <<'EOF'
tasks:
  - id: gated
    intent: search red running shoes and type a name
    key_nodes:
      - url: { key: q, semantic: "Decide whether are searching for red running shoes kn-test:gate kn-score:0.95" }
      - element_value: { semantic: "Decide whether the name typed is Ada kn-test:gate kn-score:0.95" }
      - url: { include: /done }
  - id: fast
    intent: visit a, b, c
    key_nodes:
      - url: { include: /a }
      - url: { include: /b }
      - url: { include: /c }
  - id: hang
    intent: a judge that never answers
    key_nodes:
      - url: { key: q, semantic: "Decide whether are searching for anything kn-test:hang" }
      - url: { include: /x }
EOF

SPOOL=$tmp/spool
serve_up() { # [extra serve args]
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve.$RANDOM.log" \
    --config "$tmp/kn.yaml" --listen 127.0.0.1:0 --spool-dir "$SPOOL" "$@" || kn_finish
  B=$api_base; SLOG=$(ls -t "$tmp"/serve.*.log | head -1)
}
new_run() { # TASK → id in $rid
  local c; c=$(api "${W[@]}" -d "{\"task\":\"js:$1\"}" "$B/api/runs"); rid=$(jq -r .id "$tmp/body")
  [ "$c" = 201 ] || { kn_fail "start $1: $c $(cat "$tmp/body")"; kn_finish; }
}
nav() { # RUN T URL → http code; the answer in $tmp/body
  api "${W[@]}" -d "{\"t\":$2,\"type\":\"navigate\",\"url\":\"$3\"}" "$B/api/runs/$1/events"
}
serve_up
c=$(api "${W[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=js")
[ "$c" = 201 ] && kn_ok "task set loaded" || { kn_fail "tasksets: $c $(cat "$tmp/body")"; kn_finish; }

# --- 1. other runs are scored while A's judgement is held --------------------------------------------
: >"$tmp/stream.jsonl"
kn_spawn -o "$tmp/stream.out" -e "$tmp/stream.err" stream node "$HERE/stream-client.mjs" "ws://${B#http://}/api/stream" "$tmp/stream.jsonl" "" 300 "$TOKEN"
wait_for grep -qs '"open"' "$tmp/stream.jsonl" || kn_fail "stream did not open"
new_run gated; A=$rid
new_run fast; RB=$rid
new_run fast; RC=$rid
c=$(nav "$A" 1 "http://s.test/find?q=red+running+shoes")
[ "$c" = 200 ] && jq -e '.accepted == 1 and .status == "running" and .score == 0' "$tmp/body" >/dev/null &&
  kn_ok "A's event acknowledged (200, durable) while its judgement is pending: $(cat "$tmp/body")" || kn_fail "A's event: $c $(cat "$tmp/body")"
wait_for held_is 1 && kn_ok "A's judgement reached the judge and is held there" || kn_fail "held: $(held)"
okb=1
for i in 1 2 3; do
  page=$(echo a b c | cut -d' ' -f$i)
  c=$(nav "$RB" "$i" "http://s.test/$page"); sb=$(jq -r .score "$tmp/body")
  c2=$(nav "$RC" "$i" "http://s.test/$page"); sc=$(jq -r .score "$tmp/body")
  exp=$(awk -v i="$i" 'BEGIN{print i/3}')
  [ "$c" = 200 ] && [ "$c2" = 200 ] && awk -v a="$sb" -v b="$sc" -v e="$exp" 'BEGIN{exit !((a-e)^2<1e-4 && (b-e)^2<1e-4)}' || { okb=0; echo "    step $i: B $c $sb, C $c2 $sc"; }
done
[ $okb = 1 ] && kn_ok "runs B and C scored event by event (1/3, 2/3, 1) while A's judge holds its answer" || kn_fail "B/C scores"
[ "$(held)" = 1 ] && kn_ok "A's verdict still held after B and C finished scoring" || kn_fail "held: $(held)"
wait_for grep -qs "\"run\":\"$RB\".*\"seq\":3" "$tmp/stream.jsonl" && kn_ok "B's third score is on the stream" || kn_fail "no B seq 3 on the stream"
release
wait_for grep -qs "\"type\":\"score\",\"run\":\"$A\"" "$tmp/stream.jsonl" || kn_fail "no score message for A"
lb=$(grep -n "\"run\":\"$RB\".*\"seq\":3" "$tmp/stream.jsonl" | head -1 | cut -d: -f1)
la=$(grep -n "\"type\":\"score\",\"run\":\"$A\"" "$tmp/stream.jsonl" | head -1 | cut -d: -f1)
[ -n "$lb" ] && [ -n "$la" ] && [ "$lb" -lt "$la" ] && kn_ok "stream order: B's score (line $lb) before A's verdict (line $la)" || kn_fail "stream order: B $lb, A $la"
grep "\"type\":\"score\",\"run\":\"$A\"" "$tmp/stream.jsonl" | head -1 >"$tmp/ascore"
jq -e '(.score - 1/3 | fabs) < 1e-6 and .reached == ["k1"] and .verdict.score == 0.95 and .pending == 0' "$tmp/ascore" >/dev/null &&
  kn_ok "A's score rose when its verdict came: $(jq -c '{score, reached, verdict}' "$tmp/ascore")" || kn_fail "A's score message: $(cat "$tmp/ascore")"

# --- 2. the end waits for a verdict still held ------------------------------------------------------
c=$(api "${W[@]}" -d '{"t":2,"type":"type","url":"http://s.test/find?q=red+running+shoes","selector":"#name","value":"Ada"}' "$B/api/runs/$A/events")
[ "$c" = 200 ] || kn_fail "A type: $c $(cat "$tmp/body")"
wait_for held_is 1 || kn_fail "second judgement not held: $(held)"
c=$(api "${W[@]}" -X POST "$B/api/runs/$A/stop")
[ "$c" = 200 ] && jq -e '.status == "finishing" and .verdicts_pending == 1' "$tmp/body" >/dev/null &&
  kn_ok "stop answers at once, the end waiting for the held verdict: $(cat "$tmp/body")" || kn_fail "stop A: $c $(cat "$tmp/body")"
probe() { [ "$(api "${W[@]}" --data-binary ' ' "$B/api/runs/$A/events")" = 409 ]; }
probe && kn_ok "A is finishing: its events are refused (409)" || kn_fail "A not finishing: $(cat "$tmp/body")"
grep -q "\"type\":\"end\",\"run\":\"$A\"" "$tmp/stream.jsonl" && kn_fail "A ended before its verdict came" || kn_ok "no end for A while its verdict is held"
release
wait_for grep -qs "\"type\":\"end\",\"run\":\"$A\"" "$tmp/stream.jsonl" || kn_fail "A never ended"
grep "\"type\":\"end\",\"run\":\"$A\"" "$tmp/stream.jsonl" | head -1 | jq .result >"$tmp/endA"
jq -e '.status == "incomplete" and .verdicts.answered == 2 and .verdicts.missing == 0 and (.key_nodes[1].score == 1) and .key_nodes[1].reached_at_step != null and (.score - 2/3 | fabs) < 1e-6' "$tmp/endA" >/dev/null &&
  kn_ok "A's result waited for the verdict, which is in it: $(jq -c '{score, verdicts, step_scores}' "$tmp/endA")" || kn_fail "A's result: $(head -c 600 "$tmp/endA")"
c=$(api "$B/api/runs/$A"); jq -e '.ended != null and (.score - 2/3 | fabs) < 1e-6 and .verdicts.answered == 2' "$tmp/body" >/dev/null &&
  kn_ok "GET A: ended, with the verdict" || kn_fail "GET A: $(head -c 400 "$tmp/body")"
la=$(grep -n "\"type\":\"score\",\"run\":\"$A\"" "$tmp/stream.jsonl" | tail -1 | cut -d: -f1)
le=$(grep -n "\"type\":\"end\",\"run\":\"$A\"" "$tmp/stream.jsonl" | head -1 | cut -d: -f1)
[ -n "$la" ] && [ -n "$le" ] && [ "$la" -lt "$le" ] && kn_ok "stream: A's last verdict (line $la) before its end (line $le)" || kn_fail "A's end order: score $la end $le"
for r in "$RB" "$RC"; do api "${W[@]}" -X POST "$B/api/runs/$r/stop" >/dev/null; done

# --- 3. acknowledged events survive kill -9 while a judgement is held --------------------------------
new_run gated; E=$rid
new_run fast; F=$rid
c=$(nav "$E" 1 "http://s.test/find?q=red+running+shoes+again")
wait_for held_is 1 || kn_fail "E's judgement not held: $(held)"
acked=0
for i in $(seq 2 31); do
  c1=$(nav "$E" "$i" "http://s.test/e/$i"); c2=$(nav "$F" "$i" "http://s.test/f/$i")
  [ "$c1" = 200 ] && [ "$c2" = 200 ] && acked=$((acked + 1))
done
[ $acked = 30 ] && kn_ok "60 events acknowledged while E's judgement is held" || kn_fail "acknowledged $acked of 30 pairs"
kill -KILL "$serve_pid"; wait "$serve_pid" 2>/dev/null; kn_forget "$serve_pid"
release
serve_up --verdict-wait 1500
ne=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$E'"); nf=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$F'")
[ "$ne" = 31 ] && [ "$nf" = 30 ] && kn_ok "after kill -9 and restart every acknowledged event is in PostgreSQL (E $ne, F $nf)" || kn_fail "stored E $ne (want 31), F $nf (want 30)"
st=$(kn_psql "SELECT status || ',' || (result->>'reason') FROM runs WHERE id = '$E'")
[ "$st" = "error,service restarted" ] && kn_ok "E ended by crash recovery ($st)" || kn_fail "E after restart: $st"

# --- 4. a judge that never answers: the end waits its bound, the verdict recorded missing ------------
new_run hang; H=$rid
c=$(nav "$H" 1 "http://s.test/find?q=nothing")
[ "$c" = 200 ] || kn_fail "H event: $c"
c=$(api "${W[@]}" -X POST "$B/api/runs/$H/stop")
[ "$c" = 200 ] && jq -e '.status == "finishing" and .verdicts_pending == 1' "$tmp/body" >/dev/null || kn_fail "stop H: $c $(cat "$tmp/body")"
ended_h() { api "$B/api/runs/$H" >/dev/null; jq -e '.ended != null' "$tmp/body" >/dev/null; }
wait_for ended_h && jq -e '.verdicts.asked == 1 and .verdicts.missing == 1 and .verdicts.answered == 0 and .key_nodes[0].verdict == "missing" and .score == 0' "$tmp/body" >/dev/null &&
  kn_ok "hanging judge: H ended after its verdict wait, the verdict recorded missing: $(jq -c .verdicts "$tmp/body")" || kn_fail "H: $(head -c 600 "$tmp/body")"
grep -q 'verdicts did not come within the verdict wait' "$SLOG" && kn_ok "log: verdicts recorded as missing" || kn_fail "no missing-verdict log line"
new_run hang; H2=$rid
c=$(nav "$H2" 1 "http://s.test/find?q=still+nothing")
hangs() { curl -s "$L/stats" | jq -e '[.log[] | select(.behaviour == "hang")] | length >= 2' >/dev/null; }
wait_for hangs || kn_fail "H2's judgement did not reach the judge"
kill -TERM "$serve_pid"; wait "$serve_pid"; rc=$?; kn_forget "$serve_pid"
[ $rc = 0 ] && kn_ok "SIGTERM with a judgement hanging in flight: exit 0" || kn_fail "serve exit $rc: $(tail -3 "$SLOG")"
st=$(kn_psql "SELECT status || ',' || coalesce(result->'verdicts'->>'missing', '-') FROM runs WHERE id = '$H2'")
[ "$st" = "unjudged,1" ] && kn_ok "the run live at SIGTERM ended with its verdict missing: unjudged ($st)" || kn_fail "H2 after SIGTERM: $st"

# --- 5. keynode watch: the CDP loop goes on while a judgement is held ----------------------------------
release # what crash recovery asked and abandoned in part 3 is still held at the fake server
kn_sites_start "$KN" "$REPO/tests/sites" "$tmp/sites.log" || kn_fail "keynode sites did not start"
sport=$port
mkdir -p "$tmp/chr"
kn_chromium_start "$tmp/chr" || kn_fail "Chromium did not start"
kn_task_at_site "$REPO/tests/sites/tasks.yaml" - "$sport" |
  sed 's/semantic: "searching for red running shoes"/semantic: "searching for red running shoes kn-test:gate"/' >"$tmp/wtasks.yaml"
kn_spawn -o "$tmp/w.out" -e "$tmp/w.err" w "$KN" watch --browser "$cdp" --tasks "$tmp/wtasks.yaml" --task shop-red-runner-cart \
  --out "$tmp/w.json" --trajectory "$tmp/w.jsonl" --until finished --semantic llm --llm-url "$L" --llm-model fake-judge \
  --llm-timeout 600000 --verdict-cache off
wpid=$kn_pid
wait_for grep -qs '"tab_open"' "$tmp/w.jsonl" || kn_fail "watch did not attach: $(tail -3 "$tmp/w.err")"
kn_spawn -o "$tmp/replay.out" replay "$KN" replay --browser "$cdp" --tasks "$tmp/wtasks.yaml" --task shop-red-runner-cart --out "$tmp/replay"
wait_for held_is 1 && kn_ok "watch: the query's judgement is held at the judge" || kn_fail "watch: held $(held)"
wait_for grep -qs '"#add-to-cart"' "$tmp/w.jsonl" && [ "$(held)" = 1 ] &&
  kn_ok "watch recorded the agent's later steps (to the add-to-cart click) while the judgement is held" || kn_fail "watch: no add-to-cart event while held"
kn_wait_exit replay 300
kill -0 "$wpid" 2>/dev/null && kn_ok "watch still running: --until finished waits for the held verdict" || kn_fail "watch ended before the verdict"
release
kn_wait_exit w 300; rc=$kn_rc
[ $rc = 0 ] && jq -e '.status == "finished" and .verdicts.answered == 1 and (.key_nodes[] | select(.id == "query") | .reached_at_step) == 3' "$tmp/w.json" >/dev/null &&
  kn_ok "watch: finished once the verdict came, query reached at step 3 as a synchronous judge says: $(jq -c '{status, verdicts}' "$tmp/w.json")" || kn_fail "watch: exit $rc $(head -c 500 "$tmp/w.json") $(tail -3 "$tmp/w.err")"
grep -q 'verdict for "red running shoes": score' "$tmp/w.err" && kn_ok "watch: a progress line for the verdict" || kn_fail "watch progress: $(grep -i verdict "$tmp/w.err" | head -3)"

# --- 6. keynode watch: an end waits for the held verdict and keeps its reason -------------------------
kn_spawn -o "$tmp/w6.out" -e "$tmp/w6.err" w6 "$KN" watch --browser "$cdp" --tasks "$tmp/wtasks.yaml" --task shop-red-runner-cart \
  --out "$tmp/w6.json" --trajectory "$tmp/w6.jsonl" --until steps:4 --semantic llm --llm-url "$L" --llm-model fake-judge \
  --llm-timeout 600000 --verdict-cache off
wpid=$kn_pid
wait_for grep -qs '"tab_open"' "$tmp/w6.jsonl" || kn_fail "watch 6 did not attach: $(tail -3 "$tmp/w6.err")"
kn_spawn -o "$tmp/replay6.out" replay6 "$KN" replay --browser "$cdp" --tasks "$tmp/wtasks.yaml" --task shop-red-runner-cart --out "$tmp/replay6"
wait_for grep -qs 'waiting for 1 verdict(s) of the judge' "$tmp/w6.err" && [ "$(held)" = 1 ] &&
  kn_ok "watch --until steps:4: the end waits for the held verdict" || kn_fail "watch 6: no wait, held $(held): $(tail -3 "$tmp/w6.err")"
kn_wait_exit replay6 300
kill -0 "$wpid" 2>/dev/null && kn_ok "watch 6 still running while the verdict is held" || kn_fail "watch 6 ended before the verdict"
release
kn_wait_exit w6 300; rc=$kn_rc
[ $rc -le 1 ] && grep -q '^run ended: steps' "$tmp/w6.err" &&
  jq -e '.verdicts.answered == 1 and (.key_nodes[] | select(.id == "query") | .reached_at_step) == 3' "$tmp/w6.json" >/dev/null &&
  kn_ok "watch 6 ended as steps once the verdict came, query reached at step 3: $(jq -c '{status, verdicts}' "$tmp/w6.json")" ||
  kn_fail "watch 6: exit $rc $(grep '^run ended' "$tmp/w6.err") $(head -c 400 "$tmp/w6.json")"

cat "$tmp"/serve.*.log | grep -v '^level=\(info\|warn\|error\|debug\) component=' | grep -v '^$' >"$tmp/odd-log"
[ ! -s "$tmp/odd-log" ] && kn_ok "every log line is level=… component=…" || kn_fail "log lines: $(head -3 "$tmp/odd-log")"
kn_finish
