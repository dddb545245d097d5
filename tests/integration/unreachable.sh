#!/usr/bin/env bash
# unreachable.sh — "unreachable is not failed" on the published Mind2Web-Live tasks as they are: no start
# URL, URL key nodes holding fragments ("gamestop.", "2630" of key store); the site is only in each key
# node's page (content.url). `keynode run` with a small agent (tests/agents/goto.mjs) whose goto to the
# task's site fails must give an error with reason unreachable, left out of the metrics — never
# `incomplete`, counted as the agent's failure. Scenarios:
#   dns      published test task 0 extracted from the file as is; its site www.gamestop.com is not
#            resolved: the browser maps every host but loopback to "not found" (--host-resolver-rules),
#            so no name is ever looked up and nothing outside 127.0.0.0/8 is contacted →
#            net::ERR_NAME_NOT_RESOLVED
#   refused  the same task with every content.url on a dead port of 127.0.0.1 (kn_dead_port) →
#            net::ERR_CONNECTION_REFUSED
#   tls      the same task with every content.url on a local HTTPS server whose certificate is self-signed
#            (tls-server.mjs) → net::ERR_CERT_AUTHORITY_INVALID
#   plain    the same task with every content.url https:// on a plain-HTTP server (`keynode sites`) →
#            net::ERR_SSL_PROTOCOL_ERROR
#   other    control: the agent's goto fails on a host the task does not name (a dead port of 127.0.0.1
#            other than its pages') → the agent's business: done, incomplete, in the metrics
#   server   the service (private PostgreSQL, `keynode serve`): the published test file POSTed as is —
#            /api/tasks (the dashboard's source) gives every one of the 104 tasks a site, task 0
#            gamestop.com, ?site= filters by it; `keynode run --server` of the refused case: serve's
#            monitor, reading the task back from PostgreSQL, ends the run as unreachable too
#
#   tests/integration/unreachable.sh KEYNODE_BIN REPO_DIR SHARED_DIR
#
# The scenario is a function others call (a fault-injection matrix): source lib.sh and this file, call
# kn_lib_init, then
#   kn_unr_init KEYNODE_BIN REPO_DIR    # checks the tools; sets unr_chromium (the wrapper below)
#   kn_unr_task SRC INDEX DEST [PAGE]   # task INDEX of a Mind2Web-Live file as is; with PAGE every key
#                                       # node's content.url is PAGE (path kept: only the site changes)
#   kn_unr_case NAME TASKS TASK GOTO_URL WANT_ERROR [RUN ARGS…]
#                                       # keynode run of TASK with goto.mjs to GOTO_URL; checks the
#                                       # attempt is an error, reason unreachable, WANT_ERROR at GOTO_URL,
#                                       # out of the metrics (kn_ok/kn_fail); output in $tmp/NAME
#   kn_unr_agent_case NAME TASKS TASK GOTO_URL [RUN ARGS…]
#                                       # the control: a failure the task's sites do not explain is the
#                                       # agent's (done, incomplete, in the metrics)
# Sourcing runs nothing. Env: KN_RUN_ONLY="name …" runs only those scenarios; KN_KEEP=1 keeps $tmp.
# Exit: 0 all checks passed, 1 any failed.
#
# ctest: integration.unreachable ARGS=keynode,repo,shared TIMEOUT=300

# kn_unr_init KEYNODE_BIN REPO_DIR — the tools the cases need; sets unr_kn, unr_repo, unr_chromium
kn_unr_init() {
  unr_kn=$1 unr_repo=$2
  command -v jq >/dev/null 2>&1 || { kn_fail "unreachable: jq not found (apt-get install jq)"; return 1; }
  [ -x "$unr_kn" ] || { kn_fail "unreachable: no keynode binary at $unr_kn"; return 1; }
  "$unr_repo/tests/integration/node/ensure.sh" || { kn_fail "unreachable: node packages"; return 1; }
  # The browser keynode run launches (headless shell, else the full one) with every host name but
  # loopback resolved to "not found" by Chromium itself: a task's public site fails as on an offline
  # machine, deterministically, and no DNS query or connection leaves 127.0.0.0/8.
  local shell=/usr/lib/chromium/chromium-headless-shell
  [ -x "$shell" ] || shell=$kn_chromium
  [ -x "$shell" ] || { kn_fail "unreachable: no Chromium at $shell"; return 1; }
  unr_chromium=$tmp/unr-chromium
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$shell" \
    "'--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'" >"$unr_chromium"
  chmod +x "$unr_chromium"
}

# kn_unr_task SRC INDEX DEST [PAGE] — the task at array position INDEX of the Mind2Web-Live file SRC, as a
# file of one task; with PAGE (scheme://host[:port]) every key node's content.url points there instead
# (its path and query kept), nothing else changed
kn_unr_task() {
  local src=$1 i=$2 dest=$3 page=${4:-}
  if [ -z "$page" ]; then
    jq -c "[.[$i]]" "$src" >"$dest"
  else
    jq -c --arg p "$page" "[.[$i]] | map(.evaluation |= map(.content.url |= (\$p + (sub(\"^[a-z]+://[^/]*\"; \"\")))))" \
      "$src" >"$dest"
  fi || { kn_fail "unreachable: cannot extract task $i of $src"; return 1; }
}

# unr_run NAME TASKS TASK GOTO_URL [RUN ARGS…] — keynode run of TASK, the agent going to GOTO_URL then
# waiting 30 s (keynode ends the attempt at an unreachable failure, long before); sets unr_rc
unr_run() {
  local name=$1 tasks=$2 task=$3 url=$4
  shift 4
  GOTO_WAIT_S=${GOTO_WAIT_S:-30} "$unr_kn" run --tasks "$tasks" --task "$task" --out "$tmp/$name" \
    --chromium "$unr_chromium" --retries 0 --timeout 90 "$@" \
    --agent "exec node '$unr_repo/tests/agents/goto.mjs' '$url'" >"$tmp/$name.log" 2>&1
  unr_rc=$?
}

unr_expect() { # unr_expect NAME ACTUAL WANTED
  if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi
}

# kn_unr_case NAME TASKS TASK GOTO_URL WANT_ERROR [RUN ARGS…] — the agent's goto to the task's own site
# fails with WANT_ERROR: the attempt is an error with reason unreachable and its evidence, out of the metrics
kn_unr_case() {
  local name=$1 tasks=$2 task=$3 url=$4 want=$5 res
  shift 5
  unr_run "$name" "$tasks" "$task" "$url" "$@"
  res=$tmp/$name/$task/1/result.json
  unr_expect "$name: keynode run exit 1 (an error)" "$unr_rc" 1
  unr_expect "$name: attempt error, run result error/unreachable, the net error at the agent's URL" \
    "$(jq -r '"\(.attempt.status) \(.status) \(.reason) \(.unreachable.error) \(.unreachable.url)"' "$res" 2>/dev/null)" \
    "error error unreachable $want $url"
  unr_expect "$name: the attempt ended at the failure, its reason names it" \
    "$(jq -r '"\(.attempt.end) | \(.attempt.reason)"' "$res" 2>/dev/null)" "unreachable | unreachable: $want at $url"
  unr_expect "$name: left out of the metrics (0 executable, 1 error, metrics over 0 attempts)" \
    "$(jq -r '"\(.attempts.executable) \(.attempts.errors) \(.metrics.attempts)"' "$tmp/$name/summary.json" 2>/dev/null)" "0 1 0"
  unr_expect "$name: summary.json excludes it for unreachable" \
    "$(jq -r '[.excluded[] | select(.status == "error" and (.reason | startswith("unreachable: "))) | .task] | join(",")' \
      "$tmp/$name/summary.json" 2>/dev/null)" "$task"
  [ "$unr_rc" = 1 ] || tail -5 "$tmp/$name.log"
}

# kn_unr_agent_case NAME TASKS TASK GOTO_URL [RUN ARGS…] — a goto that fails on a host the task does not
# name is the agent's business: done, incomplete, no reason, in the metrics
kn_unr_agent_case() {
  local name=$1 tasks=$2 task=$3 url=$4
  shift 4
  GOTO_WAIT_S=1 unr_run "$name" "$tasks" "$task" "$url" "$@"
  unr_expect "$name: keynode run exit 0" "$unr_rc" 0
  unr_expect "$name: done, incomplete, no reason" \
    "$(jq -r '"\(.attempt.status) \(.status) \(.reason)"' "$tmp/$name/$task/1/result.json" 2>/dev/null)" "done incomplete null"
  unr_expect "$name: in the metrics (1 executable, 0 errors)" \
    "$(jq -r '"\(.attempts.executable) \(.attempts.errors) \(.metrics.attempts)"' "$tmp/$name/summary.json" 2>/dev/null)" "1 0 1"
}

# Sourced: the functions only
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi

set -u -o pipefail
kn=${1:?usage: unreachable.sh KEYNODE_BIN REPO_DIR SHARED_DIR}
repo=$(cd "${2:?usage: unreachable.sh KEYNODE_BIN REPO_DIR SHARED_DIR}" && pwd)
shared=${3:?usage: unreachable.sh KEYNODE_BIN REPO_DIR SHARED_DIR}
. "$repo/tests/integration/lib.sh"
kn_lib_init unreachable
export TMPDIR=$tmp
kn_unr_init "$kn" "$repo" || kn_finish
want() { [ -z "${KN_RUN_ONLY:-}" ] || [[ " $KN_RUN_ONLY " == *" $1 "* ]]; }
published=$shared/data/mind2web-live/mind2web-live_test_20241024.json

# Test task 0 as published: its sites are only its key nodes' pages
kn_unr_task "$published" 0 "$tmp/task0.json" || kn_finish
unr_expect "published task 0: no start URL, its site only in content.url" \
  "$(jq -r '.[0] | "\(.index) \(.start_url) \([.evaluation[].content.reference_answer] | join(","))"' "$tmp/task0.json")" \
  "0 null gamestop.,2630"
"$kn" validate --json "$tmp/task0.json" >"$tmp/validate.json"
unr_expect "published task 0: keynode validate names its site" \
  "$(jq -r '.task_sites[0] | "\(.site) \(.sites | join(",")) \(.pages.k1)"' "$tmp/validate.json")" \
  "gamestop.com gamestop.com https://www.gamestop.com/"
site=$(jq -r '.[0].evaluation[0].content.url' "$tmp/task0.json")

if want dns; then
  kn_unr_case dns "$tmp/task0.json" 0 "$site" net::ERR_NAME_NOT_RESOLVED
fi

if want refused || want other; then
  kn_dead_port
  pages=$dead
  kn_unr_task "$published" 0 "$tmp/task0-refused.json" "http://127.0.0.1:$pages" || kn_finish
fi
if want refused; then
  kn_unr_case refused "$tmp/task0-refused.json" 0 "http://127.0.0.1:$pages/" net::ERR_CONNECTION_REFUSED
fi
if want other; then
  kn_dead_port # another port: not a site the task names
  kn_unr_agent_case other "$tmp/task0-refused.json" 0 "http://127.0.0.1:$dead/"
fi

if want tls; then
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
    -subj /CN=localhost >/dev/null 2>&1 || kn_fail "tls: openssl could not make a certificate"
  kn_spawn tls node "$repo/tests/integration/tls-server.mjs" "$tmp/key.pem" "$tmp/cert.pem"
  tls_port_() { sed -n 's/^port=//p' "$tmp/tls.log" | grep .; }
  kn_wait_for "the HTTPS site's port" 20 tls_port_
  tls=$(tls_port_)
  curl -sk "https://127.0.0.1:${tls:-1}/" | grep -q "secure page" && kn_ok "tls: the HTTPS site is up" ||
    kn_fail "tls: no HTTPS site: $(cat "$tmp/tls.log")"
  kn_unr_task "$published" 0 "$tmp/task0-tls.json" "https://127.0.0.1:$tls" || kn_finish
  kn_unr_case tls "$tmp/task0-tls.json" 0 "https://127.0.0.1:$tls/" net::ERR_CERT_AUTHORITY_INVALID
fi

if want plain; then
  kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
  kn_unr_task "$published" 0 "$tmp/task0-plain.json" "https://127.0.0.1:$port" || kn_finish
  kn_unr_case plain "$tmp/task0-plain.json" 0 "https://127.0.0.1:$port/" net::ERR_SSL_PROTOCOL_ERROR
fi

if want server; then
  kn_api_start "$kn" || kn_finish
  api() { curl -s --max-time 30 "${A[@]}" "$@"; }
  expect_tasks=$(jq length "$published")
  unr_expect "server: the published test file loads as is" \
    "$(api -X POST --data-binary @"$published" "$base/api/tasksets?name=m2w-test" | jq -r .tasks)" "$expect_tasks"
  unr_expect "server: /api/tasks: every task has a site, task 0 gamestop.com" \
    "$(api "$base/api/tasks" | jq -r '[.tasks[] | select(.taskset == "m2w-test")] | "\(length) \([.[] | select(.site != null)] | length) \(.[] | select(.id == "0") | .site)"')" \
    "$expect_tasks $expect_tasks gamestop.com"
  unr_expect "server: /api/tasks?site=gamestop.com lists the GameStop tasks" \
    "$(api "$base/api/tasks?site=gamestop.com" | jq -r '[.tasks[].id] | sort | join(",")')" \
    "$(jq -r '[.[] | select(any(.evaluation[]; .content.url | test("^https://www\\.gamestop\\.com/"))) | .index | tostring] | sort | join(",")' "$published")"
  kn_dead_port
  kn_unr_task "$published" 0 "$tmp/task0-server.json" "http://127.0.0.1:$dead" || kn_finish
  KEYNODE_API_TOKEN=$token kn_unr_case server "$tmp/task0-server.json" 0 "http://127.0.0.1:$dead/" \
    net::ERR_CONNECTION_REFUSED --server "$base"
  id=$(jq -r .run "$tmp/server/0/1/result.json" 2>/dev/null)
  unr_expect "server: serve's run result (API): error, unreachable" \
    "$(api "$base/api/runs/$id" | jq -r '"\(.status) \(.reason) \(.unreachable.error)"')" \
    "error unreachable net::ERR_CONNECTION_REFUSED"
fi

kn_finish
