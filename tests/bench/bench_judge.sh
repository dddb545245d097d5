#!/usr/bin/env bash
# bench_judge.sh — the asynchronous judge's benchmark: live runs' event-to-score latency in `keynode serve`
# with an LLM judge that answers in 2 s, side by side with no judge, in one run of this script.
# Each configuration: a fresh serve on a private PostgreSQL (tests/integration/lib.sh), OTHERS
# external runs posting N events each (one at a time per run, all runs at once) while one more run
# posts an event needing a new judgement every 50 ms. Measured per event of the other runs
# (bench_judge.mjs): POST sent → its "event" message with the score on /api/stream, and → the POST's
# answer (durable). "no judge" is semantic.backend offline; "slow judge" is semantic.backend llm
# against llm-server.mjs answering every judgement after 2 s (kn-test:delay).
# Prints one line per configuration and appends them to RESULT_FILE.
#   tests/bench/bench_judge.sh build/services/cli/keynode [RESULT_FILE] [N] [OTHERS]
set -u -o pipefail
KN=${1:?usage: bench_judge.sh KEYNODE [RESULT_FILE] [N] [OTHERS]}
OUT=${2:-/dev/null}
N=${3:-300}
OTHERS=${4:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$REPO/tests/integration/lib.sh"
kn_lib_init bench-judge
for t in curl jq node; do command -v $t >/dev/null || { kn_fail "$t not found"; kn_finish; }; done
"$REPO/tests/integration/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages"; kn_finish; }
kn_pg_start || kn_finish
"$KN" migrate --database "$KN_PG_URL" >/dev/null || { kn_fail "migrate"; kn_finish; }
node "$REPO/tests/integration/llm-server.mjs" >"$tmp/llm.out" 2>"$tmp/llm.err" &
kn_pids+=("$!")
for _ in $(seq 1 200); do grep -qs port "$tmp/llm.out" && break; sleep 0.05; done
L=http://127.0.0.1:$(jq -r .port "$tmp/llm.out")
cat >"$tmp/tasks.yaml" <<'EOF'
tasks:
  - id: judged
    intent: every event a new judgement
    key_nodes:
      - url: { key: q, semantic: "Decide whether are searching for a blue kettle kn-test:delay kn-delay:2000" }
  - id: fast
    intent: url checks only
    key_nodes:
      - url: { include: /a }
      - url: { include: /b }
      - url: { include: /c }
EOF
printf 'semantic: { backend: offline }\n' >"$tmp/offline.yaml"
printf 'semantic:\n  backend: llm\n  llm: { url: "%s", model: bench-judge, timeout_ms: 60000 }\n' "$L" >"$tmp/llm.yaml"
TOKEN=bench$RANDOM
A=(-H "Authorization: Bearer $TOKEN")
machine="$(nproc) cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"

measure() { # KEY NAME CONFIG
  local key=$1 name=$2 cfg=$3 spid J ids=() i
  KEYNODE_DATABASE_URL="$KN_PG_URL" KEYNODE_API_TOKEN=$TOKEN kn_serve_start "$KN" "$tmp/serve.$key.log" \
    --config "$cfg" --listen 127.0.0.1:0 --spool-dir "$tmp/spool.$key" --verdict-wait 1000 || kn_finish
  spid=$serve_pid
  local B=$api_base
  curl -s "${A[@]}" --data-binary @"$tmp/tasks.yaml" "$B/api/tasksets?name=b$key" >/dev/null
  J=$(curl -s "${A[@]}" -d "{\"task\":\"b$key:judged\"}" "$B/api/runs" | jq -r .id)
  for i in $(seq 1 "$OTHERS"); do ids+=("$(curl -s "${A[@]}" -d "{\"task\":\"b$key:fast\"}" "$B/api/runs" | jq -r .id)"); done
  local before; before=$(curl -s "$L/count")
  node "$HERE/bench_judge.mjs" "$B" "$TOKEN" "$J" "$N" "${ids[@]}" >"$tmp/res.$key" 2>"$tmp/err.$key" ||
    { kn_fail "$name: $(tail -3 "$tmp/err.$key")"; }
  local asked=$(( $(curl -s "$L/count") - before ))
  for i in "$J" "${ids[@]}"; do curl -s "${A[@]}" -X POST "$B/api/runs/$i/stop" >/dev/null; done
  kn_stop "$spid"
  local r; r=$(cat "$tmp/res.$key")
  local line="$(date -u +%F) bench_judge $name: event→score on the stream p50 $(jq -r .stream_p50 <<<"$r") ms, p99 $(jq -r .stream_p99 <<<"$r") ms, max $(jq -r .stream_max <<<"$r") ms; POST answer (durable) p50 $(jq -r .post_p50 <<<"$r") ms, p99 $(jq -r .post_p99 <<<"$r") ms ($(jq -r .events <<<"$r") events of $OTHERS runs, $(jq -r .missing <<<"$r") unseen; judged run: $(jq -r .judged_posted <<<"$r") events, $asked judge requests, $(jq -r .judged_scores <<<"$r") verdicts scored during the measurement; $machine)"
  echo "$line"
  echo "$line" >>"$OUT"
}
measure off "no judge" "$tmp/offline.yaml"
measure llm "slow judge (2 s)" "$tmp/llm.yaml"
kn_finish
