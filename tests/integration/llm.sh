#!/usr/bin/env bash
# llm.sh — the LLM semantic judge end to end: the real `keynode match` / `keynode score` binaries
# with --semantic llm against llm-server.mjs, a fake OpenAI-compatible server on 127.0.0.1 that
# answers like the real API and misbehaves on request (a marker in the rule picks the behaviour)
# and counts what it receives. Checks scores, retries (5xx, 429 after Retry-After ≥ 1 s as measured
# by the server), no retry on timeouts/4xx/malformed answers, the error messages and exit codes,
# that the API key reaches the server and never our output, and the verdict cache: a second
# identical run makes zero requests; corrupt and torn lines are skipped; parallel appends stay
# whole lines. Needs node (no npm packages); a missing node is a failure, not a skip.
# Only 127.0.0.1 is contacted; the server is stopped by PID, even on failure.
# usage: llm.sh KEYNODE_BIN
#
# ctest: integration.llm ARGS=keynode TIMEOUT=300
set -uo pipefail
kn=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
kn_lib_init llm
ok() { kn_ok "$1"; }
fail() { kn_fail "$1"; }
command -v node >/dev/null 2>&1 || { fail "node not found (apt-get install nodejs)"; kn_finish; }
has() { # has NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then ok "$1"; else fail "$1: no '$3' in $2:"; head -c 800 "$2"; echo; fi
}
hasnt() { # hasnt NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3' in $2"; else ok "$1"; fi
}

# A real key must never reach the fake server; the test's own key is checked for below.
unset OPENAI_API_KEY
secret=sk-test-$RANDOM$RANDOM-do-not-print
export KN_FAKE_LLM_KEY=$secret KN_TEST_LLM_KEY=$secret

kn_spawn -o "$tmp/server.out" -e "$tmp/server.err" server node "$here/llm-server.mjs"
server_port_() { sed -n 's/.*"port":\([0-9]*\).*/\1/p' "$tmp/server.out" | grep .; }
kn_wait_for "the fake server's port" 20 server_port_
port=$(server_port_)
[ -n "$port" ] || { fail "the fake server did not start: $(cat "$tmp/server.err")"; kn_finish; }
url=http://127.0.0.1:$port
cache=$tmp/cache/verdicts.jsonl   # its directory does not exist yet: keynode creates it

# stats JS_EXPR — evaluate JS_EXPR over the server's /stats document (as `s`) and print it
stats() {
  node -e 'fetch(process.argv[1] + "/stats").then(r => r.json()).then(s => console.log(eval(process.argv[2])))' "$url" "$1"
}
# count — the number of requests the server has received (bash's /dev/tcp: no process to start)
count() {
  local line n=
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET /count HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  while IFS= read -r line <&3; do n=${line%$'\r'}; done   # the body is the last line
  exec 3<&-
  echo "$n"
}

# run NAME WANT_EXIT WANT_REQUESTS CMD… — run, check the exit code and how many requests the
# server received meanwhile (- for any); output in $tmp/out, $tmp/err
run() {
  local name=$1 want=$2 wantreq=$3; shift 3
  local before after got report
  before=$(count)
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  after=$(count)
  # a sanitizer's abort can exit with the very code a refusal has: its report is a failure of its own
  if report=$(kn_sanitizer_report "$tmp/err"); then fail "$name: sanitizer report: $report"; return 1; fi
  if [ "$got" != "$want" ]; then
    fail "$name: exit $got, want $want"; cat "$tmp/out" "$tmp/err" | head -20; return 1
  fi
  if [ "$wantreq" != - ] && [ $((after - before)) != "$wantreq" ]; then
    fail "$name: $((after - before)) requests, want $wantreq"; cat "$tmp/err" | head -20; return 1
  fi
  ok "$name"
}
llm=(--semantic llm --llm-url "$url" --llm-model fake-1 --verdict-cache "$cache")
# match ANSWER-RULE [ARGS…] — the answer target: the rule is the key node, the value the answer
m() { local rule=$1; shift; "$kn" match --target answer --matcher semantic --expect "$rule" --value "the answer" "${llm[@]}" "$@"; }

# --- usage errors (no request) ---
run "no --llm-url: exit 2" 2 0 "$kn" match --target answer --matcher semantic --expect x --value y --semantic llm --llm-model m
has "no --llm-url: reason" "$tmp/err" "--semantic llm needs --llm-url and --llm-model"
run "--llm-url without llm: exit 2" 2 0 "$kn" match --target answer --matcher semantic --expect x --value y --llm-url "$url"
has "--llm-url without llm: reason" "$tmp/err" "--llm-url needs --semantic llm"
run "--semantic bogus: exit 2" 2 0 "$kn" match --target answer --matcher semantic --expect x --value y --semantic gpt
run "--llm-timeout bad: exit 2" 2 0 m "x" --llm-timeout 0
run "--llm-key-env unset: exit 2" 2 0 m "x" --llm-key-env KN_NO_SUCH_VARIABLE_SET
has "--llm-key-env unset: reason" "$tmp/err" "KN_NO_SUCH_VARIABLE_SET is not set"
run "ftp:// url: exit 2" 2 0 "$kn" match --target answer --matcher semantic --expect x --value y --semantic llm --llm-url ftp://127.0.0.1/ --llm-model m --verdict-cache off
for c in match score watch; do
  "$kn" $c --help >"$tmp/out" 2>&1
  has "$c --help lists --semantic" "$tmp/out" "--semantic B"
  has "$c --help lists --verdict-cache" "$tmp/out" "--verdict-cache F"
done

# --- scores ---
rule_url="Decide whether are searching for mens winter coat"
run "match url key, webcanvas: raw score" 0 1 "$kn" match --target url --matcher semantic --key q --expect "$rule_url" --value "http://s.example/?q=mens+winter+coats" --mode webcanvas "${llm[@]}"
has "raw score 0.93" "$tmp/out" '{"score": 0.93, "match": true}'
prompt_ok=$(stats 's.log[s.log.length-1].model === "fake-1" && s.log[s.log.length-1].auth')
[ "$prompt_ok" = none ] && ok "no Authorization without a key" || fail "Authorization sent without a key: $prompt_ok"
run "same match again: from the cache" 0 0 "$kn" match --target url --matcher semantic --key q --expect "$rule_url" --value "http://s.example/?q=mens+winter+coats" --mode webcanvas "${llm[@]}"
has "cached raw score 0.93" "$tmp/out" '{"score": 0.93, "match": true}'
run "other input: a request" 0 1 "$kn" match --target url --matcher semantic --key q --expect "$rule_url" --value "http://s.example/?q=mens+winter+coat" --mode webcanvas "${llm[@]}"
run "other model: a request" 0 1 "$kn" match --target url --matcher semantic --key q --expect "$rule_url" --value "http://s.example/?q=mens+winter+coat" --mode webcanvas "${llm[@]}" --llm-model fake-2
run "default mode, 0.50 under 0.7: no match" 1 1 m "best wishes kn-score:0.50"
has "below threshold" "$tmp/out" '{"score": 0.00, "match": false}'
run "--threshold 0.4 on the cached 0.50: match, no request" 0 0 m "best wishes kn-score:0.50" --threshold 0.4
run "fenced answer accepted" 0 1 m "fenced kn-test:fenced kn-score:0.88" --mode webcanvas
has "fenced score" "$tmp/out" '{"score": 0.88, "match": true}'
run "offline backend still default" 0 0 "$kn" match --target url --matcher semantic --key q --expect "$rule_url" --value "http://s.example/?q=mens+winter+coats"

# --- retries ---
run "500 then ok: retried" 0 2 m "retry kn-test:500-then-ok"
has "500 retry logged" "$tmp/err" "answered HTTP 500: The server had an error; retry 1 of 3"
run "500 always: 4 attempts then exit 2" 2 4 m "retry kn-test:500-always"
has "500 always reason" "$tmp/err" "(retries exhausted)"
run "429 then ok: retried" 0 2 m "rate kn-test:429-then-ok"
gap=$(stats 'const l = s.log.filter(e => e.behaviour === "429-then-ok"); l[1].t - l[0].t')
[ "$gap" -ge 1000 ] 2>/dev/null && ok "Retry-After: 1 respected (${gap} ms between attempts)" || fail "Retry-After not respected: ${gap} ms between attempts"
has "429 logged" "$tmp/err" "HTTP 429: Rate limit reached; retry 1 of 3 in 1000 ms"

# --- no retry: timeout, 4xx, malformed answers ---
run "slow answer: timeout, exit 2, not retried" 2 1 m "slow kn-test:slow" --llm-timeout 500
has "timeout reason" "$tmp/err" "no answer from $url/v1/chat/completions within 500 ms"
run "401: exit 2, not retried" 2 1 m "auth kn-test:401" --llm-key-env KN_TEST_LLM_KEY
has "401 reason" "$tmp/err" "answered HTTP 401: Incorrect API key provided (check the API key)"
auth=$(stats 's.log[s.log.length-1].auth')
[ "$auth" = expected ] && ok "the key from --llm-key-env reached the server" || fail "Authorization: $auth"
hasnt "the key is not in stderr" "$tmp/err" "$secret"
hasnt "the key is not in stdout" "$tmp/out" "$secret"
run "400: exit 2, not retried" 2 1 m "bad kn-test:400"
has "400 reason" "$tmp/err" "HTTP 400: Unsupported parameter"
declare -A want=(
  [not-json]="malformed response: not JSON"
  [no-choices]='malformed response: no "choices"'
  [content-text]="malformed answer: content is not JSON"
  [out-of-range]='malformed answer: "score" 1.7 is outside [0, 1]'
  [score-string]='malformed answer: "score" is a string, want a number in [0, 1]'
)
for b in not-json no-choices content-text out-of-range score-string; do
  run "$b: exit 2, not retried" 2 1 m "bad kn-test:$b"
  has "$b: reason" "$tmp/err" "${want[$b]}"
  hasnt "$b: no score printed" "$tmp/out" "score"
done
run "failed verdicts are not cached" 2 1 m "bad kn-test:score-string"

# unreachable endpoint: a port nobody listens on (taken from the kernel, then closed)
deadport=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
"$kn" match --target answer --matcher semantic --expect x --value y --semantic llm --llm-url "http://127.0.0.1:$deadport" --llm-model m --verdict-cache off >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && ok "connection refused: exit 2" || fail "connection refused: exit $?"
has "connection refused: retried" "$tmp/err" "retry 3 of 3"
has "connection refused: reason" "$tmp/err" "cannot reach http://127.0.0.1:$deadport/v1/chat/completions"

# --- the cache file ---
lines=$(wc -l <"$cache")
python3 - "$cache" <<'PY' && ok "every cache line is a verdict" || fail "cache lines"
import json, sys
for l in open(sys.argv[1]):
    v = json.loads(l)
    assert v["v"] == 1 and v["prompt"] == 1 and 0 <= v["score"] <= 1 and v["model"].startswith("fake-"), v
PY
hasnt "the key is not in the cache" "$cache" "$secret"
printf 'not json at all\n{"v":1,"model":"fake-1"}\n' >>"$cache"
run "corrupt lines skipped, cache still hits" 0 0 m "best wishes kn-score:0.50" --threshold 0.4
has "corrupt line warning" "$tmp/err" "verdicts.jsonl:$((lines + 1)): not JSON"
has "second corrupt line warning" "$tmp/err" "verdicts.jsonl:$((lines + 2)): 'prompt' is not a positive integer"
printf '{"v":1,"model":"fake-1","prompt":1,"rule":"torn' >>"$cache"   # a writer died mid-line
run "after a torn line: new verdict" 0 1 m "after torn"
run "after a torn line: new verdict cached" 0 0 m "after torn"
# parallel appends from 8 processes: each a whole line, all found afterwards
for i in 1 2 3 4 5 6 7 8; do
  kn_spawn -o "$tmp/p$i.out" "p$i" m "parallel $i kn-score:0.9$i"
done
pfail=0
for i in 1 2 3 4 5 6 7 8; do kn_wait_exit "p$i" 120 && [ "$kn_rc" = 0 ] || pfail=1; done
if [ $pfail = 0 ]; then ok "8 parallel judgements"; else fail "parallel judgements"; cat "$tmp"/p*.out; fi
python3 - "$cache" <<'PY' && ok "parallel appends are whole lines" || fail "parallel appends interleaved"
import json, sys
n = 0
for l in open(sys.argv[1]):
    if "parallel" in l:
        v = json.loads(l); n += 1
assert n == 8, n
PY
before=$(count)
for i in 1 2 3 4 5 6 7 8; do m "parallel $i kn-score:0.9$i" >/dev/null 2>&1 || fail "parallel $i cached run"; done
[ "$(count)" = "$before" ] && ok "parallel verdicts all cached" || fail "parallel verdicts re-asked"

# --- score ---
cat >"$tmp/tasks.yaml" <<'EOF'
tasks:
  - id: coat
    intent: "Search for a mens winter coat and type a gift message"
    key_nodes:
      - url: { key: q, semantic: "Decide whether are searching for mens winter coat" }
      - element_value: { semantic: "Decide whether the content means best wishes kn-score:0.80" }
      - answer: { semantic: "Decide whether the content means the coat costs 120 dollars kn-score:0.60" }
EOF
mkdir -p "$tmp/runs"
cat >"$tmp/runs/r1.jsonl" <<'EOF'
{"run": "r1", "task": "coat", "started": "2026-01-01T00:00:00Z"}
{"t": 0.0, "type": "navigate", "tab": "T1", "url": "https://shop.example/", "how": "goto"}
{"t": 1.0, "type": "navigate", "tab": "T1", "url": "https://shop.example/search?q=winter+coat+men", "how": "form"}
{"t": 2.0, "type": "type", "tab": "T1", "url": "https://shop.example/search?q=winter+coat+men", "selector": "#msg", "value": "All the best!"}
{"t": 3.0, "type": "answer", "text": "It is $120"}
EOF
run "score --semantic llm" 0 3 "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs" "${llm[@]}" --llm-price 0.5,1.5
has "score row: 2 of 3 reached" "$tmp/out" "2.00     3  0.667"
has "score usage line" "$tmp/out" "llm usage (fake-1): 3 judgements, 0 cache hits, 3 requests (0 retries), 0 failed, 360 prompt + 54 completion tokens, cost \$0.261000, usd_efficiency \$0.130500 per reached key node"
run "score again: all from the cache" 0 0 "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs" "${llm[@]}" --llm-price 0.5,1.5
has "score again: same row" "$tmp/out" "2.00     3  0.667"
has "score again: usage" "$tmp/out" "3 judgements, 3 cache hits, 0 requests (0 retries), 0 failed, 0 prompt + 0 completion tokens, cost \$0.000000"
run "score --json --semantic llm" 0 0 "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs" "${llm[@]}" --json
python3 - "$tmp/out" <<'PY' && ok "score --json has the usage" || { fail "score --json usage"; cat "$tmp/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
s = d["semantic"]
assert s["backend"] == "llm" and s["model"] == "fake-1" and s["cache_hits"] == 3 and s["requests"] == 0, s
assert abs(d["results"][0]["score"] - 2 / 3) < 1e-9
PY
sed -i 's/kn-score:0.60/kn-test:401/' "$tmp/tasks.yaml"
run "score with a failing judgement: exit 1" 1 1 "$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs" "${llm[@]}"
has "score failure reason" "$tmp/err" "1 semantic judgement failed"
has "score failure event" "$tmp/err" "event 4: llm fake-1:"

# --- keynode watch with the LLM judge, live: the run result carries the judge's usage ("llm")
repo=$(cd "$here/../.." && pwd)
llm_port=$port
if kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" && kn_chromium_start "$tmp/chrome"; then
  kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/site-tasks.yaml" "$port"
  kn_spawn -o "$tmp/watch.out" -e "$tmp/watch.err" watch "$kn" watch --browser "$cdp" --tasks "$tmp/site-tasks.yaml" \
    --task shop-red-runner-cart --quiet --until finished --until idle:20 --out "$tmp/watch.json" \
    --trajectory "$tmp/watch.jsonl" "${llm[@]}" --llm-price 0.5,1.5
  # watch has attached before the agent acts: its trajectory's tab_open line (--quiet prints no "ready")
  kn_wait_for "watch to attach (a tab_open line)" 30 grep -q '"type": *"tab_open"' "$tmp/watch.jsonl" ||
    fail "watch --semantic llm: watch did not attach: $(tail -3 "$tmp/watch.err")"
  "$kn" replay --quiet --browser "$cdp" --tasks "$tmp/site-tasks.yaml" --task shop-red-runner-cart >/dev/null ||
    fail "watch --semantic llm: the replay agent failed"
  kn_wait_exit watch 300
  wrc=$kn_rc
  if [ "$wrc" = 0 ] && jq -e '.status == "finished" and .llm.backend == "llm" and .llm.model == "fake-1"
      and (.llm.requests + .llm.cache_hits) >= 1 and .llm.usd >= 0' "$tmp/watch.json" >/dev/null; then
    ok "watch --semantic llm: finished, the run result has the usage ($(jq -c .llm "$tmp/watch.json"))"
  else
    fail "watch --semantic llm: exit $wrc, $(head -c 600 "$tmp/watch.json" 2>/dev/null) $(tail -3 "$tmp/watch.err")"
  fi
else
  fail "watch --semantic llm: sites or Chromium did not start"
fi
port=$llm_port
kn_finish
