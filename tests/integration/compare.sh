#!/usr/bin/env bash
# compare.sh — `keynode compare` and `keynode leaderboard` on real `keynode run` batches:
# six tasks of tests/sites (each: open the shop, reach /shop/item.html?id=N), a batch of an agent that
# goes to the item page (agents/goto.mjs, with a usage line in KEYNODE_USAGE_FILE) and two batches of
# an agent that does nothing (`true`). compare finds the difference the agents really have (B won all
# six tasks, exact sign test p = 0.03125 < 0.05) and "no significant difference" between the two
# batches of the same agent; the results carry the environment and the cost; the leaderboard ranks.
# `keynode run --resume` refuses a folder whose attempts ran in another environment (another
# Chromium; another semantic judge) even without summary.json, unless --mix-environments; an LLM
# judge's model and prompt hash are in result.json and summary.json.
# (Agents on the local sites are deterministic: the same agent twice ties on every task.)
#
#   tests/integration/compare.sh KEYNODE_BIN REPO_DIR
#
# Needs node + the pinned npm packages (node/ensure.sh), Chromium, jq: a missing one is a failure.
# Exit: 0 all checks passed, 1 any failed.
#
# 150 s seen under ASan on a loaded machine.
# ctest: integration.compare ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: compare.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: compare.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"

command -v jq >/dev/null 2>&1 || { echo "FAIL jq not found (apt-get install jq)"; exit 1; }
[ -x "$kn" ] || { echo "FAIL no keynode binary at $kn"; exit 1; }
"$repo/tests/integration/node/ensure.sh" --no-chromium || exit 1
kn_lib_init compare
export TMPDIR=$tmp # the browsers' profiles go here
kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish

{
  echo "tasks:"
  for n in 1 2 3 4 5 6; do
    printf '  - id: t%d\n    intent: "Open item %d"\n    start_url: http://127.0.0.1:%s/shop/\n' "$n" "$n" "$port"
    printf '    key_nodes:\n      - url: { exact: "http://127.0.0.1:%s/shop/item.html?id=%d" }\n' "$port" "$n"
  done
} >"$tmp/tasks.yaml"

expect() { # expect NAME ACTUAL WANTED
  if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi
}
batch() { # batch NAME AGENT_NAME CMD
  "$kn" run --tasks "$tmp/tasks.yaml" --out "$tmp/$1" --agent-name "$2" --agent "$3" --parallel 2 \
    --timeout 60 --region test-lab --quiet >"$tmp/$1.log" 2>&1
  expect "$1: keynode run exit 0" $? 0
}
goto_agent='echo "{\"model\":\"toy-1\",\"input_tokens\":120,\"output_tokens\":30,\"usd\":0.0015}" >>"$KEYNODE_USAGE_FILE"
  GOTO_WAIT_S=0 exec node '"$repo/tests/agents/goto.mjs"' "http://127.0.0.1:'"$port"'/shop/item.html?id=${KEYNODE_TASK_ID#t}"'
batch idle idle true
batch idle2 idle true
batch goto1 goto "$goto_agent"

expect "the batches: success 0, 0, 1" \
  "$(for b in idle idle2 goto1; do jq -r .metrics.task_success_rate "$tmp/$b/summary.json"; done | tr '\n' ' ')" "0 0 1 "
expect "result.json environment: region, Chromium version, user agent" \
  "$(jq -r '[.environment.region, (.environment.chromium_version | test("^[0-9]+\\.")), (.environment.user_agent | test("Chrome/"))] | join(" ")' "$tmp/goto1/t3/1/result.json")" \
  "test-lab true true"
expect "summary.json cost: 6 attempts, 0.009 USD, 0.0015 per success" \
  "$(jq -r '[.cost.attempts_with_usage, .cost.usd, .cost.usd_per_success, .agent.model] | join(" ")' "$tmp/goto1/summary.json")" \
  "6 0.009 0.0015 toy-1"

"$kn" compare "$tmp/idle" "$tmp/goto1" --json >"$tmp/c1.json" 2>"$tmp/c1.err"
expect "compare idle goto: exit 0" $? 0
expect "compare idle goto: B won 6 of 6 paired tasks, significant, p = 0.03125" \
  "$(jq -r '[.paired, .sign_test.won, .sign_test.lost, .significant, .sign_test.p_value] | join(" ")' "$tmp/c1.json")" \
  "6 6 0 true 0.03125"
expect "compare idle goto: task_success_rate +1 [+1, +1]" \
  "$(jq -r '.rates.task_success_rate | [.diff, .ci95[0], .ci95[1]] | join(" ")' "$tmp/c1.json")" "1 1 1"
"$kn" compare "$tmp/idle" "$tmp/idle2" >"$tmp/c2.txt" 2>&1
expect "compare idle idle: exit 0" $? 0
grep -q "^verdict: no significant difference" "$tmp/c2.txt" && kn_ok "compare idle idle: no significant difference" ||
  kn_fail "compare idle idle: $(cat "$tmp/c2.txt")"
grep -q "^warning:" "$tmp/c2.txt" && kn_fail "compare idle idle: a warning for the same environment: $(grep warning "$tmp/c2.txt")" ||
  kn_ok "compare idle idle: same environment, same tasks: no warning"

# --resume refuses another environment even when summary.json is missing: the attempts' own
# result.json say where they ran (a Chromium that says another version; nothing is launched)
cp -r "$tmp/idle" "$tmp/resume" && rm -f "$tmp/resume/summary.json" "$tmp/resume/summary.csv"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Chromium 1.2.3.4"; exit 0; }\nexit 1\n' >"$tmp/old-chromium"
chmod +x "$tmp/old-chromium"
resume() { # resume NAME ARGS… — keynode run --resume on $tmp/resume, the idle batch's options
  "$kn" run --tasks "$tmp/tasks.yaml" --out "$tmp/resume" --agent-name idle --agent true --timeout 60 \
    --region test-lab --quiet --resume "${@:2}" >"$tmp/$1.log" 2>&1
}
resume r1 --chromium "$tmp/old-chromium"
expect "resume, no summary.json, another Chromium: refused (exit 2)" "$? $(grep -c 'chromium_version: .*then, "1.2.3.4" now' "$tmp/r1.log")" "2 1"
# an LLM judge: its model and prompt hash in the environment; another judge is another environment
rm -r "$tmp/resume/t1/1"
llm=(--semantic llm --llm-url http://127.0.0.1:9 --llm-model toy-judge --verdict-cache off)
resume r2 "${llm[@]}"
expect "resume with another judge: refused (exit 2), the judge named" "$? $(grep -c 'judge: ' "$tmp/r2.log")" "2 1"
resume r3 "${llm[@]}" --mix-environments
expect "resume --mix-environments: exit 0" $? 0
expect "the LLM judge's model and prompt hash in result.json and summary.json" \
  "$(jq -r '.environment.judge | [.semantic, .model, (.prompt_sha256 | test("^[0-9a-f]{64}$")), .prompt_version] | join(" ")' "$tmp/resume/t1/1/result.json") $(jq -c '.environment.judge == input.environment.judge' "$tmp/resume/t1/1/result.json" "$tmp/resume/summary.json")" \
  "llm toy-judge true 1 true"
node "$repo/tests/integration/schema-validate.mjs" "$repo" run-result "$tmp/resume/t1/1/result.json" >"$tmp/sv1.log" 2>&1 &&
  node "$repo/tests/integration/schema-validate.mjs" "$repo" run-summary "$tmp/resume/summary.json" >"$tmp/sv2.log" 2>&1 &&
  kn_ok "result.json and summary.json with the LLM judge: valid against their schemas" ||
  kn_fail "schemas: $(cat "$tmp/sv1.log" "$tmp/sv2.log")"
expect "summary.json says what was mixed" "$(jq -r '.environment.mixed_with_earlier | test("^judge: ")' "$tmp/resume/summary.json")" true

"$kn" leaderboard "$tmp/idle" "$tmp/goto1" --markdown >"$tmp/lb.md" 2>"$tmp/lb.err"
expect "leaderboard: exit 0" $? 0
expect "leaderboard: goto first, idle second" \
  "$(grep -o '^| [12] | [a-z]* |' "$tmp/lb.md" | tr -d '| ' | tr '\n' ' ')" "1goto 2idle "
kn_finish
