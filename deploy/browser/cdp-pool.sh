#!/bin/sh
# cdp-pool.sh — one member of the browser pool (the Dockerfile's browser target): headless
# Chromium with its DevTools endpoint on loopback, forwarded to 0.0.0.0:9222 by socat, because
# current Chromium binds --remote-debugging-port to 127.0.0.1 only. Workers connect to
# http://browser:9222 (keynode.yaml browsers:, or worker --browser). Each job opens its own fresh
# browser context, so one Chromium serves many jobs; scale the pool by replicas.
set -eu
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir=/tmp/profile --remote-debugging-port=9223 --remote-allow-origins='*' about:blank &
exec socat TCP-LISTEN:9222,fork,reuseaddr TCP:127.0.0.1:9223
