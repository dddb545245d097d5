#!/usr/bin/env bash
# origin.sh — no web page of another origin can read keynode's live feed or API from the
# user's browser, while the dashboard itself keeps working. A private PostgreSQL and `keynode serve`
# on loopback (reads open without a token there); a hostile page (origin-fixtures/attack.*) served by
# `keynode sites` on http://localhost:PORT — another origin — opened in a private headless Chromium
# (Playwright over CDP, origin-check.mjs): its websocket to /api/stream is refused (logged) and its
# fetches read nothing; keynode's dashboard on a run page loads with no console error and its own
# websocket opens. With curl: a foreign Host (DNS rebinding) is refused on every data route and on
# the websocket upgrade; a foreign Origin is refused; http.hosts / http.origins allow them; tokenless
# and per-client subscriber limits refuse (logged) while a token holder still gets in; a subscriber
# that answers no ping is closed after http.stream_idle_s.
#
#   origin.sh KEYNODE_BINARY REPO_DIR
#
# ctest: integration.origin ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
KN=${1:?usage: origin.sh KEYNODE REPO}
REPO=${2:?usage: origin.sh KEYNODE REPO}
. "$(dirname "$0")/lib.sh"
kn_lib_init origin
HERE=$(cd "$(dirname "$0")" && pwd)
TOKEN=t0k-$RANDOM$RANDOM
W=(-H "Authorization: Bearer $TOKEN")

for t in curl jq node; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
"$HERE/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -2 "$tmp/ensure.log")"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(cat "$tmp/migrate.log")"; kn_finish; }
api() { curl -s -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code}' "$@"; }

printf 'http:\n  stream_idle_s: 2\n' >"$tmp/serve.yaml"
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve.log" --config "$tmp/serve.yaml" \
  --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
B=$api_base; HP=${B#http://}
c=$(api "${W[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites")
c=$(api "${W[@]}" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); RID=$(jq -r .id "$tmp/body")
c=$(api "${W[@]}" -d '{"t":1,"type":"navigate","url":"http://127.0.0.1:1/shop/search.html"}' "$B/api/runs/$RID/events")
[ "$c" = 200 ] && kn_ok "a live run $RID with an event" || { kn_fail "setup: $c $(cat "$tmp/body")"; kn_finish; }

# --- curl: Host and Origin ------------------------------------------------------------------------
bad=0
for path in /api/tasks "/api/runs/$RID" /api/runs /api/alerts /metrics /healthz; do
  c=$(api -H "Host: evil.example:${HP#*:}" "$B$path"); [ "$c" = 403 ] && jq -e '.error == "host not allowed"' "$tmp/body" >/dev/null || { bad=1; echo "    Host evil $path: $c"; }
  c=$(api -H "Origin: http://evil.example" "$B$path"); [ "$c" = 403 ] && jq -e '.error == "origin not allowed"' "$tmp/body" >/dev/null || { bad=1; echo "    Origin evil $path: $c"; }
  c=$(api -H "Origin: http://$HP" "$B$path"); [ "$c" = 200 ] || { bad=1; echo "    same origin $path: $c"; }
  c=$(api -H "Host: localhost:${HP#*:}" "$B$path"); [ "$c" = 200 ] || { bad=1; echo "    Host localhost $path: $c"; }
done
c=$(api "${W[@]}" -H "Host: evil.example" -d '{"task":"sites:shop-red-runner-cart"}' "$B/api/runs"); [ "$c" = 403 ] || { bad=1; echo "    POST with a foreign Host: $c"; }
c=$(api -H "Host: evil.example" "$B/"); [ "$c" = 200 ] || { bad=1; echo "    the dashboard's files (no data) with a foreign Host: $c"; }
[ $bad = 0 ] && kn_ok "foreign Host (DNS rebinding) and foreign Origin: 403 on every data route; same origin and localhost: 200" || kn_fail "Host/Origin"
ws_status() { # HOST ORIGIN [TOKEN] → the HTTP status of a websocket upgrade
  curl -s -o /dev/null -w '%{http_code}' --max-time 3 -H "Host: $1" ${2:+-H "Origin: $2"} ${3:+-H "Authorization: Bearer $3"} \
    -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$B/api/stream"
}
a=$(ws_status "evil.example:${HP#*:}" ""); b=$(ws_status "$HP" "http://localhost:9"); d=$(ws_status "$HP" "http://$HP")
[ "$a" != 101 ] && [ "$b" != 101 ] && [ "$d" = 101 ] && kn_ok "websocket upgrade: foreign Host $a, foreign Origin $b, same origin $d" || kn_fail "ws upgrade: $a $b $d"
grep -q 'msg="stream subscriber refused" reason="origin not allowed"' "$tmp/serve.log" && grep -q 'msg="stream subscriber refused" reason="host not allowed"' "$tmp/serve.log" &&
  kn_ok "each refused subscriber logged" || kn_fail "no refusal log lines"

# --- in a real browser: a page of another origin ---------------------------------------------------
kn_chromium_start "$tmp/chrome" || kn_finish
kn_sites_start "$KN" "$HERE/origin-fixtures" "$tmp/sites.log" || kn_finish
opens0=$(curl -s "$B/metrics" | sed -n 's/^keynode_api_requests_total{route="GET \/api\/stream",code="101"} //p'); opens0=${opens0:-0}
node "$HERE/origin-check.mjs" "$cdp" "http://localhost:$port/attack.html?api=$HP&run=$RID" "$B" "$RID" >"$tmp/check.json" 2>"$tmp/check.err" ||
  { kn_fail "origin-check: $(tail -3 "$tmp/check.err")"; kn_finish; }
cat "$tmp/check.json"
jq -e '.evil.ws == "refused" and .evil.wsMessages == 0' "$tmp/check.json" >/dev/null && kn_ok "another origin's page cannot open /api/stream ($(jq -c .evil "$tmp/check.json"))" || kn_fail "evil websocket: $(jq -c .evil "$tmp/check.json")"
jq -e '.evil.fetchTasks == "blocked" and .evil.fetchRun == "blocked" and (.evil.noCors | startswith("opaque"))' "$tmp/check.json" >/dev/null &&
  kn_ok "another origin's page reads nothing of the API" || kn_fail "evil fetch: $(jq -c .evil "$tmp/check.json")"
jq -e '.dash.hasRun and (.dash.errors | length) == 0 and .dash.ws == "open"' "$tmp/check.json" >/dev/null &&
  kn_ok "the dashboard still works: its run page shows $RID, no console error, its websocket opens" || kn_fail "dashboard: $(jq -c .dash "$tmp/check.json")"
opens1=$(curl -s "$B/metrics" | sed -n 's/^keynode_api_requests_total{route="GET \/api\/stream",code="101"} //p')
[ "$opens1" -ge $((opens0 + 2)) ] && kn_ok "the dashboard's websockets were accepted ($opens0 -> $opens1)" || kn_fail "stream opens $opens0 -> $opens1"

# --- configured hosts and origins -----------------------------------------------------------------
P2=$(kn_free_port)
printf 'http:\n  hosts: ["keynode.test"]\n  origins: ["http://dash.test:8080"]\n' >"$tmp/allow.yaml"
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve2.log" --config "$tmp/allow.yaml" \
  --listen "127.0.0.1:$P2" --spool-dir "$tmp/spool2" || kn_finish
s2=$serve_pid
c1=$(api -H "Host: keynode.test:$P2" "$api_base/api/tasks"); c2=$(api -H "Host: 127.0.0.1:$P2" "$api_base/api/tasks")
c3=$(api -H "Host: keynode.test" -H "Origin: http://dash.test:8080" "$api_base/api/tasks"); c4=$(api -H "Host: keynode.test" -H "Origin: http://dash.test:9090" "$api_base/api/tasks")
[ "$c1" = 200 ] && [ "$c2" = 403 ] && [ "$c3" = 200 ] && [ "$c4" = 403 ] && kn_ok "http.hosts / http.origins: only the listed names and origins ($c1 $c2 $c3 $c4)" || kn_fail "configured lists: $c1 $c2 $c3 $c4"
kn_stop "$s2"

# --- behind a trusted proxy: X-Forwarded-Host/-Proto/-For believed from it only ------------
# The first serve trusts no proxy: the headers change nothing there (loopback Host, reads open).
X=(-H "X-Forwarded-Host: kn.example" -H "X-Forwarded-Proto: https" -H "X-Forwarded-For: 127.9.9.9")
c1=$(api "${X[@]}" "$B/api/tasks"); c2=$(api "${X[@]}" -H "Origin: https://kn.example" "$B/api/tasks")
[ "$c1" = 200 ] && [ "$c2" = 403 ] && kn_ok "X-Forwarded-* from a peer that is no trusted proxy are ignored ($c1 $c2)" ||
  kn_fail "untrusted X-Forwarded-*: $c1 $c2"
P3=$(kn_free_port)
printf 'http:
  hosts: ["kn.example"]
  trusted_proxies: ["127.0.0.1"]
' >"$tmp/proxy.yaml"
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve3.log" --config "$tmp/proxy.yaml" \
  --listen "127.0.0.1:$P3" --spool-dir "$tmp/spool3" || kn_finish
s3=$serve_pid
c1=$(api "${X[@]}" -H "Origin: https://kn.example" "$api_base/api/tasks")      # through the proxy: a token is needed
c2=$(api "${W[@]}" "${X[@]}" -H "Origin: https://kn.example" "$api_base/api/tasks") # the client's https origin
c3=$(api "${W[@]}" "${X[@]}" -H "Origin: http://kn.example" "$api_base/api/tasks")  # not the scheme it used
c4=$(api "${W[@]}" "$api_base/api/tasks")                                            # no X-Forwarded-Host: 127.0.0.1 is not listed
c5=$(api "${W[@]}" -H "X-Forwarded-Host: evil.example" "$api_base/api/tasks")
[ "$c1" = 401 ] && [ "$c2" = 200 ] && [ "$c3" = 403 ] && [ "$c4" = 403 ] && [ "$c5" = 403 ] &&
  kn_ok "through a trusted proxy: reads need the token, Host and Origin are the forwarded ones ($c1 $c2 $c3 $c4 $c5)" ||
  kn_fail "trusted proxy: $c1 $c2 $c3 $c4 $c5"
grep -q 'msg="request refused" reason="origin not allowed" client=127.9.9.9' "$tmp/serve3.log" &&
  kn_ok "a refusal through the proxy logs the forwarded client" || kn_fail "no log line with the forwarded client: $(grep refused "$tmp/serve3.log" | head -2)"
kn_stop "$s3"

# --- subscriber limits and idle timeout -----------------------------------------------------------
kn_spawn -o "$tmp/hold.out" hold node "$HERE/stream-hold.mjs" "ws://$HP/api/stream" 20 ""
hold=$kn_pid
kn_wait_for "the tokenless subscribers' outcome" 10 grep -q '^done' "$tmp/hold.out"
opened=$(sed -n 's/^done opened=\([0-9]*\).*/\1/p' "$tmp/hold.out"); refused=$(sed -n 's/^done .*refused=\([0-9]*\).*/\1/p' "$tmp/hold.out")
[ "$opened" = 16 ] && [ "$refused" = 4 ] && kn_ok "tokenless subscribers from one address: 16 open, the next 4 refused" || kn_fail "anon limit: $(cat "$tmp/hold.out")"
grep -q 'msg="stream subscriber refused" reason="more than 16 tokenless subscribers from 127.0.0.1"' "$tmp/serve.log" && kn_ok "the refusal is logged" || kn_fail "no log line for the limit"
kn_spawn -o "$tmp/hold2.out" hold2 node "$HERE/stream-hold.mjs" "ws://$HP/api/stream" 1 "$TOKEN"
hold2=$kn_pid
kn_wait_for "the token holder's outcome" 10 grep -q '^done' "$tmp/hold2.out"
grep -q '^done opened=1 ' "$tmp/hold2.out" && kn_ok "a token holder still gets in while the tokenless slots are full" || kn_fail "token subscriber: $(cat "$tmp/hold2.out")"
kn_stop "$hold2"; kn_stop "$hold"
MODE=mute node "$HERE/stream-hold.mjs" "ws://$HP/api/stream" >"$tmp/mute.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^open' "$tmp/mute.out" && kn_ok "a subscriber that answers no ping is closed (http.stream_idle_s 2): $(tail -1 "$tmp/mute.out")" ||
  kn_fail "idle subscriber: exit $rc $(cat "$tmp/mute.out")"
kn_finish
