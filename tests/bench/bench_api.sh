#!/usr/bin/env bash
# bench_api.sh — `keynode serve` under wrk on a private PostgreSQL cluster (tests/integration/lib.sh):
#   GET  /api/runs/{id}          of a finished run (served from the in-memory cache of finished runs)
#   GET  /api/tasks              (a cached listing, invalidated on change; a query per request before)
#   POST /api/runs/{id}/events   one event per request into an external run (evaluated, sent to
#                                kn_ingest, the stream and the metrics)
# Then, under load: while 8 external runs stream events (tests/integration/event-poster.mjs,
# batches of 20, as fast as they are acknowledged), wrk on GET /api/tasks and GET /api/runs/{id} of a
# finished run, and /healthz p99 (wrk -c1) while wrk -c32 saturates GET /api/tasks. With BASELINE (an
# older keynode binary) only the load part runs, for BASELINE then KEYNODE, side by side in one run
# on one PostgreSQL cluster.
# Prints req/s and p99 latency per case and appends one line per case to RESULT_FILE.
#   tests/bench/bench_api.sh build/services/cli/keynode [RESULT_FILE] [SECONDS] [CONNECTIONS] [BASELINE]
# wrk: apt-get install wrk (Debian).
set -u -o pipefail
KN=${1:?usage: bench_api.sh KEYNODE [RESULT_FILE] [SECONDS] [CONNECTIONS] [BASELINE]}
OUT=${2:-/dev/null}
SECS=${3:-10}
CONNS=${4:-32}
BASELINE=${5:-}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/tests/integration/lib.sh"
kn_lib_init bench-api
# wrk is a Debian package: installed here when missing and allowed (root), else a clear error
if ! command -v wrk >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null 2>&1
fi
command -v wrk >/dev/null || { kn_fail "wrk not found (apt-get install wrk)"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >/dev/null || { kn_fail "migrate"; kn_finish; }
TOKEN=bench$RANDOM
A=(-H "Authorization: Bearer $TOKEN")
# serve_up BINARY — start serve on a free port; sets spid, B
serve_up() {
  P=$(kn_free_port)
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN "$1" serve --listen "127.0.0.1:$P" \
    --spool-dir "$tmp/spool" 2>"$tmp/serve.err" &
  spid=$!; kn_pids+=("$spid")
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$P/healthz" && break; sleep 0.05; done
  B=http://127.0.0.1:$P
}
serve_down() { kill -TERM "$spid"; wait "$spid"; kn_forget "$spid"; }
# finished_run — upload the sites' tasks, run one external run to its end; sets RID
finished_run() {
  curl -s "${A[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites" >/dev/null
  RID=$(curl -s "${A[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs" | jq -r .id)
  for i in 1 2 3; do
    curl -s "${A[@]}" -d "{\"t\":$i,\"type\":\"navigate\",\"url\":\"http://127.0.0.1:8100/shop/search.html?q=red\"}" "$B/api/runs/$RID/events" >/dev/null
  done
  curl -s "${A[@]}" -X POST "$B/api/runs/$RID/stop" >/dev/null
  for _ in $(seq 1 50); do curl -s "$B/api/runs/$RID" | jq -e '.ended != null' >/dev/null && break; sleep 0.1; done
}
machine="$(nproc) cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
bench() { # NAME wrk-args…
  local name=$1 t=2; shift
  [ "$CONNS" -lt 2 ] && t=1
  machine="$(nproc) cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
  wrk -t$t -c"$CONNS" -d"${SECS}s" --latency "$@" >"$tmp/wrk.out" 2>&1
  local rps p99 non2xx
  rps=$(sed -n 's/^Requests\/sec: *//p' "$tmp/wrk.out")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk.out")
  non2xx=$(sed -n 's/.*Non-2xx or 3xx responses: *//p' "$tmp/wrk.out")
  local line="$(date -u +%F) bench_api ${LABEL:+$LABEL }$name: ${rps} req/s, p99 ${p99}, non-2xx ${non2xx:-0} (wrk -t$t -c$CONNS ${SECS}s; $machine)"
  echo "$line"
  echo "$line" >>"$OUT"
}
# load BINARY LABEL — the issue-17 cases under 8 event streams
load() {
  LABEL=$2
  serve_up "$1"
  finished_run
  rm -f "$tmp/stop"; echo "$B" >"$tmp/base"
  local posters=() i
  for i in $(seq 1 8); do
    node "$REPO/tests/integration/event-poster.mjs" "$B" "$tmp/base" "$TOKEN" shop-red-runner-cart \
      "$tmp/acks.$i" "$tmp/stop" 20 >/dev/null 2>&1 &
    posters+=($!); kn_pids+=($!)
  done
  for _ in $(seq 1 100); do [ "$(cat "$tmp"/acks.* 2>/dev/null | grep -c '^ack')" -ge 8 ] && break; sleep 0.1; done
  local e0; e0=$(curl -s "$B/metrics" | sed -n 's/^keynode_events_total //p')
  bench "GET /api/tasks, 8 runs streaming" "$B/api/tasks"
  bench "GET /api/runs/{id}, 8 runs streaming" "$B/api/runs/$RID"
  wrk -t1 -c"$CONNS" -d"${SECS}s" "$B/api/tasks" >/dev/null 2>&1 &
  local sat=$!
  CONNS_SAVED=$CONNS; CONNS=1
  bench "/healthz (1 connection) while wrk -c$CONNS_SAVED saturates GET /api/tasks, 8 runs streaming" "$B/healthz"
  CONNS=$CONNS_SAVED
  wait "$sat"
  local e1; e1=$(curl -s "$B/metrics" | sed -n 's/^keynode_events_total //p')
  # inside the server (request read → answer headers written), from its own histogram: how much of
  # the latency wrk sees is the server's work
  curl -s "$B/metrics" >"$tmp/metrics.txt"
  local route line
  for route in "GET /api/tasks" "GET /api/runs/{id}" "GET /healthz"; do
    line=$(awk -v r="$route" '
      index($0, "keynode_api_request_duration_seconds_bucket{route=\"" r "\",le=\"0.005\"}") == 1 { b = $NF }
      index($0, "keynode_api_request_duration_seconds_bucket{route=\"" r "\",le=\"0.001\"}") == 1 { a = $NF }
      index($0, "keynode_api_request_duration_seconds_count{route=\"" r "\"}") == 1 { n = $NF }
      END { if (n > 0) printf "%d requests, %.2f%% answered within 1 ms, %.3f%% within 5 ms", n, 100 * a / n, 100 * b / n }' "$tmp/metrics.txt")
    line="$(date -u +%F) bench_api ${LABEL:+$LABEL }inside the server, $route: $line"
    echo "$line"; echo "$line" >>"$OUT"
  done
  touch "$tmp/stop"
  for i in "${posters[@]}"; do wait "$i"; kn_forget "$i"; done
  local line="$(date -u +%F) bench_api ${LABEL:+$LABEL }events evaluated meanwhile: $((e1 - e0)) by 8 streams"
  echo "$line"; echo "$line" >>"$OUT"
  rm -f "$tmp"/acks.*
  serve_down
  LABEL=
}
if [ -n "$BASELINE" ]; then
  load "$BASELINE" "before"
  load "$KN" "after"
  kn_finish
fi
serve_up "$KN"
finished_run
XID=$(curl -s "${A[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs" | jq -r .id)

bench "GET /api/runs/{id} (finished, cached)" "$B/api/runs/$RID"
bench "GET /api/tasks (cached; PostgreSQL per request before issue 17)" "$B/api/tasks"
KN_BENCH_PATH="/api/runs/$XID/events" KN_BENCH_TOKEN=$TOKEN bench "POST /api/runs/{id}/events" -s "$HERE/bench_api_post.lua" "$B"
n=$(curl -s "$B/metrics" | sed -n 's/^keynode_events_total //p')
curl -s "${A[@]}" -X POST "$B/api/runs/$XID/stop" >/dev/null
serve_down
stored=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$XID'")
echo "events evaluated: $n; stored for the POST run after shutdown: $stored"
echo "$(date -u +%F) bench_api: POST run events stored after shutdown: $stored (evaluated in total: $n)" >>"$OUT"
load "$KN" ""
kn_finish
