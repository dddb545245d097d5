#!/usr/bin/env bash
# guardmatrix.sh — the guard matrix: every way a page can send that tests/sites/guard-matrix/shapes.mjs
# lists (fetch with every method and body type, keepalive, no-cors, CORS, XHR async and sync, forms with
# every method and enctype and their overrides, in frames and popups, sendBeacon with every body, <a ping>,
# sends as a page is left, as a tab closes and as it comes back from the back/forward cache, 307/308,
# GraphQL, JSON-RPC, workers of every kind, GETs of images, frames, scripts…, WebSocket messages from the
# page, to another origin, after a reconnect, from a dedicated and a shared worker), each checked both ways in
# one real Chromium: `keynode watch` of a Playwright agent (agents/guardmatrix.mjs) trying every shape in
# turn, once under a task whose rules hold each shape by its own rule (end_on_guard: false) and once
# under one with no rule any shape meets. The fixture server (guardmatrix-server.mjs: two HTTP/1.1
# origins and an HTTP/2 one) logs every request to /act/… and every WebSocket message on a socket there
# (method WS); a shape passes when held it has one request (or websocket) event with held: true and its
# server log shows no arrival (of its method), and sent it arrives.
# The table (shape, held, sent) is written to $tmp/table.md, to KN_MATRIX_TABLE when set, and with
# KN_UPDATE_RESULTS=1 into tests/bench/RESULTS.md (its section "The guard matrix", one subsection per day and commit).
#   tests/integration/guardmatrix.sh KEYNODE_BIN REPO_DIR
# Env KN_MATRIX_ONLY=REGEX: only the shapes whose name matches (a subset while working on one).
#
# ctest: integration.guardmatrix ARGS=keynode,repo TIMEOUT=360
set -u -o pipefail
kn=${1:?usage: guardmatrix.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: guardmatrix.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init guardmatrix

command -v node >/dev/null 2>&1 || { kn_fail "node not found"; kn_finish; }
command -v openssl >/dev/null 2>&1 || { kn_fail "openssl not found"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "playwright-core could not be installed"; kn_finish; }

# the HTTP/2 origin's key and self-signed certificate (the agent has Chromium ignore certificate errors)
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
  -subj /CN=127.0.0.1 >/dev/null 2>&1 || { kn_fail "openssl could not make a certificate"; kn_finish; }
kn_spawn -o "$tmp/server.out" server \
  node "$here/guardmatrix-server.mjs" "$repo/tests/sites/guard-matrix" "$tmp/server.log" "$tmp/key.pem" "$tmp/cert.pem"
kn_wait_for "the fixture server" 10 grep -q '^ports ' "$tmp/server.out" || { kn_fail "fixture server: $(cat "$tmp/server.out")"; kn_finish; }
read -r _ pa pb ph <"$tmp/server.out"
A=http://127.0.0.1:$pa B=http://127.0.0.1:$pb H=https://127.0.0.1:$ph
node "$here/guardmatrix-tables.mjs" tasks "$A" "$tmp/held.yaml" "$tmp/sent.yaml" || { kn_fail "task files"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish

# watch_run NAME TASKFILE TASK — the agent tries every shape while `keynode watch` watches, until the
# agent opened end.html#NAME (the task's one key node) or 20 s without an event; the server's log of the run
# becomes NAME.log, the trajectory NAME.jsonl
watch_run() {
  local name=$1 file=$2 task=$3 dir=$tmp/$1
  mkdir -p "$dir"
  kn_spawn -o "$dir/agent.log" "agent-$name" \
    env KN_AGENT_GO="$dir/go" node "$here/agents/guardmatrix.mjs" "$cdp" "$A" "$dir/marks" "$B $H $name"
  kn_wait_for "the agent to attach" 20 grep -q '^connected' "$dir/marks" || kn_fail "$name: the agent did not attach"
  kn_spawn -o "$dir/watch.out" -e "$dir/watch.err" "watch-$name" \
    "$kn" watch --browser "$cdp" --tasks "$file" --task "$task" --until finished --until idle:20 --step-limit -1 \
    --run-id "$name" --trajectory "$tmp/$name.jsonl" --out "$dir/result.json"
  kn_wait_for "the watch to attach" 30 grep -q "watching" "$dir/watch.err" ||
    kn_fail "$name: the watch is not watching: $(tail -3 "$dir/watch.err")"
  touch "$dir/go"
  kn_wait_exit "agent-$name" 300 && [ "$kn_rc" = 0 ] || kn_fail "$name: agent failed: $(tail -3 "$dir/agent.log")"
  kn_wait_exit "watch-$name" 60 || kn_fail "$name: the watch did not end"
  # watched to the end: every shape tried is at least one step (its page's goto) before end.html
  local rows
  rows=$(grep -c '^row ' "$dir/marks")
  jq -e --argjson rows "$rows" '.score == 1 and .steps > $rows' "$dir/result.json" >/dev/null 2>&1 ||
    kn_fail "$name: the run did not watch $rows shapes to end.html: $(jq -c '{score, steps}' "$dir/result.json" 2>&1) $(tail -2 "$dir/watch.err")"
  sleep 1 # a request still on its way lands in this run's log
  mv "$tmp/server.log" "$tmp/$name.log" 2>/dev/null || : >"$tmp/$name.log"
}

t0=$SECONDS
watch_run held "$tmp/held.yaml" matrix-held
t_held=$((SECONDS - t0))
watch_run sent "$tmp/sent.yaml" matrix-sent
t_sent=$((SECONDS - t0 - t_held))
echo "held run ${t_held} s, sent run ${t_sent} s"

if node "$here/guardmatrix-tables.mjs" check "$tmp" ${KN_MATRIX_ONLY:+"$KN_MATRIX_ONLY"} >"$tmp/check.out"; then
  kn_ok "every shape held under its rule and sent without it: $(tail -1 "$tmp/check.out")"
else
  grep '^FAIL' "$tmp/check.out"
  kn_fail "the matrix: $(tail -1 "$tmp/check.out")"
fi
[ -n "${KN_MATRIX_TABLE:-}" ] && cp "$tmp/table.md" "$KN_MATRIX_TABLE"
if [ "${KN_UPDATE_RESULTS:-0}" = 1 ]; then
  label="$(date -u +%Y-%m-%d), keynode $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)"
  { echo "### $label"
    echo
    echo "Held run ${t_held} s, sent run ${t_sent} s (one Chromium, load $(cut -d' ' -f1 /proc/loadavg) at the end on $(nproc) cores)."
    echo
    cat "$tmp/table.md"; } |
    python3 "$repo/tests/bench/results_md.py" "$repo/tests/bench/RESULTS.md" \
      "## The guard matrix — \`tests/integration/guardmatrix.sh\` (ctest \`integration.guardmatrix\`)" \
      "$label" \
      "Every way a page can send (tests/sites/guard-matrix/shapes.mjs), held under its own rule and sent without it; the table is the test's own output (KN_UPDATE_RESULTS=1)."
fi
kn_finish
