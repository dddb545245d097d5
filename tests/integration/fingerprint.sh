#!/usr/bin/env bash
# fingerprint.sh — which judge a score was made by, and how much of it rests on a judge, with the real
# binary: the bundled runs (tests/data/runs/m2w-test, the public conformance set) scored with the offline
# judge and with a fake LLM judge (lib.sh kn_judge_start: llm-server.mjs on 127.0.0.1). Checks that every
# result and the --json top level carry the judge fingerprint, that the two judges' fingerprints differ
# (backend, model, prompt_sha256) and each is what it should be; that the m2w-test summary's judged
# counts and deterministic floor are the hand-worked values below; that `keynode compare` and
# `keynode leaderboard` warn (stderr and --json) on folders judged differently and not on folders judged
# alike, and say "unknown" (no crash) for results written before fingerprints; and that `keynode serve`
# keeps the fingerprint of a stored run in its result and its judge column, and a rescore with another
# judge stores and answers that judge's fingerprint. Every process is ours and stopped by PID (lib.sh).
# usage: fingerprint.sh KEYNODE_BIN REPO SHARED
#
# ctest: integration.fingerprint ARGS=keynode,repo,shared TIMEOUT=180
set -uo pipefail
kn=$1 repo=$2 shared=$3
. "$(dirname "$0")/lib.sh"
kn_lib_init fingerprint
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
kn_judge_start || kn_finish
m2w=$shared/data/mind2web-live/mind2web-live_test_20241024.json
runs=$repo/tests/data/runs/m2w-test
offline_sha=61f2acdfb3eadd15c0e1db462edfe5cfc755af94c62cbbefcedca0b6ab302740 # SHA-256 of "keynode offline judge 1"

# expect DESC GOT WANT
expect() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

# --- score: the fingerprint on every result, different for the two judges
mkdir -p "$tmp/res-off" "$tmp/res-llm"
"$kn" score --tasks "$m2w" --runs "$runs" --json --out "$tmp/res-off" >"$tmp/off.json" 2>"$tmp/off.err"
"$kn" score --tasks "$m2w" --runs "$runs" --json --out "$tmp/res-llm" "${judge_args[@]}" >"$tmp/llm.json" 2>"$tmp/llm.err"
expect "offline: every result and the top level carry the offline fingerprint" \
  "$(jq -r '.judge as $j | [$j.backend, ($j.model == null), $j.prompt_sha256, $j.threshold, $j.mode,
             ([.results[] | .judge == $j] | all)] | map(tostring) | join(" ")' "$tmp/off.json")" \
  "offline true $offline_sha 0.7 default true"
expect "llm: every result and the top level carry the LLM judge's fingerprint" \
  "$(jq -r '.judge as $j | [$j.backend, $j.model, ($j.prompt_sha256 | test("^[0-9a-f]{64}$")),
             ([.results[] | .judge == $j] | all)] | map(tostring) | join(" ")' "$tmp/llm.json")" \
  "llm fake-judge true true"
expect "the two fingerprints differ in backend, model and prompt_sha256 only" \
  "$(jq -rn --slurpfile a "$tmp/off.json" --slurpfile b "$tmp/llm.json" \
      '[$a[0].judge | keys[] as $k | select($a[0].judge[$k] != $b[0].judge[$k]) | $k] | join(",")')" \
  "backend,model,prompt_sha256"
expect "--out files carry the same fingerprint" \
  "$(jq -s -r '[.[] | .judge.backend] | unique | join(",")' "$tmp"/res-off/*.json) $(jq -s -r '[.[] | .judge.backend] | unique | join(",")' "$tmp"/res-llm/*.json)" \
  "offline llm"
for j in off llm; do
  "$kn" score --tasks "$shared/conformance/tasks.json" --runs "$shared/conformance/runs" --json \
    $([ $j = llm ] && echo "${judge_args[@]}") >"$tmp/conf-$j.json" 2>/dev/null
done
expect "conformance (no semantic key node): fingerprints present, nothing judged, floor = success rate" \
  "$(jq -r '[.judge.backend, ([.results[].judged | length] | add), .summary.judged_key_nodes,
             (.summary.deterministic_floor == .summary.task_success_rate)] | join(" ")' "$tmp/conf-off.json") $(jq -r .judge.backend "$tmp/conf-llm.json")" \
  "offline 0 0 true llm"

# --- judged and the deterministic floor, worked by hand for m2w-test with the offline judge:
# 12 runs, 5 successes (3, 15, 18, 20, 30). Run 15's k2 is url_semantic_match on `search`
# ("mens winter coat"), reached through the judge: judged. Run 70's k2 and k3 (url_semantic_match on
# find_desc and find_loc) are judged too, but run 70 misses k4 and k5. Every other reached node is
# include/exact matching. So judged_key_nodes 3, judged_successes 1, judged_success_share 1/5 = 0.2,
# deterministic_floor (5 - 1) / 12 = 0.3333…, task_success_rate 5/12.
expect "m2w-test offline: run 15 judged [k2], run 70 judged [k2,k3], no other" \
  "$(jq -r '[.results[] | select(.judged | length > 0) | "\(.task):\(.judged | join("+"))"] | join(" ")' "$tmp/off.json")" \
  "15:k2 70:k2+k3"
expect "m2w-test offline summary: judged 3, 1 of 5 successes judged, share 0.2, floor 4/12" \
  "$(jq -r '.summary | [.judged_key_nodes, .judged_successes, .judged_success_share,
             (.deterministic_floor - 4/12 | fabs < 1e-12), (.task_success_rate - 5/12 | fabs < 1e-12)] | join(" ")' "$tmp/off.json")" \
  "3 1 0.2 true true"
# with the fake judge (0.93 for every rule) the floor stays: it counts no judged success whatever the judge
expect "m2w-test llm: the floor does not depend on the judge (4/12)" \
  "$(jq -r '.summary.deterministic_floor - 4/12 | fabs < 1e-12' "$tmp/llm.json")" true

# --- compare and leaderboard: run folders laid out as `keynode run` writes them (DIR/<task>/1/result.json
# with an attempt), from the results above
folder() { # folder DIR RESULTS_DIR [JQ_FILTER]
  local f t
  for f in "$2"/*.json; do
    t=$(jq -r .task "$f")
    mkdir -p "$1/$t/1"
    jq -c "${3:-.} | .attempt = {status: \"done\"}" "$f" >"$1/$t/1/result.json"
  done
}
folder "$tmp/A" "$tmp/res-off"
folder "$tmp/A2" "$tmp/res-off"
folder "$tmp/B" "$tmp/res-llm"
folder "$tmp/OLD" "$tmp/res-off" 'del(.judge, .judged)'
"$kn" compare "$tmp/A" "$tmp/A2" --json >"$tmp/same.json" 2>"$tmp/same.err"
expect "compare, judged alike: exit 0, no judge warning on stderr or in --json, same true" \
  "$? $(grep -c judge "$tmp/same.err") $(jq -r '[(.warnings | map(select(test("judge"))) | length), .judge.same] | join(" ")' "$tmp/same.json")" \
  "0 0 0 true"
"$kn" compare "$tmp/A" "$tmp/B" --json >"$tmp/diff.json" 2>"$tmp/diff.err"
expect "compare, judged differently: the fields named on stderr and in --json" \
  "$? $(grep -c 'judged differently: backend, model, prompt_sha256 differ' "$tmp/diff.err") $(jq -r '[.judge.same, .judge.differs, (.warnings | map(select(test("^judged differently: backend, model, prompt_sha256"))) | length)] | join(" ")' "$tmp/diff.json")" \
  "0 1 false backend, model, prompt_sha256 1"
"$kn" compare "$tmp/A" "$tmp/B" >"$tmp/diff.txt" 2>/dev/null
expect "compare's table says it too" "$(grep -c '^warning: judged differently' "$tmp/diff.txt")" 1
"$kn" compare "$tmp/OLD" "$tmp/A" --json >"$tmp/old.json" 2>"$tmp/old.err"
expect "compare, results without a fingerprint: unknown, no crash" \
  "$? $(grep -c 'unknown' "$tmp/old.err") $(jq -r '[.judge.same, .judge.differs, (.judge.a == null)] | join(" ")' "$tmp/old.json")" \
  "0 1  unknown true"
"$kn" leaderboard "$tmp/A" "$tmp/B" "$tmp/OLD" --json >"$tmp/lb.json" 2>"$tmp/lb.err"
# (floor and success rate as twelfths: OLD's results do not list judged key nodes, so its floor is
# unknown, null, and judged_unknown counts them: 12)
expect "leaderboard --json: floor beside the success rate, judge_differs per row" \
  "$? $(jq -r 'map("\(.dir | split("/") | last):\(if .deterministic_floor == null then "null" else .deterministic_floor * 12 | round end):\(.task_success_rate * 12 | round):\(.judged_unknown // 0):\(.judge_differs)") | join(" ")' "$tmp/lb.json")" \
  "0 A:4:5:0: B:4:5:0:backend, model, prompt_sha256 OLD:null:5:12:unknown"
expect "leaderboard warns on stderr for B (differently) and OLD (unknown)" \
  "$(grep -c "B was judged differently from $tmp/A: backend, model, prompt_sha256 differ" "$tmp/lb.err") $(grep -c "judge of $tmp/OLD or $tmp/A is unknown" "$tmp/lb.err")" "1 1"
"$kn" leaderboard "$tmp/A" "$tmp/A2" >"$tmp/lb.md" 2>"$tmp/lb2.err"
expect "leaderboard table: a deterministic floor column, no judge warning for folders judged alike" \
  "$(grep -c 'Deterministic floor (%)' "$tmp/lb.md") $(grep -c '| 33.3 |' "$tmp/lb.md") $(grep -c judge "$tmp/lb2.err")" "1 2 0"

# --- serve: a stored run keeps its fingerprint (result and column); a rescore by another judge stores its own
kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }
token="kn-$RANDOM$RANDOM"
serve() { # serve CONFIG
  KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
    kn_serve_start "$kn" "$tmp/serve.log" --config "$1" --listen 127.0.0.1:0 --spool-dir "$tmp/spool"
}
api() { curl -s --max-time 30 -H "Authorization: Bearer $token" "$@"; }
printf 'semantic: { backend: offline }\n' >"$tmp/offline.yaml"
printf 'semantic: { backend: llm, llm: { url: "%s", model: fake-judge, timeout_ms: 2000 } }\n' "$judge_url" >"$tmp/llm.yaml"
kn_judged_runs "$tmp/tasks.yaml" "$tmp/judged"
serve "$tmp/offline.yaml" || kn_finish
api -X POST --data-binary @"$tmp/tasks.yaml" "$api_base/api/tasksets?name=j" >/dev/null
id=$(api -X POST -d '{"task": "j:judged"}' "$api_base/api/runs" | jq -r .id)
api -X POST -d '[{"t": 0, "type": "navigate", "url": "http://s.test/done", "how": "goto"}, {"t": 1, "type": "answer", "text": "the answer is forty-two"}]' \
  "$api_base/api/runs/$id/events" >/dev/null
api -X POST "$api_base/api/runs/$id/stop" >/dev/null
api "$api_base/api/runs/$id" >"$tmp/run.json"
expect "serve: GET /api/runs/{id} has the offline fingerprint and the judged list" \
  "$(jq -r '[.judge.backend, .judge.prompt_sha256, (.judged | type)] | join(" ")' "$tmp/run.json")" \
  "offline $offline_sha array"
expect "serve: the run's judge column holds the same fingerprint" \
  "$(kn_psql "SELECT judge = '$(jq -c .judge "$tmp/run.json")'::jsonb FROM runs WHERE id = '$id'")" t
kn_stop "$serve_pid"
serve "$tmp/llm.yaml" || kn_finish
api -X POST -d '{"taskset": "j", "from": 1, "to": 1}' "$api_base/api/rescore" >"$tmp/rescore.json"
expect "serve: a rescore by the LLM judge answers its fingerprint and the judged node" \
  "$(jq -r --arg id "$id" '.runs[] | select(.run == $id) | .from | [.judge.backend, .judge.model, (.judged | join(","))] | join(" ")' "$tmp/rescore.json")" \
  "llm fake-judge answer"
expect "serve: the rescore's judge column is the LLM's, the run's own stays offline" \
  "$(kn_psql "SELECT (SELECT judge->>'backend' FROM rescores WHERE run_id = '$id') || ' ' || (SELECT judge->>'backend' FROM runs WHERE id = '$id')")" \
  "llm offline"
kn_finish
