#!/usr/bin/env bash
# freshhome.sh — the "Running the service for a team" commands of docs/service.md, run as a new
# user would, with an empty HOME (no ~/.local/state, no XDG variables, no spool directory) against a
# private PostgreSQL (lib.sh): `keynode migrate --config keynode.yaml`, `keynode serve --config
# keynode.yaml`, `keynode worker --config keynode.yaml` (it starts its own headless Chromium), then the
# curl calls of docs/service.md (load a task set, start a watched run on a browser, answer, read the run) and a
# replay job the worker takes. Checks the spool was created as ~/.local/state/keynode/spool/<database>
# (0700) and that serve and worker stop cleanly on SIGTERM.
#
#   freshhome.sh KEYNODE_BINARY REPO_DIR
#
# ctest: integration.freshhome ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
KN=${1:?usage: freshhome.sh KEYNODE REPO}
REPO=${2:?usage: freshhome.sh KEYNODE REPO}
KN=$(cd "$(dirname "$KN")" && pwd)/$(basename "$KN"); REPO=$(cd "$REPO" && pwd) # the test cds into a work dir
. "$(dirname "$0")/lib.sh"
kn_lib_init freshhome
for t in curl jq; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
kn_pg_start || kn_finish
kn_sites_start "$KN" "$REPO/tests/sites" "$tmp/sites.log" || kn_finish
sport=$port
kn_chromium_start "$tmp/chrome" || kn_finish

HOME=$(mktemp -d "$tmp/home.XXXXXX"); export HOME
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME KEYNODE_SPOOL_DIR STATE_DIRECTORY
work=$tmp/work; mkdir -p "$work"; cd "$work" || kn_finish
P=$(kn_free_port)
printf 'http:\n  listen: "127.0.0.1:%s"\n' "$P" >keynode.yaml
kn_task_at_site "$REPO/tests/sites/tasks.yaml" tasks.yaml "$sport"
# --- the commands of docs/service.md, in order ---
export KEYNODE_DATABASE_URL=$KN_PG_URL
export KEYNODE_API_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$("$KN" migrate --config keynode.yaml 2>&1); rc=$?
[ $rc = 0 ] && kn_ok "keynode migrate --config keynode.yaml: $out" || { kn_fail "migrate: $rc $out"; kn_finish; }
kn_serve_start "$KN" "$tmp/serve.log" --config keynode.yaml || kn_finish
spid=$serve_pid; B=http://127.0.0.1:$P
[ "$api_base" = "$B" ] && kn_ok "keynode serve --config keynode.yaml: serving on $B" || kn_fail "serve on $api_base, not $B"
sp=$(echo "$HOME"/.local/state/keynode/spool/*)
[ -d "$sp" ] && [ "$(stat -c %a "$HOME/.local/state/keynode/spool")" = 700 ] && [ "$(stat -c %a "$sp")" = 700 ] &&
  kn_ok "the spool was created: ~/.local/state/keynode/spool/$(basename "$sp") (0700)" || kn_fail "spool: $(ls -laR "$HOME" | head -20)"
kn_spawn worker "$KN" worker --config keynode.yaml --poll 200
wpid=$kn_pid
# its "worker started" line (it has its configuration and database and enters its loop), not a fixed second
kn_wait_for "the worker's start line" 60 grep -q 'msg="worker started"' "$tmp/worker.log"
kill -0 "$wpid" 2>/dev/null && grep -q 'msg="worker started"' "$tmp/worker.log" &&
  kn_ok "keynode worker --config keynode.yaml: running" || kn_fail "worker exited: $(tail -3 "$tmp/worker.log")"
H=(-H "Authorization: Bearer $KEYNODE_API_TOKEN")
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "${H[@]}" --data-binary @tasks.yaml "$B/api/tasksets?name=shop")
[ "$c" = 201 ] && jq -e '.tasks > 0' "$tmp/b" >/dev/null && kn_ok "curl POST /api/tasksets: $(cat "$tmp/b")" || kn_fail "tasksets: $c $(cat "$tmp/b")"
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "${H[@]}" -d "{\"task\":\"shop:shop-red-runner-cart\",\"browser\":\"$cdp\"}" "$B/api/runs")
RID=$(jq -r .id "$tmp/b")
[ "$c" = 201 ] && jq -e '.attached == true' "$tmp/b" >/dev/null && kn_ok "curl POST /api/runs (watched): $RID attached" || kn_fail "runs: $c $(cat "$tmp/b")"
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "${H[@]}" -d '{"text":"42"}' "$B/api/runs/$RID/answer")
[ "$c" = 200 ] && kn_ok "curl POST /api/runs/{id}/answer" || kn_fail "answer: $c $(cat "$tmp/b")"
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "$B/api/runs/$RID")
[ "$c" = 200 ] && jq -e --arg r "$RID" '.run == $r and .status == "running" and (.events | type) == "array"' "$tmp/b" >/dev/null &&
  kn_ok "curl GET /api/runs/{id}: run result + events" || kn_fail "GET run: $c $(head -c 300 "$tmp/b")"
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "${H[@]}" -X POST "$B/api/runs/$RID/stop")
[ "$c" = 200 ] && kn_ok "stop: $(jq -c '{status, score}' "$tmp/b")" || kn_fail "stop: $c"
# the worker takes a replay job
c=$(curl -s -o "$tmp/b" -w '%{http_code}' "${H[@]}" -d '{"task":"shop:shop-red-runner-cart"}' "$B/api/replays")
replay_status_() { curl -s "$B/api/replays?task=shop:shop-red-runner-cart" | jq -r '.replays[0].status // empty'; }
replay_done_() { [ -n "$(replay_status_)" ]; }
kn_wait_for "the queued replay's result" 60 replay_done_
st=$(replay_status_)
[ "$c" = 202 ] && [ "$st" = passed ] && kn_ok "the worker replayed the queued job: $st" || kn_fail "replay job: $c status=$st $(tail -3 "$tmp/worker.log")"
kill -TERM "$wpid"; wait "$wpid"; rc=$?; kn_forget "$wpid"
[ $rc = 0 ] && kn_ok "worker: SIGTERM exit 0" || kn_fail "worker exit $rc: $(tail -3 "$tmp/worker.log")"
kill -TERM "$spid"; wait "$spid"; rc=$?; kn_forget "$spid"
[ $rc = 0 ] && kn_ok "serve: SIGTERM exit 0" || kn_fail "serve exit $rc: $(tail -3 "$tmp/serve.log")"
kn_finish
