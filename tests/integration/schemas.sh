#!/usr/bin/env bash
# Validates keynode's documents against schemas/*.schema.json with ajv (draft 2020-12):
# the Mind2Web-Live files, every trajectory line (conformance + tests/data/runs/m2w-test), every YAML task file
# under tests/data, the examples in tests/data/schema-valid, and checks that everything in
# tests/data/schema-invalid is rejected. With KN_BIN set to the keynode binary it also validates the output of
# `keynode score --json` on the bundled m2w-test run set against schemas/score-output.schema.json.
#
#   tests/integration/schemas.sh REPO SHARED
#
# npm packages (ajv, ajv-formats, yaml) are installed once into ${KN_NPM_CACHE:-$HOME/.cache/keynode-npm}.
# Exit: 0 all passed, 1 something failed (printed), 2 usage error, 77 skipped (no node/npm, install failed).
set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 REPO SHARED" >&2
  exit 2
fi
REPO=$(cd "$1" && pwd) || { echo "schemas.sh: no such repo dir: $1" >&2; exit 2; }
SHARED=$(cd "$2" && pwd) || { echo "schemas.sh: no such shared dir: $2" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP schemas: node not found (apt-get install nodejs npm)"
  exit 77
fi

export KN_NPM_CACHE="${KN_NPM_CACHE:-$HOME/.cache/keynode-npm}"
have_modules() {
  for m in ajv ajv-formats yaml; do
    [ -f "$KN_NPM_CACHE/node_modules/$m/package.json" ] || return 1
  done
}
if ! have_modules; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP schemas: npm not found and $KN_NPM_CACHE/node_modules lacks ajv/ajv-formats/yaml"
    exit 77
  fi
  mkdir -p "$KN_NPM_CACHE"
  echo "installing ajv, ajv-formats, yaml into $KN_NPM_CACHE"
  install() {
    have_modules || npm install --prefix "$KN_NPM_CACHE" --no-audit --no-fund --loglevel=error \
      ajv@8 ajv-formats@3 yaml@2
  }
  if command -v flock >/dev/null 2>&1; then
    # Parallel ctest runs must not install into the same directory at once.
    ( flock 9 && install ) 9>"$KN_NPM_CACHE/.install.lock"
  else
    install
  fi
  if ! have_modules; then
    echo "SKIP schemas: npm install into $KN_NPM_CACHE failed (is the npm registry reachable?)"
    exit 77
  fi
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kn-schemas.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

score_args=()
if [ -n "${KN_BIN:-}" ]; then
  if [ ! -x "$KN_BIN" ]; then
    echo "FAIL KN_BIN=$KN_BIN is not an executable"
    exit 1
  fi
  tasks="$SHARED/data/mind2web-live/mind2web-live_test_20241024.json"
  runs="$REPO/tests/data/runs/m2w-test"
  echo "running: $KN_BIN score --tasks $tasks --runs $runs --json"
  "$KN_BIN" score --tasks "$tasks" --runs "$runs" --json >"$TMP/score.json" 2>"$TMP/score.err"
  rc=$?
  # 0: all good; 1: the checked thing failed (some task not finished) -- both must still print valid output.
  if [ "$rc" -gt 1 ]; then
    echo "FAIL keynode score exited $rc:"
    sed 's/^/    /' "$TMP/score.err"
    exit 1
  fi
  score_args=("$TMP/score.json")
else
  echo "skip keynode score --json output check (KN_BIN is not set)"
fi

node "$HERE/validate-json.mjs" "$REPO" "$SHARED" "${score_args[@]}"
