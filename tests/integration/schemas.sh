#!/usr/bin/env bash
# Validates keynode's documents against schemas/*.schema.json with ajv (draft 2020-12):
# the Mind2Web-Live files, every trajectory line (conformance + tests/data/runs/m2w-test), every YAML task file
# under tests/data, the examples in tests/data/schema-valid, and checks that everything in
# tests/data/schema-invalid is rejected. It also validates the output of `keynode score --json` (KN_BIN, the
# keynode binary: ctest sets it) on the bundled m2w-test run set against schemas/score-output.schema.json.
#
#   KN_BIN=build/services/cli/keynode tests/integration/schemas.sh REPO SHARED
#
# ajv, ajv-formats and yaml come from tests/integration/node (node/ensure.sh installs the pinned versions).
# Exit: 0 all passed; 1 something failed or is missing (node, npm, the npm packages, KN_BIN): a missing
# dependency is a failure, not a skip; 2 usage error.
#
# ctest: integration.schemas ARGS=repo,shared TIMEOUT=600 'ENV=KN_BIN=$<TARGET_FILE:keynode>'
set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 REPO SHARED" >&2
  exit 2
fi
REPO=$(cd "$1" && pwd) || { echo "schemas.sh: no such repo dir: $1" >&2; exit 2; }
SHARED=$(cd "$2" && pwd) || { echo "schemas.sh: no such shared dir: $2" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)

if [ -z "${KN_BIN:-}" ]; then
  echo "FAIL KN_BIN is not set (the keynode binary whose score --json output is checked; ctest sets it)"
  exit 1
fi
if [ ! -x "$KN_BIN" ]; then
  echo "FAIL KN_BIN=$KN_BIN is not an executable"
  exit 1
fi
"$HERE/node/ensure.sh" --no-chromium || exit 1

TMP=$(mktemp -d "${TMPDIR:-/tmp}/kn-schemas.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

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

node "$HERE/validate-json.mjs" "$REPO" "$SHARED" "$TMP/score.json"
