#!/usr/bin/env bash
# blocked.sh — "blocked is not broken" end to end against real headless Chromium and the
# fixtures of tests/sites/blocked, served by tests/integration/blocked-server.mjs (status codes, headers,
# redirects, a test-only switch of the fixture in front of /app/).
#
#   tests/integration/blocked.sh KEYNODE_BIN REPO_DIR [replay|watch|health]…   (default: all three)
#   env KN_WQ: the worker_queue binary (tests/integration/worker_queue.c), needed by the health part
#
# Parts:
#   replay  one task per fixture of fixtures.json, `keynode replay --validate --out`: every blocked fixture
#           (401/403/429/503, seven challenge pages, six CAPTCHA frames — one from another site, an out-of-process
#           iframe —, seven consent walls, a geo redirect)
#           says `blocked` at step 1 with kind, signature, HTTP status, URL, Retry-After (429) and a PNG; a 404
#           stays `broken`; consent walls with their accept button, a bottom banner and an invisible reCAPTCHA
#           badge pass.
#   watch   `keynode watch` and a Playwright agent meeting a 403, a challenge, a CAPTCHA and a consent wall: the
#           run result says `blocked` (with kind), valid against run-result.schema.json; the same agent on the
#           open site: finished, no "blocked"; a CAPTCHA from another site; a start page that was already
#           blocked (403) when keynode watch attached.
#   health  a private PostgreSQL, `keynode migrate`, one task replayed by `keynode worker --once` (in a fresh
#           context of the test's Chromium); for each of
#           a 403, a 429, a challenge, a CAPTCHA, a consent wall and a geo redirect in front of the site: the
#           replay result is `blocked`, health becomes `blocked`, failures are not counted; the fixture removed,
#           the task is healthy again. No `broken` alert at all; the blocked alert has its own kind. Last,
#           keynode.yaml `blocked: {http_status: ["429"]}` makes the 403 page a broken replay (the rules are used).
# Env: KN_CHROMIUM, KN_KEEP=1 keeps the scratch folder; KN_BLOCKED_WATCH_ONLY="403 none …" limits the watch
# part's fixtures (the late and --config cases always run; the sanitizer build's subset: its ctest line below).
# Exit: 0 all checks passed, 1 any failed.
#
# The sanitizer build's watch part meets a 403, a CAPTCHA from another site and the open site: the monitor's
# probe and verdict are one C path for every kind, and the replay part judges every fixture's kind under ASan.
# ctest: integration.blocked ARGS=keynode,repo,replay,watch TIMEOUT=600 'SANITIZE_ENV=KN_BLOCKED_WATCH_ONLY=403 captcha-recaptcha-xsite none'
# ctest: integration.blocked_health ARGS=keynode,repo,health TIMEOUT=600 'ENV=KN_WQ=$<TARGET_FILE:worker_queue>'
set -u -o pipefail
kn=${1:?usage: blocked.sh KEYNODE_BIN REPO_DIR [replay|watch|health]…}
repo=$(cd "${2:?usage: blocked.sh KEYNODE_BIN REPO_DIR [replay|watch|health]…}" && pwd)
shift 2
parts=${*:-replay watch health}
. "$repo/tests/integration/lib.sh"
kn_lib_init blocked
export TMPDIR=$tmp
export KEYNODE_CHROMIUM=$kn_chromium
here=$repo/tests/integration
fixtures=$repo/tests/sites/blocked/fixtures.json

check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }

# the fixture server
kn_spawn server node "$here/blocked-server.mjs" "$repo/tests/sites/blocked"
kn_wait_for "blocked-server's port" 5 grep -q '^port=' "$tmp/server.log"
sport=$(sed -n 's/^port=//p' "$tmp/server.log")
[ -n "$sport" ] || { kn_fail "blocked-server did not start: $(tail -3 "$tmp/server.log")"; kn_finish; }
base=http://127.0.0.1:$sport
fixture() { curl -s -o /dev/null -w '%{http_code}' "$base/__fixture?name=$1"; }
check "test server: the fixture switch answers 204" "$(fixture none)" 204
check "test server: 429 with Retry-After" "$(curl -s -o /dev/null -D - "$base/f/429/" | tr -d '\r' | sed -n 's/^Retry-After: //p')" 120
check "test server: a geo redirect" "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$base/us/f/geo/")" "302 $base/de/f/geo/"

kn_chromium_start "$tmp" || kn_finish

node "$here/blocked-check.mjs" tasks "$fixtures" "$base" >"$tmp/tasks.yaml" || { kn_fail "task file"; kn_finish; }

for part in $parts; do
  case $part in
  replay)
    echo "== replay: every fixture"
    mkdir -p "$tmp/reports"
    "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --validate --out "$tmp/reports" --quiet \
      >"$tmp/replay.out" 2>"$tmp/replay.err"
    check "replay --validate exits 1 (not every task passed)" "$?" 1
    node "$here/blocked-check.mjs" reports "$fixtures" "$tmp/reports" >"$tmp/check.out"
    while read -r line; do case $line in ok*) kn_ok "${line#ok   }" ;; FAIL*) kn_fail "${line#FAIL }" ;; esac; done <"$tmp/check.out"
    grep -q 'f-403 *blocked at step 1: http 403' "$tmp/replay.out" && kn_ok "replay prints 'blocked at step 1: http 403'" ||
      kn_fail "replay output: $(grep f-403 "$tmp/replay.out")"
    # keynode.yaml's blocked: rules are read by replay --config too (not only by the worker)
    printf 'blocked: { http_status: ["429"] }\n' >"$tmp/only429.yaml"
    "$kn" replay --browser "$cdp" --tasks "$tmp/tasks.yaml" --task f-403 --validate --config "$tmp/only429.yaml" \
      >"$tmp/cfg-replay.out" 2>&1
    check "replay --config (blocked: http_status 429 only): exit 1" "$?" 1
    grep -q 'f-403 *broken' "$tmp/cfg-replay.out" && kn_ok "replay --config: the 403 page is broken, not blocked" ||
      kn_fail "replay --config: $(grep f-403 "$tmp/cfg-replay.out")"
    ;;
  watch)
    echo "== watch: an agent meeting a blocked page"
    for case in "403 blocked http" "challenge-cf-just-a-moment blocked challenge" "captcha-recaptcha blocked captcha" \
                "captcha-recaptcha-xsite blocked captcha" \
                "consent-onetrust blocked consent" "none finished"; do
      set -- $case
      [ -z "${KN_BLOCKED_WATCH_ONLY:-}" ] || [[ " $KN_BLOCKED_WATCH_ONLY " == *" $1 "* ]] || continue
      d=$tmp/watch-$1
      mkdir -p "$d"
      : >"$d/marks"
      # the agent attaches first and waits for $d/go: its node start-up is not idle time of the watch
      kn_watch_scenario "$d" --go "$d/marks" -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task "f-$1" --until idle:3 \
        -- node "$here/agents/blocked.mjs" "$cdp" "$base" "$d/marks" "/f/$1/" || continue
      check "watch $1: the agent ran" "$kn_agent_rc" 0
      check "watch $1: exit status (0 finished, 1 not)" "$kn_watch_rc" "$([ "$2" = finished ] && echo 0 || echo 1)"
      node "$here/blocked-check.mjs" result "$repo" "$d/result.json" "$2" ${3:-} >"$d/check.out"
      while read -r line; do case $line in ok*) kn_ok "watch $1: ${line#ok   }" ;; FAIL*) kn_fail "watch $1: ${line#FAIL }" ;; esac; done <"$d/check.out"
    done
    # the start page was blocked before keynode watch attached: no load event comes after the attach, the
    # monitor probes the page it found
    d=$tmp/watch-late-403
    mkdir -p "$d"
    : >"$d/marks"
    KN_AGENT_LATE=$d/go kn_spawn -o "$d/agent.log" late-403-agent node "$here/agents/blocked.mjs" "$cdp" "$base" "$d/marks" /f/403/
    kn_wait_for "the agent to load the blocked page" 20 grep -q '^loaded' "$d/marks"
    check "watch late-403: the agent loaded the blocked page first" "$(grep -c '^loaded' "$d/marks")" 1
    if kn_watch_scenario "$d" --started late-403-agent -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task f-403 --until idle:3 --; then
      check "watch late-403: the agent ran" "$kn_agent_rc" 0
      check "watch late-403: exit status 1 (not finished)" "$kn_watch_rc" 1
    fi
    node "$here/blocked-check.mjs" result "$repo" "$d/result.json" blocked http >"$d/check.out"
    while read -r line; do case $line in ok*) kn_ok "watch late-403: ${line#ok   }" ;; FAIL*) kn_fail "watch late-403: ${line#FAIL }" ;; esac; done <"$d/check.out"
    # watch --config reads keynode.yaml's blocked: rules: with only 429 listed, a 403 start page is not blocked
    printf 'blocked: { http_status: ["429"] }\n' >"$tmp/only429.yaml"
    d=$tmp/watch-config-403
    mkdir -p "$d"
    : >"$d/marks"
    kn_watch_scenario "$d" --go "$d/marks" \
      -- --browser "$cdp" --tasks "$tmp/tasks.yaml" --task f-403 --config "$tmp/only429.yaml" --until idle:3 \
      -- node "$here/agents/blocked.mjs" "$cdp" "$base" "$d/marks" /f/403/
    check "watch --config (blocked: http_status 429 only): a 403 start page is incomplete, not blocked" \
      "$(jq -r '.status + " " + (.blocked // {} | .kind // "-")' "$d/result.json")" "incomplete -"
    ;;
  health)
    echo "== health: scheduled replays of one task while fixtures come and go"
    kn_pg_start || kn_finish
    export KEYNODE_DATABASE_URL=$KN_PG_URL
    printf '# the database comes from KEYNODE_DATABASE_URL\nhealth: { broken_after: 1 }\n' >"$tmp/keynode.yaml"
    "$kn" migrate --config "$tmp/keynode.yaml" >"$tmp/migrate.log" 2>&1 && kn_ok "keynode migrate (030_blocked)" ||
      { kn_fail "keynode migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
    cat >"$tmp/app.yaml" <<EOF
tasks:
  - id: app-catalogue
    intent: "Open the catalogue of Trailhead Outfitters"
    start_url: $base/us/app/
    key_nodes:
      - url: { include: "/us/app/done.html" }
    steps:
      - goto: $base/us/app/
      - click: { selector: "#go" }
EOF
    # run_job — one `keynode worker --once` runs the queued job in a fresh context of the test's Chromium (a
    # worker launching its own browser is worker.sh's; here 13 launches would only add time)
    run_job() {
      "$kn" worker --config "$tmp/keynode.yaml" --id wb --once --browser "$cdp" --element-timeout 2000 \
        --settle-timeout 20000 >/dev/null 2>>"$tmp/worker.log"
      check "worker exit 0" "$?" 0
    }
    state() { kn_psql "SELECT h.state || ' ' || h.consecutive_failures FROM task_health h JOIN task_versions v ON v.task_id = h.task_id WHERE v.id = $hver"; }
    last() { kn_psql "SELECT status FROM replay_results WHERE task_version = $hver ORDER BY id DESC LIMIT 1"; }
    hver=$("$KN_WQ" put "$KN_PG_URL" blocked "$tmp/app.yaml" | awk '{print $2}')
    [ -n "$hver" ] || { kn_fail "task not stored"; kn_finish; }
    enqueue() { "$KN_WQ" enqueue "$KN_PG_URL" "$hver" 1 blocked >/dev/null || kn_fail "enqueue"; }
    fixture none >/dev/null
    enqueue; run_job
    check "open site: passed" "$(last)" passed
    check "open site: healthy" "$(state)" "healthy 0"
    for case in "403 http" "429 http" "challenge-cf-just-a-moment challenge" "captcha-turnstile captcha" \
                "consent-cookiebot consent" "geo geo"; do
      set -- $case
      check "fixture $1 in front of the site" "$(fixture "$1")" 204
      enqueue; run_job
      check "$1: replay result blocked" "$(last)" blocked
      check "$1: health blocked, no failure counted" "$(state)" "blocked 0"
      check "$1: evidence kind in the stored report" \
        "$(kn_psql "SELECT report->'blocked'->>'kind' FROM replay_results WHERE task_version = $hver ORDER BY id DESC LIMIT 1")" "$2"
      check "$1: screenshot stored" \
        "$(kn_psql "SELECT screenshot IS NOT NULL FROM replay_results WHERE task_version = $hver ORDER BY id DESC LIMIT 1")" t
      fixture none >/dev/null
      enqueue; run_job
      check "$1 removed: passed" "$(last)" passed
      check "$1 removed: healthy again" "$(state)" "healthy 0"
    done
    task_id=$(kn_psql "SELECT task_id FROM task_versions WHERE id = $hver")
    check "transitions: blocked and back, never broken" \
      "$(kn_psql "SELECT string_agg(from_state || '>' || to_state, ' ' ORDER BY id) FROM health_transitions WHERE task_id = $task_id")" \
      "unknown>healthy$(for _ in 1 2 3 4 5 6; do printf ' healthy>blocked blocked>healthy'; done)"
    check "each blocked transition carries what blocked it" \
      "$(kn_psql "SELECT count(*) FROM health_transitions WHERE task_id = $task_id AND to_state = 'blocked' AND evidence->'blocked'->>'signature' <> ''")" 6
    # alerts are recorded before `worker --once` exits (kn_alerts_free drains the queue)
    check "no broken alert" "$(kn_psql "SELECT count(*) FROM alerts WHERE dedupe_key LIKE '%broken%' OR title LIKE '%broken%'")" 0
    check "blocked alert: its own kind and dedupe key" \
      "$(kn_psql "SELECT dedupe_key || ' ' || severity || ' ' || (detail->>'kind') FROM alerts WHERE dedupe_key LIKE 'blocked:%' ORDER BY id LIMIT 1")" \
      "blocked:blocked:app-catalogue warning blocked"
    # keynode.yaml's blocked: rules reach the worker: without 403 among the statuses, a 403 page is broken
    printf 'health: { broken_after: 1 }\nblocked: { http_status: ["429"] }\n' >"$tmp/keynode.yaml"
    fixture 403 >/dev/null
    enqueue; run_job
    check "blocked.http_status without 403 (keynode.yaml): the 403 replay is broken" "$(last)" broken
    fixture none >/dev/null
    ;;
  *) kn_fail "unknown part $part" ;;
  esac
done
kn_finish
