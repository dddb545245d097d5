#!/usr/bin/env bash
# Runs the in-page recorder test (recorder.test.mjs) in a real headless Chromium with Playwright as the agent.
#
#   tests/integration/recorder.sh
#
# node/ensure.sh installs the pinned playwright-core (`npm ci` into node/node_modules) when that is missing
# or stale; later runs reuse it. Chromium: $KN_CHROMIUM or /usr/lib/chromium/chromium (Debian's `chromium`
# package; Playwright downloads no browser).
# Exit: 0 passed, 1 a check failed or a dependency (node, npm, Chromium, playwright-core) is missing:
# a missing dependency is a failure, not a skip.
#
# ctest: integration.recorder TIMEOUT=300
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
export KN_CHROMIUM="${KN_CHROMIUM:-/usr/lib/chromium/chromium}"

"$HERE/node/ensure.sh" || exit 1
node "$HERE/generated.test.mjs" || exit 1
exec node "$HERE/recorder.test.mjs"
