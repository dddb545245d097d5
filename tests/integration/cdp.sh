#!/usr/bin/env bash
# cdp.sh — runs cdp_client_test against a real headless Chromium: starts the browser with
# --remote-debugging-port=0 and a private user-data-dir, waits for DevToolsActivePort, passes its
# path and the browser PID to the test (which kills that PID on purpose), and always cleans up:
# the browser's whole process group (it runs under setsid) and the user-data-dir.
# usage: cdp.sh CDP_CLIENT_TEST_BIN
#
# ctest: integration.cdp ARGS=target:cdp_client_test TIMEOUT=300
set -uo pipefail
test_bin=$1
chromium=${KN_CHROMIUM:-/usr/lib/chromium/chromium}
udd=$(mktemp -d /tmp/kn-cdp-udd-XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  fi
  rm -rf "$udd"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$chromium" ]; then
  echo "cdp.sh: no Chromium at $chromium"; exit 1
fi
setsid "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$udd" --remote-debugging-port=0 about:blank >"$udd.log" 2>&1 &
pid=$!
disown "$pid"   # the test kills it on purpose: no job-status noise
for _ in $(seq 300); do   # up to 30 s on a slow machine
  [ -s "$udd/DevToolsActivePort" ] && [ "$(wc -l <"$udd/DevToolsActivePort")" -ge 1 ] && break
  kill -0 "$pid" 2>/dev/null || { echo "cdp.sh: Chromium exited early"; cat "$udd.log"; rm -f "$udd.log"; exit 1; }
  sleep 0.1
done
rm -f "$udd.log"
if [ ! -s "$udd/DevToolsActivePort" ]; then
  echo "cdp.sh: no DevToolsActivePort after 30 s"; exit 1
fi
"$test_bin" "$udd/DevToolsActivePort" "$pid"
