#!/bin/sh
# cdp-pool.sh — one member of the browser pool (the Dockerfile's browser target): headless
# Chromium with its DevTools endpoint on loopback, forwarded to 0.0.0.0:9222 by socat, because
# current Chromium binds --remote-debugging-port to 127.0.0.1 only. Workers connect to
# http://browser:9222 (keynode.yaml browsers:, or worker --browser). Each job opens its own fresh
# browser context, so one Chromium serves many jobs; scale the pool by replicas.
# The forward closes a connection whose worker dropped off the network within ~10 s (TCP keepalive,
# TCP_USER_TIMEOUT = setsockopt 6:18): Chromium holds every new tab paused until each browser-level
# auto-attach client resumes it, so a dead worker's connection left open would stall every other
# worker's replays on this browser (deploy/README.md "Several hosts, as tested"; the multi-host test
# forwards with the same options, shorter).
set -eu
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir=/tmp/profile --remote-debugging-port=9223 --remote-allow-origins='*' about:blank &
exec socat TCP-LISTEN:9222,fork,reuseaddr,keepalive,keepidle=5,keepintvl=2,keepcnt=3,setsockopt-int=6:18:10000 \
  TCP:127.0.0.1:9223
