#!/usr/bin/env bash
# bench_websocket.sh — what watching and guarding WebSocket messages costs a page: one headless Chromium on
# a `keynode sites` page written here (bench.html: one socket; benchBurst(N) sends N messages one after the
# other, each after the server's answer to the previous one), driven by bench_websocket.mjs, in turn:
#   none     no keynode attached
#   watch    `keynode watch` on a task with a websocket key node and no rule: the hook reports each message
#            and sends it at once
#   guard    the same with a websocket guard rule matching nothing: every message waits in the page for the
#            monitor's answer (one binding event and one Runtime.evaluate) before it is sent
# Per message: µs per message of a burst (send → server's answer → next send), and µs per send() call; per
# page load: the navigation's loadEventEnd (the hook is installed in every document). Medians and p90s,
# the machine (cores, load), written to RESULT_FILE. Run by hand, never by ctest (tests never assert times).
#   tests/bench/bench_websocket.sh KEYNODE_BIN REPO_DIR [N] [ROUNDS] [LOADS] [RESULT_FILE]
set -u -o pipefail
kn=$1 repo=$(cd "$2" && pwd) n=${3:-200} rounds=${4:-5} loads=${5:-20} result=${6:-}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-websocket
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
"$repo/tests/integration/node/ensure.sh" >/dev/null || { kn_fail "node/ensure.sh failed"; kn_finish; }

site=$tmp/site
mkdir -p "$site"
cat >"$site/bench.html" <<'HTML'
<!doctype html><html><head><meta charset="utf-8"><title>bench</title><script src="bench.js"></script></head>
<body><h1>WebSocket bench</h1></body></html>
HTML
cat >"$site/bench.js" <<'JS'
/* one socket; benchBurst(n): n messages, each sent after the server's answer to the previous one */
var ws = new WebSocket('ws://' + location.host + '/bench');
var waiting = null;
ws.onmessage = function (e) { if (e.data.indexOf('"ack"') >= 0 && waiting) { var w = waiting; waiting = null; w(); } };
ws.onopen = function () { window.benchReady = true; };
window.benchBurst = async function (n) {
  var send = 0, t0 = performance.now();
  for (var i = 0; i < n; i++) {
    var answered = new Promise(function (ok) { waiting = ok; });
    var s0 = performance.now();
    ws.send(JSON.stringify({ action: 'quote', item: 'tea', i: i }));
    send += performance.now() - s0;
    await answered;
  }
  return { total: performance.now() - t0, send: send };
};
JS
kn_sites_start "$kn" "$site" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
cat >"$tmp/tasks.yaml" <<YAML
tasks:
  - id: bench-watch
    intent: bench
    key_nodes: [ { websocket: { url: { include: /bench }, message: { action: { exact: never } } } } ]
  - id: bench-guard
    intent: bench
    key_nodes: [ { websocket: { url: { include: /bench }, message: { action: { exact: never } } } } ]
    guard: [ { websocket: { url: { include: /bench }, message: { action: { exact: never } } } } ]
    end_on_guard: false
YAML
kn_chromium_start "$tmp" || kn_finish
machine="$(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$SECONDS
for m in none watch guard; do
  wpid=
  if [ "$m" != none ]; then
    "$kn" watch --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "bench-$m" --quiet --step-limit -1 \
      --out "$tmp/$m.result.json" 2>"$tmp/$m.err" &
    wpid=$!
    kn_pids+=("$wpid")
    for _ in $(seq 1 200); do grep -q "watching" "$tmp/$m.err" && break; sleep 0.05; done
  fi
  node "$repo/tests/bench/bench_websocket.mjs" "$cdp" "$base" "$n" "$rounds" "$loads" >"$tmp/$m.json" 2>"$tmp/$m.node.err" \
    || kn_fail "$m: the bench agent failed: $(tail -3 "$tmp/$m.node.err")"
  if [ -n "$wpid" ]; then
    kill -INT "$wpid"
    wait "$wpid"
    kn_forget "$wpid"
  fi
done
stats() { # FILE KEY → "median / p90"
  jq -r --arg k "$2" '.[$k] | sort | length as $n | [.[($n / 2 | floor)], .[([($n * 0.9 | floor), $n - 1] | min)]]
    | map(. * 100 | round / 100) | "\(.[0]) / \(.[1])"' "$1"
}
table="| what | samples per mode | no keynode | watch, no rule (report only) | guard rule (each message waits) |
|---|---|---|---|---|
| µs per message (send → answer → next) | $rounds × $n | $(stats "$tmp/none.json" perMessage) | $(stats "$tmp/watch.json" perMessage) | $(stats "$tmp/guard.json" perMessage) |
| µs per send() call | $rounds × $n | $(stats "$tmp/none.json" sendCall) | $(stats "$tmp/watch.json" sendCall) | $(stats "$tmp/guard.json" sendCall) |
| page load, ms (loadEventEnd) | $loads | $(stats "$tmp/none.json" load) | $(stats "$tmp/watch.json" load) | $(stats "$tmp/guard.json" load) |"
report="Machine: $machine at the start, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $((SECONDS - start)) s; keynode $(git -C "$repo" rev-parse --short HEAD).
Each cell: median / p90 over the rounds (messages) or loads.

$table"
echo "$report"
[ -n "$result" ] && echo "$report" >"$result"
for m in watch guard; do
  ev=$(jq '.steps' "$tmp/$m.result.json" 2>/dev/null)
  [ -n "$ev" ] || kn_fail "$m: no run result"
done
kn_finish
