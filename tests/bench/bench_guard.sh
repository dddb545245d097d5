#!/usr/bin/env bash
# bench_guard.sh — what request interception and the guard cost: four headless Chromiums side by
# side on a `keynode sites` fixture written here (bench/: a page sending fetch and XHR POSTs, a form POST
# answered 303, a link to a next page), driven by ONE Playwright agent (bench_guard.mjs) that alternates
# between them:
#   none       no keynode attached
#   watch      `keynode watch` on a task with no request key node and no guard rule: requests are only
#              seen (Network.requestWillBeSent), never paused
#   intercept  watched on a task with a request key node and a guard rule that match nothing: Fetch
#              interception in every target, each request paused, decided and continued
#   held       watched with a guard rule holding the bench's POSTs (end_on_guard: false): keynode answers
#              them (fetch/XHR: its JSON body; the form: its "held" page) and they never reach the server
# Per request: the page's own timing (performance.now()) of each fetch and XHR POST, and the form POST's
# next document's responseEnd; per agent step: a click on a link to the next page until its load event, as
# the agent sees it. Prints medians, p90s and the ratios to `none`, with the machine (cores, load), and sets
# the subsection "### DATE, keynode COMMIT" of RESULTS.md's guard section (results_md.py). Run by hand, never
# by ctest (tests never assert wall-clock times).
#   tests/bench/bench_guard.sh KEYNODE_BIN REPO_DIR [N] [ROUNDS] [RESULTS_MD]
#   N requests of each kind per round (default 50), ROUNDS rounds (default 6), RESULTS_MD (default: none)
set -u -o pipefail
kn=$1 repo=$(cd "$2" && pwd) n=${3:-50} rounds=${4:-6} md=${5:-}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-guard
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
"$repo/tests/integration/node/ensure.sh" >/dev/null || { kn_fail "node/ensure.sh failed"; kn_finish; }

# the fixture: /bench/api and /bench/submit are rules of _redirects, so the server reads the POST body, logs
# it (--log-requests) and answers 303 (a fetch follows it to ok.json, the form to done.html)
site=$tmp/site
mkdir -p "$site/bench"
printf '%s\n' '/bench/api     /bench/ok.json    303' '/bench/submit  /bench/done.html  303' >"$site/_redirects"
echo '{"ok":true}' >"$site/bench/ok.json"
cat >"$site/bench/index.html" <<'HTML'
<!doctype html><html><head><meta charset="utf-8"><title>bench</title><script src="bench.js"></script></head>
<body><h1>bench</h1>
<form id="order" method="post" action="/bench/submit"><input name="item" value="lamp"><input name="qty" value="2">
<button id="submit" type="submit">Order</button></form>
<p><a id="next" href="next.html">next page</a></p></body></html>
HTML
cat >"$site/bench/next.html" <<'HTML'
<!doctype html><html><head><meta charset="utf-8"><title>next</title></head>
<body><h1>next</h1><p><a id="next" href="index.html">back to the first page</a></p></body></html>
HTML
cat >"$site/bench/done.html" <<'HTML'
<!doctype html><html><head><meta charset="utf-8"><title>done</title></head><body><h1>thank you</h1></body></html>
HTML
cat >"$site/bench/bench.js" <<'JS'
/* n fetch POSTs, then n XHR POSTs, one after the other; each timed by the page itself */
window.benchRequests = async function (n) {
  var out = { fetch: [], xhr: [] };
  for (var i = 0; i < n; i++) {
    var t0 = performance.now();
    var r = await fetch('/bench/api', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                          body: JSON.stringify({ item: 'lamp', qty: 2, i: i }) });
    await r.text();
    out.fetch.push(performance.now() - t0);
  }
  for (var j = 0; j < n; j++) {
    var t1 = performance.now();
    await new Promise(function (ok) {
      var x = new XMLHttpRequest();
      x.open('POST', '/bench/api');
      x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
      x.onloadend = ok;
      x.send('item=lamp&qty=2&i=' + j);
    });
    out.xhr.push(performance.now() - t1);
  }
  return out;
};
JS
# with its request log: the POSTs that arrived are counted
kn_sites_start "$kn" "$site" "$tmp/sites.log" --log-requests || kn_finish
base=http://127.0.0.1:$port
# the tasks: a URL key node never reached keeps every run going until the bench stops it
cat >"$tmp/tasks.yaml" <<YAML
tasks:
  - id: bench-watch
    intent: Browse the bench page
    start_url: $base/bench/index.html
    key_nodes:
      - { id: never, url: { include: /never-reached } }
  - id: bench-intercept
    intent: Browse the bench page, requests intercepted and continued
    start_url: $base/bench/index.html
    key_nodes:
      - { id: never, url: { include: /never-reached } }
      - { id: order, request: { method: POST, url: { include: /never-sent } } }
    guard:
      - { method: POST, url: { include: /never-sent } }
  - id: bench-held
    intent: Browse the bench page, its POSTs held
    start_url: $base/bench/index.html
    key_nodes:
      - { id: never, url: { include: /never-reached } }
    end_on_guard: false
    guard:
      - { method: POST, url: { include: /bench/ } }
YAML
machine="$(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
modes=(none watch intercept held)
declare -A wpids
args=()
for m in "${modes[@]}"; do
  mkdir -p "$tmp/$m"
  kn_chromium_start "$tmp/$m" || kn_finish
  args+=("$m=$cdp")
  [ "$m" = none ] && continue
  "$kn" watch --browser "$devtools_file" --tasks "$tmp/tasks.yaml" --task "bench-$m" --quiet --step-limit -1 \
    --trajectory "$tmp/$m/run.jsonl" --out "$tmp/$m/result.json" >"$tmp/$m/watch.out" 2>"$tmp/$m/watch.err" &
  wpids[$m]=$!
  kn_pids+=("${wpids[$m]}")
done
sleep 1 # the monitors attach (and enable interception) before the first page
t0=$(date +%s)
node "$repo/tests/bench/bench_guard.mjs" "$base" "$n" "$rounds" "${args[@]}" >"$tmp/times.json" 2>"$tmp/agent.err" ||
  { kn_fail "agent: $(tail -3 "$tmp/agent.err")"; kn_finish; }
secs=$(($(date +%s) - t0))
for m in watch intercept held; do
  kill -INT "${wpids[$m]}"
  wait "${wpids[$m]}"
  kn_forget "${wpids[$m]}"
done

# what arrived: the held browser's POSTs never reached the server, the three others' all did
posts=$(grep -c 'method=POST path="/bench/' "$tmp/sites.log")
want=$((3 * rounds * (2 * n + 1)))
held=$(grep -c '"held":true' "$tmp/held/run.jsonl")
q='def med: sort | if length == 0 then 0 elif length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
   def p90: sort | if length == 0 then 0 else .[((length * 0.9) | ceil) - 1] end;
   def r2: . * 100 | round / 100;
   . as $d | ["fetch", "xhr", "form", "step"] | map(. as $k | ($d.none[$k] | med) as $b |
     "| \($k) | \($d.none[$k] | length) | " + (["none", "watch", "intercept", "held"] | map(. as $m |
       "\($d[$m][$k] | med | r2) / \($d[$m][$k] | p90 | r2)" +
       (if $m == "none" or $b == 0 then "" else " (\(($d[$m][$k] | med) / $b | r2)×)" end)) | join(" | ")) + " |") | join("\n")'
table=$(jq -r "$q" "$tmp/times.json")
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
label="$(date -u '+%Y-%m-%d %H:%M') UTC, keynode $commit: N = $n, $rounds rounds"
sub="### $label
Machine: $machine at the start, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $secs s. Per request, the page's
own timing (fetch, XHR: \`performance.now()\` around one POST and its answer, the 303 to ok.json followed; form:
the next document's \`responseEnd\` after a form POST answered 303); per agent step, a Playwright click on a
link until the next page's load event. Each cell: median / p90 in ms, and the median's ratio to no keynode.
The server saw $posts of the $want POSTs the none, watch and intercept browsers sent (held: none); the held
run recorded $held held requests.

| what | samples per mode | no keynode | watch, no interception | intercepted, continued | held by keynode |
|---|---|---|---|---|---|
$table"
echo "$sub"
head='## Request interception and the guard — `tests/bench/bench_guard.sh KEYNODE REPO [N] [ROUNDS] [RESULTS_MD]` (issue 23)'
intro='What seeing requests, intercepting them (request key nodes, guard rules: `Fetch.requestPaused` in every target) and holding them costs the page and the agent: four headless Chromiums side by side on the same fixture, one Playwright agent alternating between them (services/monitor/README.md "Requests and the guard").'
if [ -n "$md" ]; then
  echo "$sub" | python3 "$repo/tests/bench/results_md.py" "$md" "$head" "$label" "$intro" || kn_fail "RESULTS.md not updated"
fi
[ "$posts" = "$want" ] && kn_ok "the server saw every POST of the none, watch and intercept browsers" ||
  kn_fail "the server saw $posts POSTs, want $want"
[ "$held" -ge $((rounds * (2 * n + 1))) ] && kn_ok "the held run recorded every POST held" ||
  kn_fail "the held run recorded $held held requests, want $((rounds * (2 * n + 1)))"
kn_finish
