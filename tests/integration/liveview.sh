#!/bin/bash
# liveview.sh — the live view and takeover (services/live/README.md) end to end: a private
# PostgreSQL, `keynode serve` (token), a second serve with http.live_view_public: true, a `keynode
# worker` on a real headless Chromium, and tests/sites/live (a cookie wall over
# the link the task's second step clicks, and a Poke button):
#   - a replay nobody watches: broken at the wall, and the worker never starts a screencast;
#   - a replay watched from the dashboard (liveview.mjs): frames arrive while it runs; with the token
#     Take over holds it, a click on the frame pokes the page (it turns red in the next frames), a click
#     dismisses the wall, Hand back — the replay continues and passes; its report keeps the person's
#     clicks as human steps (replay.takeovers), never among its own steps, and the run's trajectory marks
#     them "human": true;
#   - without the token: the live websocket is refused by the first serve; the public serve lets one
#     watch, and a takeover there is answered 401; its viewers are disconnected after 15 s
#     (http.live_view_max_s);
#   - a run serve itself watches (POST /api/runs with a second Chromium on tests/sites/live/busy.html):
#     its frames reach a viewer of /api/live (live-frames.mjs) as well.
# usage: liveview.sh KEYNODE SOURCE_DIR [OUT_DIR]
#
# ctest: integration.liveview ARGS=keynode,repo,build:artifacts/liveview TIMEOUT=300
kn=$1 src=$2 out=${3:-}
. "$(dirname "$0")/lib.sh"
kn_lib_init liveview
[ -n "$out" ] && mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
kn_api_start "$kn" || kn_finish
printf 'database: { url: "%s" }\nhttp: { live_view_public: true, live_view_max_s: 15 }\n' "$KN_PG_URL" >"$tmp/public.yaml"
KEYNODE_API_TOKEN=$token kn_serve_start "$kn" "$tmp/serve-public.log" --config "$tmp/public.yaml" \
  --listen 127.0.0.1:0 --spool-dir "$tmp/spool-public" || kn_finish
public=$api_base
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
kn_task_at_site "$src/tests/sites/live/tasks.yaml" "$tmp/tasks.yaml" "$port"
code=$(curl -s -o "$tmp/ts.json" -w '%{http_code}' "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=live")
[ "$code" = 201 ] || { kn_fail "taskset upload: $code $(cat "$tmp/ts.json")"; kn_finish; }
printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$tmp/keynode.yaml"
kn_spawn worker "$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200 --element-timeout 3000 \
  --settle-timeout 20000 --step-delay 1000
worker_pid=$kn_pid

# wait_results N — until N replay results are stored (bounded: 180 s)
wait_results() {
  kn_wait_sql 180 "SELECT count(*) >= $1 FROM replay_results" t ||
    kn_fail "replay $1: no result (worker: $(tail -3 "$tmp/worker.log"))"
  row=$(kn_psql "SELECT json_build_object('status', status, 'report', report) FROM replay_results ORDER BY id DESC LIMIT 1")
}

# 1. nobody watches: no screencast, and the wall breaks the replay
code=$(curl -s -o "$tmp/rp.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' --data '{"task": "live-wall"}' "$base/api/replays")
[ "$code" = 202 ] || kn_fail "POST /api/replays: $code $(cat "$tmp/rp.json")"
wait_results 1
jq -e '.status == "broken" and (.report.replay.takeovers == null)' <<<"$row" >/dev/null &&
  kn_ok "unwatched replay: broken at the cookie wall ($(jq -r '.report.broken.reason' <<<"$row"))" ||
  kn_fail "unwatched replay: $(jq -c '{status, broken: (.report.broken // {} | del(.dom_excerpt))}' <<<"$row")"
grep -q 'msg="screencast started"' "$tmp/worker.log" &&
  kn_fail "a screencast started while nobody watched" || kn_ok "nobody watched: no Page.startScreencast"

# 2. watched and taken over from the dashboard (the page enqueues the replay itself)
node "$here/liveview.mjs" "$cdp" "$base" "$token" "$public" "${out:-$tmp}" >"$tmp/page.out" 2>"$tmp/page.err"
page_rc=$?
while read -r l; do case $l in ok*) kn_ok "${l#ok   }";; FAIL*) kn_fail "${l#FAIL }";; esac; done <"$tmp/page.out"
[ "$page_rc" = 0 ] || kn_fail "liveview.mjs: exit $page_rc $(tail -5 "$tmp/page.err")"
wait_results 2
jq -e '.status == "passed" and (.report.replay.takeovers | length) == 1
   and ([.report.replay.takeovers[0].actions[] | select(.type == "click" and .human == true)] | length) >= 2
   and .report.replay.takeovers[0].before_step >= 2
   and (.report.replay.steps | length) == 3' <<<"$row" >/dev/null &&
  kn_ok "taken over: the replay waited, went on and passed; the person's clicks are human steps beside its 3 steps" ||
  kn_fail "watched replay: $(jq -c '{status, broken: (.report.broken // {} | del(.dom_excerpt)), takeovers: .report.replay.takeovers, steps: (.report.replay.steps | length)}' <<<"$row")"
rrun=$(jq -r '.report.run' <<<"$row")
human=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$rrun' AND line->>'type' = 'click' AND (line->>'human')::boolean")
replayed=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$rrun' AND line->>'type' = 'click' AND line->>'selector' = '#next' AND line->>'human' IS NULL")
[ "${human:-0}" -ge 2 ] && [ "${replayed:-0}" -ge 1 ] &&
  kn_ok "the run's trajectory marks the person's clicks \"human\": true ($human), the replay's own click not" ||
  kn_fail "replay trajectory: human clicks $human, replay's #next $replayed"
grep -q 'msg="screencast started"' "$tmp/worker.log" && kn_ok "the worker started the screencast once watched" ||
  kn_fail "no screencast in the worker log"
grep -q 'msg="takeover" run=' "$tmp/serve.log" && kn_ok "the takeover is logged by serve" || kn_fail "no takeover log line"
grep -q 'msg="takeover refused"' "$tmp/serve-public.log" && kn_ok "the refused takeover is logged" ||
  kn_fail "no refused-takeover log line"
# 3. a run serve watches (POST /api/runs with a browser showing the busy page): watched too
mkdir -p "$tmp/c2/profile"
kn_spawn -o "$tmp/c2/chromium.log" c2/chromium "$kn_chromium" --headless --no-sandbox --disable-gpu --disable-quic \
  --no-first-run --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/c2/profile" --remote-debugging-port=0 "http://127.0.0.1:$port/live/busy.html"
kn_wait_for "the second Chromium's DevToolsActivePort" 20 test -s "$tmp/c2/profile/DevToolsActivePort"
cdp2=http://127.0.0.1:$(head -1 "$tmp/c2/profile/DevToolsActivePort")
code=$(curl -s -o "$tmp/run.json" -w '%{http_code}' "${A[@]}" -H 'Content-Type: application/json' \
  --data "{\"task\": \"live-busy\", \"browser\": \"$cdp2\", \"until\": \"idle:120\"}" "$base/api/runs")
rid=$(jq -r .id "$tmp/run.json" 2>/dev/null)
[ "$code" = 201 ] || kn_fail "POST /api/runs: $code $(cat "$tmp/run.json")"
node "$here/live-frames.mjs" "${base/http/ws}" "$rid" "$token" 2 90 >"$tmp/frames.json" 2>"$tmp/frames.err" &&
  jq -e '.frames >= 2 and .w > 0 and (.states | index("running"))' "$tmp/frames.json" >/dev/null &&
  kn_ok "a run serve watches: its page's frames and state reach a viewer ($(jq -c . "$tmp/frames.json"))" ||
  kn_fail "run serve watches: $(cat "$tmp/frames.json" "$tmp/frames.err")"
curl -s -o /dev/null "${A[@]}" -X POST "$base/api/runs/$rid/stop"
kill -0 "$serve_pid" 2>/dev/null && kill -0 "$worker_pid" 2>/dev/null && kn_ok "serve and worker still running" ||
  kn_fail "a process died"
kn_finish
