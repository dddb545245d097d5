#!/usr/bin/env bash
# bench_api.sh — `keynode serve` under wrk on a private PostgreSQL cluster (tests/integration/lib.sh):
#   GET  /api/runs/{id}          of a finished run (served from the in-memory cache of finished runs)
#   GET  /api/tasks              (a PostgreSQL query per request, for comparison)
#   POST /api/runs/{id}/events   one event per request into an external run (evaluated, sent to
#                                kn_ingest, the stream and the metrics)
# Prints req/s and p99 latency per case and appends one line per case to RESULT_FILE.
#   tests/bench/bench_api.sh build/services/cli/keynode [RESULT_FILE] [SECONDS] [CONNECTIONS]
set -u -o pipefail
KN=${1:?usage: bench_api.sh KEYNODE [RESULT_FILE] [SECONDS] [CONNECTIONS]}
OUT=${2:-/dev/null}
SECS=${3:-10}
CONNS=${4:-32}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/tests/integration/lib.sh"
kn_lib_init bench-api
command -v wrk >/dev/null || { kn_fail "wrk not found (apt-get install wrk)"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >/dev/null || { kn_fail "migrate"; kn_finish; }
TOKEN=bench$RANDOM
P=$(kn_free_port)
KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN "$KN" serve --listen "127.0.0.1:$P" \
  --spool-dir "$tmp/spool" 2>"$tmp/serve.err" &
spid=$!; kn_pids+=("$spid")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$P/healthz" && break; sleep 0.05; done
B=http://127.0.0.1:$P
A=(-H "Authorization: Bearer $TOKEN")
curl -s "${A[@]}" --data-binary @"$REPO/tests/sites/tasks.yaml" "$B/api/tasksets?name=sites" >/dev/null
RID=$(curl -s "${A[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs" | jq -r .id)
for i in 1 2 3; do
  curl -s "${A[@]}" -d "{\"t\":$i,\"type\":\"navigate\",\"url\":\"http://127.0.0.1:8100/shop/search.html?q=red\"}" "$B/api/runs/$RID/events" >/dev/null
done
curl -s "${A[@]}" -X POST "$B/api/runs/$RID/stop" >/dev/null
for _ in $(seq 1 50); do curl -s "$B/api/runs/$RID" | jq -e '.ended != null' >/dev/null && break; sleep 0.1; done
XID=$(curl -s "${A[@]}" -d '{"task":"shop-red-runner-cart"}' "$B/api/runs" | jq -r .id)

machine="$(nproc) cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
bench() { # NAME wrk-args…
  local name=$1; shift
  wrk -t2 -c"$CONNS" -d"${SECS}s" --latency "$@" >"$tmp/wrk.out" 2>&1
  local rps p99 non2xx
  rps=$(sed -n 's/^Requests\/sec: *//p' "$tmp/wrk.out")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk.out")
  non2xx=$(sed -n 's/.*Non-2xx or 3xx responses: *//p' "$tmp/wrk.out")
  local line="$(date -u +%F) bench_api $name: ${rps} req/s, p99 ${p99}, non-2xx ${non2xx:-0} (wrk -t2 -c$CONNS ${SECS}s; $machine)"
  echo "$line"
  echo "$line" >>"$OUT"
}
bench "GET /api/runs/{id} (finished, cached)" "$B/api/runs/$RID"
bench "GET /api/tasks (PostgreSQL per request)" "$B/api/tasks"
KN_BENCH_PATH="/api/runs/$XID/events" KN_BENCH_TOKEN=$TOKEN bench "POST /api/runs/{id}/events" -s "$HERE/bench_api_post.lua" "$B"
n=$(curl -s "$B/metrics" | sed -n 's/^keynode_events_total //p')
curl -s "${A[@]}" -X POST "$B/api/runs/$XID/stop" >/dev/null
kill -TERM "$spid"; wait "$spid"; kn_forget "$spid"
stored=$(kn_psql "SELECT count(*) FROM events WHERE run_id = '$XID'")
echo "events evaluated: $n; stored for the POST run after shutdown: $stored"
echo "$(date -u +%F) bench_api: POST run events stored after shutdown: $stored (evaluated in total: $n)" >>"$OUT"
kn_finish
