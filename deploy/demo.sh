#!/usr/bin/env bash
# demo.sh — keynode's main job end to end on the embedded default: serve the local test sites,
# start a private headless Chromium per task, let `keynode replay` act as the agent on its own CDP
# connection while `keynode watch` scores it live, then re-score the recorded trajectories offline.
# usage: deploy/demo.sh KEYNODE_BIN [TASK…]   (called by `deploy/quickstart.sh demo`; ctest runs it too)
# exit: 0 when every task was finished live and every trajectory scored
set -euo pipefail
kn=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
tasks_src=$here/tests/sites/tasks.yaml
chromium=/usr/lib/chromium/chromium
demo_tasks=("$@")
[ ${#demo_tasks[@]} -gt 0 ] || demo_tasks=(shop-red-runner-cart forum-new-post spa-kb-damaged-refund popup-deal-code)

tmp=$(mktemp -d /tmp/keynode-demo.XXXXXX)
sites_pid="" chrome_pid="" watch_pid=""
cleanup() {
  for p in $watch_pid $chrome_pid $sites_pid; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # a killed Chromium's children may still be writing their profile for a moment
  rm -rf "$tmp" 2>/dev/null || { sleep 2; rm -rf "$tmp" 2>/dev/null || true; }
}
trap cleanup EXIT INT TERM

"$kn" sites --dir "$here/tests/sites" --port 0 >"$tmp/sites.log" 2>&1 &
sites_pid=$!
for _ in $(seq 100); do grep -q 'url=http' "$tmp/sites.log" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o 'url=http://127.0.0.1:[0-9]*' "$tmp/sites.log" | grep -o '[0-9]*$') ||
  { echo "demo: keynode sites did not start:"; cat "$tmp/sites.log"; exit 2; }
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$tasks_src" >"$tmp/tasks.yaml"
echo "== local sites on http://127.0.0.1:$port/ (tests/sites), tasks from tests/sites/tasks.yaml"
mkdir -p "$tmp/runs"
unfinished=0

start_browser() { # start_browser PROFILE_DIR: a fresh profile each time (a fresh browser context)
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$1" --remote-debugging-port=0 about:blank >"$tmp/chrome.log" 2>&1 &
  chrome_pid=$!
  for _ in $(seq 200); do [ -s "$1/DevToolsActivePort" ] && return 0; sleep 0.05; done
  echo "demo: Chromium did not start:"; cat "$tmp/chrome.log"; exit 2
}

for task in "${demo_tasks[@]}"; do
  echo
  echo "== task $task: keynode replay drives a fresh headless Chromium, keynode watch scores it live"
  start_browser "$tmp/profile-$task"
  : >"$tmp/answers.txt"
  "$kn" watch --browser "$tmp/profile-$task/DevToolsActivePort" --tasks "$tmp/tasks.yaml" --task "$task" \
    --until idle:2 --answer-file "$tmp/answers.txt" --run-id "demo-$task" \
    --trajectory "$tmp/runs/$task.jsonl" --out "$tmp/runs/$task.result.json" &
  watch_pid=$!
  sleep 1 # let watch attach before the agent starts
  "$kn" replay --quiet --browser "$tmp/profile-$task/DevToolsActivePort" --tasks "$tmp/tasks.yaml" \
    --task "$task" --answer-file "$tmp/answers.txt" >/dev/null || echo "demo: the agent failed a step"
  wait "$watch_pid" || { echo "demo: task $task was not finished"; unfinished=$((unfinished+1)); }
  watch_pid=""
  kill "$chrome_pid" 2>/dev/null || true
  wait "$chrome_pid" 2>/dev/null || true
  chrome_pid=""
done

echo
echo "== the recorded trajectories, scored again offline (keynode score)"
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs"
# the demo is also a test (integration.demo): every task must have been finished live
[ "$unfinished" = 0 ]
