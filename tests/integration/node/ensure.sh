#!/usr/bin/env bash
# ensure.sh — makes sure node and the pinned playwright-core (package-lock.json) are installed in this
# folder's node_modules, and that Chromium is there. Used by recorder.sh and watch.sh.
#
#   tests/integration/node/ensure.sh
#
# `npm ci` runs only when node_modules is missing or holds another version than the lock file; parallel
# ctest runs take a lock first. Chromium: $KN_CHROMIUM or /usr/lib/chromium/chromium (Debian's `chromium`
# package: Playwright downloads no browser).
# Exit: 0 ready; 1 something is missing (one line on stdout says what and how to install it). A missing
# dependency is a failure, never a skip: the README's commands install node, npm and chromium.
set -u -o pipefail
NODE_DIR=$(cd "$(dirname "$0")" && pwd)
chromium=${KN_CHROMIUM:-/usr/lib/chromium/chromium}

if ! command -v node >/dev/null 2>&1; then
  echo "FAIL node not found (apt-get install nodejs npm)"
  exit 1
fi
if [ ! -x "$chromium" ]; then
  echo "FAIL no Chromium at $chromium (apt-get install chromium, or set KN_CHROMIUM)"
  exit 1
fi

# the installed playwright-core matches the lock file
have_modules() {
  (cd "$NODE_DIR" && node -e '
    const want = require("./package-lock.json").packages["node_modules/playwright-core"].version;
    const got = require("./node_modules/playwright-core/package.json").version;
    process.exit(want === got ? 0 : 1);' 2>/dev/null)
}
have_modules && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "FAIL npm not found and $NODE_DIR/node_modules lacks playwright-core (apt-get install npm)"
  exit 1
fi
install() {
  have_modules || npm ci --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error
}
if command -v flock >/dev/null 2>&1; then
  # parallel ctest runs must not install into the same directory at once
  ( flock 9 && install ) 9>"${TMPDIR:-/tmp}/keynode-integration-npm.lock"
else
  install
fi
if ! have_modules; then
  echo "FAIL npm ci into $NODE_DIR failed (is the npm registry reachable?)"
  exit 1
fi
exit 0
