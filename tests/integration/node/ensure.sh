#!/usr/bin/env bash
# ensure.sh — the one installer of the integration tests' npm packages: makes sure node and exactly what
# package-lock.json pins (playwright-core, ajv, ajv-formats, yaml; esbuild, React 19 and 18 and
# react-router for tests/sites/spa-react) are in this folder's node_modules, and that Chromium is there.
# Every integration script that needs node calls it first.
#
#   tests/integration/node/ensure.sh [--no-chromium]
#
# node_modules counts as installed only when node_modules/.keynode-stamp holds the hash of package.json,
# package-lock.json and .npmrc. An install runs `npm ci` into a staging folder beside node_modules, checks
# that every dependency loads, writes the stamp last and only then renames the staging folder into place,
# all under an exclusive flock on this folder: parallel ctest runs install once, one after the other, and a half-finished
# or killed install is never taken for a complete one. Chromium ($KN_CHROMIUM or /usr/lib/chromium/chromium,
# Debian's `chromium`: Playwright downloads no browser) is checked unless --no-chromium.
# Exit: 0 ready; 1 something is missing or the install failed (a line on stdout says what and how to fix it).
# A missing dependency is a failure, never a skip: the README's commands install node, npm and chromium.
set -u -o pipefail
NODE_DIR=$(cd "$(dirname "$0")" && pwd)
chromium=${KN_CHROMIUM:-/usr/lib/chromium/chromium}
want_chromium=1
case "${1:-}" in
'') ;;
--no-chromium) want_chromium=0 ;;
*) echo "usage: $0 [--no-chromium]" >&2; exit 2 ;;
esac

if ! command -v node >/dev/null 2>&1; then
  echo "FAIL node not found (apt-get install nodejs npm)"
  exit 1
fi
if [ "$want_chromium" = 1 ] && [ ! -x "$chromium" ]; then
  echo "FAIL no Chromium at $chromium (apt-get install chromium, or set KN_CHROMIUM)"
  exit 1
fi

stamp=$(cat "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" "$NODE_DIR/.npmrc" | sha256sum | cut -d' ' -f1) || {
  echo "FAIL cannot read $NODE_DIR/package.json, package-lock.json and .npmrc"
  exit 1
}
installed() {
  [ "$(cat "$NODE_DIR/node_modules/.keynode-stamp" 2>/dev/null)" = "$stamp" ]
}
installed && exit 0

for tool in npm flock sha256sum; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAIL $tool not found and $NODE_DIR/node_modules is not installed (apt-get install npm util-linux coreutils)"
    exit 1
  fi
done

# install — runs with the lock held: npm ci into a staging folder, verify, stamp, rename into place.
install() {
  installed && return 0 # another run installed it while we waited for the lock
  rm -rf "$NODE_DIR"/.staging-* # left by a killed install; only the lock holder stages
  local stage
  stage=$(mktemp -d "$NODE_DIR/.staging-XXXXXX") || return 1
  # shellcheck disable=SC2064 # expand $stage now: it is local
  trap "rm -rf '$stage'" EXIT
  cp "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" "$NODE_DIR/.npmrc" "$stage/" || return 1
  echo "ensure.sh: npm ci into $NODE_DIR/node_modules" >&2
  npm ci --prefix "$stage" --no-audit --no-fund --loglevel=error >&2 || return 1
  # every direct dependency must load from the staged tree before it counts
  (cd "$stage" && node -e '
    const deps = Object.keys(require("./package.json").dependencies || {});
    for (const d of deps) require.resolve(d);' >&2) || return 1
  printf '%s\n' "$stamp" >"$stage/node_modules/.keynode-stamp" || return 1
  if [ -e "$NODE_DIR/node_modules" ]; then
    mv "$NODE_DIR/node_modules" "$stage/old" || return 1
  fi
  mv "$stage/node_modules" "$NODE_DIR/node_modules" || return 1
  rm -rf "$stage"
  trap - EXIT
}

# The lock is an flock on this folder itself (no lock file to leave behind). -w: wait at most 5 minutes
# for another run's install.
exec 9<"$NODE_DIR"
if ! flock -w 300 9; then
  echo "FAIL timed out waiting for another install into $NODE_DIR/node_modules"
  exit 1
fi
install
rc=$?
exec 9<&-
if [ $rc -ne 0 ] || ! installed; then
  echo "FAIL npm ci into $NODE_DIR/node_modules failed (is the npm registry reachable?)"
  exit 1
fi
exit 0
