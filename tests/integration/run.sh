#!/usr/bin/env bash
# run.sh — `keynode run` end to end: any agent over tasks of tests/sites, each attempt with
# its own fresh Chromium, keynode attached before the agent starts. Scenarios:
#   cli        usage errors, --help, a non-empty DIR refused without --resume
#   playwright Playwright for Node (tests/agents/playwright.mjs), 2 tasks, --parallel 2 --repeat 2: every
#              attempt a success, the answer file read, summary.json/summary.csv, reliability numbers
#   resume     the same DIR with --resume: nothing runs again, the summary still counts 4
#   puppeteer  Puppeteer (puppeteer-core), 2 tasks solved
#   selenium   Selenium for Python (python3-selenium + chromedriver via debuggerAddress), 2 tasks solved
#   viewport   --viewport 1024x700: the agent's tab has that window size
#   step-limit --step-limit 3: the attempt ends at the budget, status step_limit
#   browser    --browser on a running Chromium: a fresh context per attempt, disposed afterwards
#   watch-step-limit  `keynode watch --step-limit 2` during a replay: status step_limit after 2 steps
#   bad agents hang (--timeout), exits 3 at once, forks children that outlive it, prints 100 MB, writes
#              binary garbage to the answer file, ignores SIGTERM: each ends as it should, the results say so
#   errors     start page refused / HTTP 503 / agent command not found / browser crashed / no browser:
#              status error with the reason, retried (a .error-1 folder), excluded from the metrics, exit 1
#   unreachable  "unreachable is not failed": the agent (agents/goto.mjs) goes to a page of the
#              task's own site (a URL key node's host) that does not answer — a closed port (refused),
#              unreachable.test mapped to ~NOTFOUND by --host-resolver-rules through a --chromium wrapper
#              (DNS; no real query), a local HTTPS server with a self-signed certificate made by openssl
#              (TLS) — and two start pages that do not answer (DNS, TLS): each an error with reason
#              unreachable and its evidence (net error, URL, step), retried (a .error-1 folder, unreachable
#              too), excluded from the metrics; a closed port on another host:port (not the task's) is the
#              agent's business: done, incomplete, in the metrics, not retried
#   signals    SIGINT and SIGTERM of keynode run mid-attempt: exit 130 / 143, a summary, nothing left
#   blocked    a start page behind a 403 (tests/sites/blocked, blocked-server.mjs): status blocked, kept
#              apart from errors (not retried, excluded, counted as blocked in summary.json/.csv), exit 1;
#              with --config keynode.yaml listing only 429 as blocked, the same attempt is done (incomplete)
#   reward     a purchase task (tests/data/purchase/market.yaml on tests/sites/market), --repeat 2: the
#              agent (agents/market.mjs) buys the right shoe (reward 1), then a wrong colour (4/5):
#              summary task_score 90, reward_success_rate 0.5 over 2 reward_tasks, a reward column
#   pool       the warm pool (--warm 1): a pooled browser killed while it waited is replaced by a new
#              one, never handed out; --warm out of range refused
#   readme     the Selenium agent skeleton of docs/evaluate.md as written with a scripted
#              my_policy.py (tests/agents/readme_policy.py): shop-red-runner-cart solved, its answer read
# After every scenario no process started by keynode (agent or browser: anything whose command line
# or environment names this test's scratch folder) may be left running.
#
#   tests/integration/run.sh KEYNODE_BIN REPO_DIR
#
# Env: KN_RUN_ONLY="name …" runs only those scenarios; KN_KEEP=1 keeps the scratch folder.
# Needs node + the pinned npm packages (node/ensure.sh), Chromium, chromedriver, python3-selenium, jq:
# a missing one is a failure. Exit: 0 all checks passed, 1 any failed.
#
# The sanitizer build leaves out the Puppeteer, Selenium and viewport scenarios: keynode's side of them is the
# Playwright scenario's (same code paths), the rest is the clients' and Chromium's time.
# ctest: integration.run ARGS=keynode,repo TIMEOUT=900 SANITIZE_TIMEOUT=600 'SANITIZE_ENV=KN_RUN_ONLY=cli playwright resume browser step-limit watch-step-limit bad errors unreachable signals blocked reward'
set -u -o pipefail
kn=${1:?usage: run.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: run.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
agents=$repo/tests/agents

command -v jq >/dev/null 2>&1 || { echo "FAIL jq not found (apt-get install jq)"; exit 1; }
[ -x "$kn" ] || { echo "FAIL no keynode binary at $kn"; exit 1; }
"$repo/tests/integration/node/ensure.sh" || exit 1
kn_lib_init run
export TMPDIR=$tmp # the browsers' profiles go here: their command lines name $tmp
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" "$port"

want() { [ -z "${KN_RUN_ONLY:-}" ] || [[ " $KN_RUN_ONLY " == *" $1 "* ]]; }

# leftovers — processes (not zombies) whose command line or environment names $tmp, other than
# `keynode sites` of this test (lib.sh)
leftovers() { kn_leftovers "$tmp" "$sites_pid"; }
check_clean() {
  local left
  left=$(leftovers)
  if [ -z "$left" ]; then kn_ok "$1: no agent or browser left"; else kn_fail "$1: left running: $left"; fi
}

# run_kn NAME ARGS… — keynode run into $tmp/NAME (stdout+stderr in $tmp/NAME.log); sets rc
run_kn() {
  local name=$1
  shift
  "$kn" run --tasks "$tmp/tasks.yaml" --out "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1
  rc=$?
}
res() { jq -r "$2" "$tmp/$1/result.json" 2>/dev/null; }        # res DIR/TASK/K JQ
sum() { jq -r "$2" "$tmp/$1/summary.json" 2>/dev/null; }       # sum DIR JQ
expect() { # expect NAME ACTUAL WANTED
  if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi
}

if want cli; then
  "$kn" run --agent true >/dev/null 2>"$tmp/cli.err"
  expect "cli: --tasks missing: exit 2" $? 2
  "$kn" run --help >"$tmp/help.txt" # to a file: grep -q stops reading early, pipefail would see SIGPIPE
  grep -q KEYNODE_ANSWER_FILE "$tmp/help.txt" && grep -q -- "--server URL" "$tmp/help.txt"
  expect "cli: --help documents the environment and --server" $? 0
  "$kn" run --tasks "$tmp/tasks.yaml" --agent true --parallel 0 >/dev/null 2>&1
  expect "cli: --parallel 0: exit 2" $? 2
  "$kn" run --tasks "$tmp/tasks.yaml" --agent true --task no-such-task --out "$tmp/cli-x" >/dev/null 2>&1
  expect "cli: unknown task: exit 2" $? 2
  mkdir -p "$tmp/full" && echo x >"$tmp/full/file"
  "$kn" run --tasks "$tmp/tasks.yaml" --agent true --out "$tmp/full" >/dev/null 2>"$tmp/cli.err"
  rc=$?
  expect "cli: a non-empty DIR without --resume: exit 2" "$rc" 2
  grep -q -- "--resume" "$tmp/cli.err" && kn_ok "cli: the refusal names --resume" || kn_fail "cli: $(cat "$tmp/cli.err")"
  printf 'tasks:\n  - id: "a/b"\n    intent: "x"\n    key_nodes:\n      - id: k\n        url: { include: "/x" }\n  - id: "a_b"\n    intent: "y"\n    key_nodes:\n      - id: k\n        url: { include: "/y" }\n' >"$tmp/clash.yaml"
  "$kn" run --tasks "$tmp/clash.yaml" --agent true --out "$tmp/clash" >/dev/null 2>"$tmp/cli.err"
  expect "cli: two task ids making one folder name: exit 2" $? 2
  run_kn twice --agent true --task shop-checkout --task shop-checkout
  expect "cli: a task given twice runs once" "$(sum twice .attempts.planned)" 1
  check_clean cli
fi

if want playwright || want resume; then
  run_kn pw --agent "node $agents/playwright.mjs" --task shop-red-runner-cart --task shop-checkout \
    --parallel 2 --repeat 2 --timeout 60
  expect "playwright: exit 0" "$rc" 0
  for t in shop-red-runner-cart shop-checkout; do
    for k in 1 2; do
      expect "playwright: $t #$k completed" "$(res pw/$t/$k .completion)" true
      for f in result.json trajectory.jsonl agent.log; do
        [ -s "$tmp/pw/$t/$k/$f" ] || kn_fail "playwright: $t #$k has no $f"
      done
    done
  done
  expect "playwright: the answer came through KEYNODE_ANSWER_FILE" \
    "$(res pw/shop-checkout/1 '.key_nodes[] | select(.id == "total") | .score')" 1
  expect "playwright: the agent started on the start page" \
    "$(head -1 "$tmp/pw/shop-checkout/2/agent.log" | grep -c "item.html?id=7")" 1
  expect "playwright: summary task_success_rate" "$(sum pw .metrics.task_success_rate)" 1
  expect "playwright: summary executable attempts" "$(sum pw .attempts.executable)" 4
  expect "playwright: reliability solved in all K" "$(sum pw .reliability.solved_all)" 1
  expect "playwright: summary.csv has 4 rows" "$(tail -n +2 "$tmp/pw/summary.csv" | wc -l)" 4
  check_clean playwright
fi

if want resume; then
  before=$(stat -c %Y "$tmp/pw/shop-checkout/1/result.json")
  run_kn pw --agent "node $agents/playwright.mjs" --task shop-red-runner-cart --task shop-checkout \
    --parallel 2 --repeat 2 --resume
  expect "resume: exit 0" "$rc" 0
  grep -q "4 attempts already have a result" "$tmp/pw.log" && kn_ok "resume: every attempt kept" ||
    kn_fail "resume: $(head -3 "$tmp/pw.log")"
  expect "resume: result.json untouched" "$(stat -c %Y "$tmp/pw/shop-checkout/1/result.json")" "$before"
  expect "resume: the summary still counts 4 successes" "$(sum pw .attempts.successes)" 4
fi

if want puppeteer; then
  run_kn pptr --agent "node $agents/puppeteer.mjs" --task shop-red-runner-cart --task forum-new-post --parallel 2
  expect "puppeteer: exit 0" "$rc" 0
  expect "puppeteer: shop-red-runner-cart completed" "$(res pptr/shop-red-runner-cart/1 .completion)" true
  expect "puppeteer: forum-new-post completed" "$(res pptr/forum-new-post/1 .completion)" true
  check_clean puppeteer
fi

if want selenium; then
  if [ -x /usr/bin/chromedriver ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
    run_kn sel --agent "/usr/bin/python3 $agents/selenium_agent.py" --task shop-red-runner-cart \
      --task spa-mail-dark-theme
    expect "selenium: exit 0" "$rc" 0
    expect "selenium: shop-red-runner-cart completed" "$(res sel/shop-red-runner-cart/1 .completion)" true
    expect "selenium: spa-mail-dark-theme completed" "$(res sel/spa-mail-dark-theme/1 .completion)" true
    check_clean selenium
  else
    kn_fail "selenium: needs /usr/bin/chromedriver and python3-selenium (apt-get install chromium-driver python3-selenium)"
  fi
fi

if want viewport; then
  run_kn vp --agent "node $agents/viewport.mjs" --task shop-red-runner-cart --viewport 1024x700
  expect "viewport: the tab's window is 1024x700" "$(cat "$tmp/vp/shop-red-runner-cart/1/agent.log")" "viewport 1024x700"
  "$kn" run --tasks "$tmp/tasks.yaml" --agent true --viewport 10x10 --out "$tmp/vp-bad" >/dev/null 2>&1
  expect "viewport: 10x10 refused: exit 2" $? 2
  check_clean viewport
fi

if want step-limit; then
  run_kn steps --agent "node $agents/playwright.mjs" --task shop-checkout --step-limit 3
  expect "step-limit: status step_limit" "$(res steps/shop-checkout/1 .status)" step_limit
  expect "step-limit: the attempt ended at the budget" "$(res steps/shop-checkout/1 .attempt.end)" "step limit"
  expect "step-limit: 3 steps evaluated" "$(res steps/shop-checkout/1 .steps)" 3
  check_clean step-limit
fi

if want watch-step-limit; then
  # `keynode watch --step-limit 2` while `keynode replay` walks shop-checkout's 14 steps
  mkdir -p "$tmp/wsl"
  if kn_chromium_start "$tmp/wsl"; then
    kn_watch_scenario "$tmp/wsl" --no-trajectory -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-checkout --step-limit 2 \
      -- "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-checkout --quiet
    expect "watch --step-limit 2: status step_limit" "$(jq -r .status "$tmp/wsl/result.json" 2>/dev/null)" step_limit
    expect "watch --step-limit 2: 2 steps evaluated" "$(jq -r .steps "$tmp/wsl/result.json" 2>/dev/null)" 2
    "$kn" watch --browser "$cdp" --tasks "$tmp/tasks.yaml" --task shop-checkout --step-limit x >/dev/null 2>&1
    expect "watch --step-limit x: exit 2" $? 2
    kn_stop "$cpid"
  fi
fi

if want browser; then
  # --browser: one running Chromium, a fresh context per attempt, disposed afterwards
  mkdir -p "$tmp/chromium-shared"
  if kn_chromium_start "$tmp/chromium-shared"; then
    run_kn shared --agent "node $agents/playwright.mjs" --task shop-red-runner-cart --repeat 2 --browser "$cdp"
    expect "browser: exit 0" "$rc" 0
    expect "browser: both attempts completed" "$(sum shared .attempts.successes)" 2
    expect "browser: the attempts' contexts are gone" \
      "$(curl -s "$cdp/json/list" | jq '[.[] | select(.type == "page")] | length')" 1
    kn_stop "$cpid"
  fi
fi

if want bad; then
  for m in hang exit3 fork flood garbage term; do
    : >"$tmp/pids.$m"
    # exec: the agent itself leads the group (for term: its own exit signal is the one reported)
    # 3 s stops hang and term; the others end by themselves (a loaded machine may need long for 100 MB)
    t=3; case $m in hang | term) ;; *) t=120 ;; esac
    run_kn "bad-$m" --agent "exec $agents/bad.sh $m $tmp/pids.$m" --task shop-red-runner-cart --timeout $t
    d=bad-$m/shop-red-runner-cart/1
    expect "bad $m: exit 0 (the agent's failure is no error)" "$rc" 0
    expect "bad $m: attempt done" "$(res "$d" .attempt.status)" done
    left=
    for p in $(cat "$tmp/pids.$m"); do
      [ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && left="$left $p"
    done
    expect "bad $m: none of its processes left" "$left" ""
  done
  expect "bad hang: ended by the timeout" "$(res bad-hang/shop-red-runner-cart/1 .attempt.end)" timeout
  expect "bad hang: SIGTERM ended it" "$(res bad-hang/shop-red-runner-cart/1 .attempt.exit_signal)" 15
  expect "bad exit3: exit code 3" "$(res bad-exit3/shop-red-runner-cart/1 .attempt.exit_code)" 3
  expect "bad exit3: not completed" "$(res bad-exit3/shop-red-runner-cart/1 .completion)" false
  expect "bad fork: ended when the agent exited" "$(res bad-fork/shop-red-runner-cart/1 .attempt.end)" "agent exited"
  expect "bad fork: its 3 children were recorded" "$(wc -l <"$tmp/pids.fork")" 4
  expect "bad flood: 100 MB counted" "$(res bad-flood/shop-red-runner-cart/1 .attempt.log_bytes)" 100000000
  expect "bad flood: agent.log cut" "$(res bad-flood/shop-red-runner-cart/1 .attempt.log_truncated)" true
  size=$(stat -c %s "$tmp/bad-flood/shop-red-runner-cart/1/agent.log")
  [ "$size" -le $((8 * 1024 * 1024 + 200)) ] && kn_ok "bad flood: agent.log capped ($size bytes)" ||
    kn_fail "bad flood: agent.log is $size bytes"
  g=$tmp/bad-garbage/shop-red-runner-cart/1
  jq -e . "$g/result.json" >/dev/null && kn_ok "bad garbage: result.json is JSON" || kn_fail "bad garbage: result.json"
  if jq -c . "$g/trajectory.jsonl" >/dev/null 2>&1 && iconv -f UTF-8 -t UTF-8 "$g/trajectory.jsonl" >/dev/null; then
    kn_ok "bad garbage: the trajectory is valid UTF-8 JSON lines"
  else
    kn_fail "bad garbage: the trajectory is not valid"
  fi
  n=$(res bad-garbage/shop-red-runner-cart/1 .attempt.answers)
  [ "$n" -ge 1 ] && [ "$n" -le 100 ] && kn_ok "bad garbage: $n answers taken (cap 100)" || kn_fail "bad garbage: $n answers"
  expect "bad term: killed by SIGKILL after the grace" "$(res bad-term/shop-red-runner-cart/1 .attempt.exit_signal)" 9
  check_clean bad
fi

if want errors; then
  kn_dead_port
  kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/dead.yaml" "$dead"
  "$kn" run --tasks "$tmp/dead.yaml" --task shop-checkout --agent true --out "$tmp/refused" >"$tmp/refused.log" 2>&1
  expect "errors: refused start page: exit 1" $? 1
  expect "errors: refused: status error" "$(res refused/shop-checkout/1 .attempt.status)" error
  res refused/shop-checkout/1 .attempt.reason | grep -q ERR_CONNECTION_REFUSED &&
    kn_ok "errors: refused: the reason says so" || kn_fail "errors: refused: $(res refused/shop-checkout/1 .attempt.reason)"
  expect "errors: refused: the run result says unreachable, with the evidence" \
    "$(res refused/shop-checkout/1 '"\(.status) \(.reason) \(.unreachable.error) \(.unreachable.step)"')" \
    "error unreachable net::ERR_CONNECTION_REFUSED 0"
  [ -d "$tmp/refused/shop-checkout/1.error-1" ] && kn_ok "errors: refused: retried once" || kn_fail "errors: no retry"
  expect "errors: refused: excluded" "$(sum refused '.excluded | length')" 1
  expect "errors: refused: no executable attempt" "$(sum refused .attempts.executable)" 0

  p503=$(kn_free_port)
  kn_spawn server-503 python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503); self.send_header("Content-Type", "text/html"); self.end_headers()
        self.wfile.write(b"<h1>down for maintenance</h1>")
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()' "$p503"
  kn_task_at_site "$repo/tests/sites/tasks.yaml" "$tmp/503.yaml" "$p503"
  kn_wait_for "the 503 site" 10 curl -s -o /dev/null "http://127.0.0.1:$p503/"
  "$kn" run --tasks "$tmp/503.yaml" --task shop-checkout --agent true --retries 0 --out "$tmp/5xx" >/dev/null 2>&1
  expect "errors: 503 start page: exit 1" $? 1
  res 5xx/shop-checkout/1 .attempt.reason | grep -q "HTTP 503" && kn_ok "errors: 503: the reason says so" ||
    kn_fail "errors: 503: $(res 5xx/shop-checkout/1 .attempt.reason)"
  [ ! -d "$tmp/5xx/shop-checkout/1.error-1" ] && kn_ok "errors: --retries 0: no retry" || kn_fail "errors: retried"

  run_kn noagent --agent "$tmp/no-such-agent --flag" --task shop-red-runner-cart --retries 0
  expect "errors: agent not found: exit 1" "$rc" 1
  res noagent/shop-red-runner-cart/1 .attempt.reason | grep -q "agent could not start" &&
    kn_ok "errors: agent not found: the reason says so" || kn_fail "errors: $(res noagent/shop-red-runner-cart/1 .attempt.reason)"

  run_kn crash --agent "node $agents/crash.mjs" --task shop-red-runner-cart --retries 0 --timeout 30
  expect "errors: browser crashed: exit 1" "$rc" 1
  expect "errors: browser crashed: end" "$(res crash/shop-red-runner-cart/1 .attempt.end)" "browser gone"
  expect "errors: browser crashed: error" "$(res crash/shop-red-runner-cart/1 .attempt.status)" error

  run_kn nobrowser --agent true --task shop-red-runner-cart --retries 0 --chromium "$tmp/no-chromium"
  res nobrowser/shop-red-runner-cart/1 .attempt.reason | grep -q "^browser: " &&
    kn_ok "errors: no browser: the reason says so" || kn_fail "errors: $(res nobrowser/shop-red-runner-cart/1 .attempt.reason)"
  check_clean errors
fi

if want unreachable; then
  u=$tmp/unr
  mkdir -p "$u"
  kn_dead_port; other=$dead # another site, not the task's: nobody listens
  kn_dead_port  # the task's own payment site: nobody listens either
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$u/key.pem" -out "$u/cert.pem" -days 1 \
    -subj /CN=localhost >/dev/null 2>&1 || kn_fail "unreachable: openssl could not make a certificate"
  kn_spawn -o "$u/tls.log" tls node "$repo/tests/integration/tls-server.mjs" "$u/key.pem" "$u/cert.pem"
  kn_wait_for "the HTTPS site's port" 20 grep -q '^port=' "$u/tls.log"
  tls=$(sed -n 's/^port=//p' "$u/tls.log")
  curl -sk "https://127.0.0.1:${tls:-1}/" | grep -q "secure page" && kn_ok "unreachable: the HTTPS site is up" ||
    kn_fail "unreachable: no HTTPS site: $(cat "$u/tls.log")"
  site=http://127.0.0.1:$port
  cat >"$u/tasks.yaml" <<EOF
tasks:
  - { id: own-refused, intent: pay, start_url: "$site/shop/", key_nodes: [ { id: pay, url: { include: "http://127.0.0.1:$dead/pay" } } ] }
  - { id: own-dns, intent: pay, start_url: "$site/shop/", key_nodes: [ { id: pay, url: { exact: "http://unreachable.test/pay" } } ] }
  - { id: own-tls, intent: pay, start_url: "$site/shop/", key_nodes: [ { id: pay, url: { include: "https://127.0.0.1:$tls/pay" } } ] }
  - { id: other-host, intent: pay, start_url: "$site/shop/", key_nodes: [ { id: pay, url: { include: "/shop/pay.html" } } ] }
  - { id: start-dns, intent: pay, start_url: "http://unreachable.test/shop/", key_nodes: [ { id: pay, url: { include: "/pay" } } ] }
  - { id: start-tls, intent: pay, start_url: "https://127.0.0.1:$tls/shop/", key_nodes: [ { id: pay, url: { include: "/pay" } } ] }
EOF
  # DNS without a real query: Chromium maps unreachable.test to "not found" by itself (the binary
  # keynode run launches by default, with one more flag)
  shell=/usr/lib/chromium/chromium-headless-shell
  [ -x "$shell" ] || shell=$kn_chromium
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$shell" "'--host-resolver-rules=MAP unreachable.test ~NOTFOUND'" >"$u/chromium"
  chmod +x "$u/chromium"
  "$kn" run --tasks "$u/tasks.yaml" --out "$u/out" --chromium "$u/chromium" --parallel 2 --timeout 60 \
    --agent 'export GOTO_WAIT_S=30 # it would wait long after its goto: keynode ends the attempt at the failure
      case $KEYNODE_TASK_ID in
      own-refused) to='"http://127.0.0.1:$dead/pay"' ;; own-dns) to=http://unreachable.test/pay ;;
      own-tls) to='"https://127.0.0.1:$tls/pay"' ;; *) to='"http://127.0.0.1:$other/pay"' GOTO_WAIT_S=1 ;; esac
      exec node '"$agents/goto.mjs"' "$to"' >"$u/run.log" 2>&1
  expect "unreachable: exit 1 (errors)" $? 1
  # step: the steps evaluated when it failed (0 or 1 for the agent's goto: it fails as it commits)
  for c in "own-refused net::ERR_CONNECTION_REFUSED http://127.0.0.1:$dead/pay [01]" \
    "own-dns net::ERR_NAME_NOT_RESOLVED http://unreachable.test/pay [01]" \
    "own-tls net::ERR_CERT_AUTHORITY_INVALID https://127.0.0.1:$tls/pay [01]" \
    "start-dns net::ERR_NAME_NOT_RESOLVED http://unreachable.test/shop/ 0" \
    "start-tls net::ERR_CERT_AUTHORITY_INVALID https://127.0.0.1:$tls/shop/ 0"; do
    set -- $c
    for d in 1 1.error-1; do # the attempt and its retry
      got=$(jq -r '"\(.attempt.status) \(.status) \(.reason) \(.unreachable.error) \(.unreachable.url) \(.unreachable.step)"' \
        "$u/out/$1/$d/result.json" 2>/dev/null)
      [[ "$got" =~ ^"error error unreachable $2 $3 "$4$ ]] &&
        kn_ok "unreachable: $1 ($d): attempt error, run result error/unreachable with the net error, URL, step" ||
        kn_fail "unreachable: $1 ($d): got '$got', want 'error error unreachable $2 $3 $4'"
      expect "unreachable: $1 ($d): the attempt's reason names it" \
        "$(jq -r .attempt.reason "$u/out/$1/$d/result.json" 2>/dev/null)" "unreachable: $2 at $3"
    done
  done
  expect "unreachable: the agents' attempts ended at the failure" \
    "$(for t in own-refused own-dns own-tls; do jq -r .attempt.end "$u/out/$t/1/result.json"; done | sort -u)" unreachable
  expect "unreachable: another host's failure is the agent's: done, incomplete, no reason" \
    "$(jq -r '"\(.attempt.status) \(.status) \(.reason) \(.attempt.end)"' "$u/out/other-host/1/result.json" 2>/dev/null)" \
    "done incomplete null agent exited"
  expect "unreachable: another host's failure is not retried" "$(ls -d "$u/out/other-host/"*.error-* 2>/dev/null | wc -l)" 0
  expect "unreachable: summary.json: 1 executable, 5 errors, the metrics over 1 attempt" \
    "$(jq -r '"\(.attempts.executable) \(.attempts.errors) \(.metrics.attempts)"' "$u/out/summary.json" 2>/dev/null)" "1 5 1"
  expect "unreachable: summary.json excludes the 5, each for unreachable" \
    "$(jq -r '[.excluded[] | select(.status == "error" and (.reason | startswith("unreachable: net::ERR_"))) | .task] | sort | join(",")' \
      "$u/out/summary.json" 2>/dev/null)" "own-dns,own-refused,own-tls,start-dns,start-tls"
  # `keynode watch` on a running Chromium: the same agent's goto to the task's payment site ends the
  # watch by itself, exit 2, the result an error with reason unreachable
  if kn_chromium_start "$u"; then
    kn_watch_scenario "$u/watch" --no-trajectory --timeout 30 -- --browser "$cdp" --tasks "$u/tasks.yaml" --task own-refused \
      -- env KEYNODE_CDP_URL="$cdp" GOTO_WAIT_S=0 node "$agents/goto.mjs" "http://127.0.0.1:$dead/pay"
    if [ "$kn_watch_rc" = 124 ]; then kn_fail "unreachable: watch did not end by itself"
    else expect "unreachable: watch ended by itself: exit 2" "$kn_watch_rc" 2; fi
    expect "unreachable: watch's result" "$(jq -r '"\(.status) \(.reason) \(.unreachable.error)"' "$u/watch/result.json" 2>/dev/null)" \
      "error unreachable net::ERR_CONNECTION_REFUSED"
    grep -q "site unreachable: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:$dead/pay" "$u/watch/watch.err" &&
      kn_ok "unreachable: watch says so on stderr" || kn_fail "unreachable: watch: $(tail -2 "$u/watch/watch.err")"
    kn_stop "$cpid"
  fi
  kn_stop_name tls
  check_clean unreachable
fi

if want signals; then
  for sig in INT TERM; do
    kn_spawn "sig$sig" "$kn" run --tasks "$tmp/tasks.yaml" --task shop-red-runner-cart --task shop-checkout \
      --agent "$agents/bad.sh hang" --timeout 120 --out "$tmp/sig$sig"
    runpid=$kn_pid
    kn_wait_for "the first attempt's agent" 10 test -e "$tmp/sig$sig/shop-red-runner-cart/1/agent.log"
    sleep 0.3
    kill -"$sig" "$runpid"
    kn_wait_exit "sig$sig" 300
    rc=$kn_rc
    expect "signals: SIG$sig: exit $([ $sig = INT ] && echo 130 || echo 143)" "$rc" "$([ $sig = INT ] && echo 130 || echo 143)"
    expect "signals: SIG$sig: summary written, nothing finished" "$(sum "sig$sig" .attempts.finished)" 0
    check_clean "signals SIG$sig"
  done
fi

if want blocked; then
  kn_spawn bserver node "$repo/tests/integration/blocked-server.mjs" "$repo/tests/sites/blocked"
  kn_wait_for "the blocked server's port" 20 grep -q '^port=' "$tmp/bserver.log"
  bport=$(sed -n 's/^port=//p' "$tmp/bserver.log")
  node "$repo/tests/integration/blocked-check.mjs" tasks "$repo/tests/sites/blocked/fixtures.json" \
    "http://127.0.0.1:${bport:-1}" >"$tmp/blocked.yaml"
  # the agent opens its start page in a new tab (loaded while keynode watches) and gives up
  "$kn" run --tasks "$tmp/blocked.yaml" --task f-403 --task f-none --out "$tmp/blocked" \
    --agent 'curl -s -X PUT "$KEYNODE_CDP_URL/json/new?$KEYNODE_START_URL" >/dev/null; sleep 1' \
    >"$tmp/blocked.log" 2>&1
  expect "blocked: exit 1" $? 1
  expect "blocked: attempt status blocked" "$(res blocked/f-403/1 .attempt.status)" blocked
  expect "blocked: evaluator status blocked, kind http" "$(res blocked/f-403/1 '.status + " " + .blocked.kind')" "blocked http"
  expect "blocked: the open site's attempt is done" "$(res blocked/f-none/1 .attempt.status)" done
  expect "blocked: not retried" "$(find "$tmp/blocked" -name '1.error-*' | wc -l)" 0
  expect "blocked: summary.json counts it apart (blocked errors executable metrics.attempts)" \
    "$(sum blocked '"\(.attempts.blocked) \(.attempts.errors) \(.attempts.executable) \(.metrics.attempts)"')" "1 0 1 1"
  expect "blocked: excluded with status blocked" "$(sum blocked '[.excluded[] | .task + " " + .status] | join(",")')" "f-403 blocked"
  expect "blocked: summary.csv row" "$(grep -c '^"f-403",1,blocked,' "$tmp/blocked/summary.csv")" 1
  grep -q "excluded: 0 error, 1 blocked" "$tmp/blocked.log" && kn_ok "blocked: the printed summary counts it apart" ||
    kn_fail "blocked: printed summary: $(grep excluded "$tmp/blocked.log")"
  # --config: keynode.yaml's blocked: rules: with only 429 listed, the 403 start page is no block
  printf 'blocked: { http_status: ["429"] }\n' >"$tmp/only429.yaml"
  "$kn" run --tasks "$tmp/blocked.yaml" --task f-403 --out "$tmp/blocked-cfg" --config "$tmp/only429.yaml" \
    --agent 'curl -s -X PUT "$KEYNODE_CDP_URL/json/new?$KEYNODE_START_URL" >/dev/null; sleep 1' \
    >"$tmp/blocked-cfg.log" 2>&1
  expect "blocked --config (http_status 429 only): the 403 attempt is done, not blocked" \
    "$(res blocked-cfg/f-403/1 '.attempt.status + " " + .status')" "done incomplete"
  kn_stop_name bserver
  check_clean blocked
fi

if want reward; then
  # attempt 1 buys the right shoe (5/5), attempt 2 the wrong colour (4/5; hand-worked in purchase.sh)
  kn_task_at_site "$repo/tests/data/purchase/market.yaml" "$tmp/market.yaml" "$port"
  "$kn" run --tasks "$tmp/market.yaml" --task market-shoe --repeat 2 --timeout 60 --out "$tmp/reward" \
    --agent 'case "${KEYNODE_ATTEMPT_DIR##*/}" in 1) m=1:blue:9:buy ;; *) m=1:black:9:buy ;; esac
      exec node '"$repo/tests/integration/agents/market.mjs"' "$KEYNODE_CDP_URL" '"http://127.0.0.1:$port"' \
        "$KEYNODE_ATTEMPT_DIR/marks" "$m"' >"$tmp/reward.log" 2>&1
  expect "reward: exit 0" $? 0
  expect "reward: attempt rewards" "$(res reward/market-shoe/1 .reward) $(res reward/market-shoe/2 .reward)" "1 0.8"
  expect "reward: summary task_score reward_success_rate reward_tasks" \
    "$(sum reward '"\(.metrics.task_score) \(.metrics.reward_success_rate) \(.metrics.reward_tasks)"')" "90 0.5 2"
  expect "reward: summary.csv reward column (before fault, the last)" \
    "$(tail -n +2 "$tmp/reward/summary.csv" | awk -F, '{print $(NF-1)}' | sort | tr '\n' ' ')" "0.8000 1.0000 "
  grep -q "^  task_score                90.00$" "$tmp/reward.log" &&
    grep -q "^  reward_success_rate       0.5000 (2 attempts with a purchase)$" "$tmp/reward.log" &&
    kn_ok "reward: the printed summary" || kn_fail "reward: printed summary: $(grep -A1 task_score "$tmp/reward.log")"
  expect "reward: no reward metrics without a purchase" "$(sum pw '.metrics | has("task_score")' || echo none)" \
    "$(want playwright && echo false || echo none)"
  check_clean reward
fi

if want readme; then
  # docs/evaluate.md's Selenium agent skeleton, as written there, with a scripted my_policy.py
  mkdir -p "$tmp/readme-agent"
  awk '/^# my_selenium_agent.py/{on=1} on&&/^```/{exit} on' "$repo/docs/evaluate.md" >"$tmp/readme-agent/my_selenium_agent.py"
  cp "$agents/readme_policy.py" "$tmp/readme-agent/my_policy.py"
  if [ "$(wc -l <"$tmp/readme-agent/my_selenium_agent.py")" -gt 10 ]; then kn_ok "readme: the Selenium skeleton extracted"; else
    kn_fail "readme: no Selenium skeleton in docs/evaluate.md"; fi
  run_kn readme --agent "cd $tmp/readme-agent && /usr/bin/python3 my_selenium_agent.py" --task shop-red-runner-cart --timeout 120
  expect "readme: the skeleton's run exit 0" "$rc" 0
  expect "readme: shop-red-runner-cart completed" "$(res readme/shop-red-runner-cart/1 .completion)" true
  expect "readme: its answer was read" "$(res readme/shop-red-runner-cart/1 .attempt.answers)" 1
  expect "readme: it exited by itself" "$(res readme/shop-red-runner-cart/1 '"\(.attempt.end) \(.attempt.exit_code)"')" "agent exited 0"
  check_clean readme
fi

if want pool; then
  # the warm pool (--warm): a pooled browser that died while it waited is replaced, never handed out.
  # --parallel 1 --warm 1 --repeat 2 through a wrapper that logs each launch (number, pid, profile); the
  # first attempt's agent waits until the pool's second browser is up, kills it (SIGKILL) and waits until
  # it is gone; the second attempt must then run on a third, live browser
  cat >"$tmp/pool-chromium" <<EOF
#!/bin/sh
for a in "\$@"; do case \$a in --user-data-dir=*) udd=\${a#*=} ;; esac; done
echo "\$\$ \$udd" >>"$tmp/pool-launches"
exec "$kn_chromium" "\$@"
EOF
  cat >"$tmp/pool-agent.sh" <<EOF
#!/bin/sh
if mkdir "$tmp/pool-first" 2>/dev/null; then
  # the pool's second browser: up (its DevToolsActivePort written), then a moment for the pool to take it in
  i=0
  until [ "\$(wc -l <"$tmp/pool-launches")" -ge 2 ] && udd=\$(sed -n 2p "$tmp/pool-launches" | cut -d' ' -f2) &&
        [ -s "\$udd/DevToolsActivePort" ]; do i=\$((i + 1)); [ \$i -gt 600 ] && exit 9; sleep 0.1; done
  sleep 5
  pid=\$(sed -n 2p "$tmp/pool-launches" | cut -d' ' -f1)
  head -1 "\$udd/DevToolsActivePort" >"$tmp/pool-dead-port"
  kill -9 "\$pid"
  while [ -e /proc/\$pid ] && [ "\$(awk '{print \$3}' /proc/\$pid/stat 2>/dev/null)" != Z ]; do sleep 0.1; done
else
  echo "\$KEYNODE_CDP_URL" >"$tmp/pool-second-url"
fi
EOF
  chmod +x "$tmp/pool-chromium" "$tmp/pool-agent.sh"
  run_kn pool --agent "$tmp/pool-agent.sh" --task shop-red-runner-cart --repeat 2 --parallel 1 --warm 1 \
    --retries 0 --chromium "$tmp/pool-chromium" --timeout 120
  expect "pool: both attempts ran (agent exited 0), none an error" \
    "$(res pool/shop-red-runner-cart/1 .attempt.end) $(res pool/shop-red-runner-cart/1 .attempt.exit_code) $(res pool/shop-red-runner-cart/2 .attempt.status) $(res pool/shop-red-runner-cart/2 .attempt.exit_code)" \
    "agent exited 0 done 0"
  expect "pool: the dead browser replaced (3 launches for 2 attempts)" "$(wc -l <"$tmp/pool-launches")" 3
  dead=$(cat "$tmp/pool-dead-port" 2>/dev/null)
  got=$(cat "$tmp/pool-second-url" 2>/dev/null)
  if [ -n "$dead" ] && [ -n "$got" ] && [ "$got" != "http://127.0.0.1:$dead" ]; then
    kn_ok "pool: the second attempt's browser is not the dead one ($got, dead port $dead)"
  else kn_fail "pool: second attempt's browser '$got', dead port '$dead'"; fi
  expect "pool: --warm 17 refused" "$("$kn" run --tasks "$tmp/tasks.yaml" --agent true --warm 17 --out "$tmp/pool-bad" >/dev/null 2>&1; echo $?)" 2
  check_clean pool
fi

kn_finish
