#!/usr/bin/env bash
# realapps.sh — keynode on a real web application nobody on the team wrote (issue 12 item 5): DokuWiki from
# Debian's package, installed, seeded and served (PHP's built-in server) by tests/realapps/dokuwiki.sh into a
# private folder, against real headless Chromium.
#
#   tests/integration/realapps.sh KEYNODE_BIN REPO_DIR
#
# Checks: both task formats load (native YAML with reference steps, Mind2Web-Live JSON); a Playwright agent
# (agents/dokuwiki.mjs) does the task while `keynode watch` scores it, for each format: finished, 3 of 3 key
# nodes; `keynode replay --validate` of the YAML task: passed on the seeded wiki, passed after a theme change
# (other colours and widths, no sidebar, another title: drift allowed), broken at step 2 (the search box) with
# search disabled by configuration, broken at step 3 (the result link) with the page removed, passed again
# after the changes are undone.
# Env: KN_CHROMIUM, KN_KEEP=1 keeps the scratch folder. Exit: 0 all checks passed, 1 any failed.
set -u -o pipefail
kn=${1:?usage: realapps.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: realapps.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init realapps
here=$repo/tests/integration
dw=$repo/tests/realapps/dokuwiki.sh

check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }
# field FILE EXPR — a value of the JSON document in FILE (EXPR on `r`), printed by node
field() { node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const v = eval(process.argv[2]); console.log(v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : v)' "$1" "$2" 2>/dev/null; }

[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }

# ---- DokuWiki -----------------------------------------------------------------------------------------------
"$dw" install "$tmp/dokuwiki" >"$tmp/install.log" 2>&1 && kn_ok "DokuWiki installed and seeded in a private folder" ||
  { kn_fail "DokuWiki install: $(tail -2 "$tmp/install.log")"; kn_finish; }
wport=$(kn_free_port)
wpid=$("$dw" start "$tmp/dokuwiki" "$wport")
kn_pids+=("$wpid")
base=http://127.0.0.1:$wport
for _ in $(seq 1 100); do curl -s -o /dev/null "$base/doku.php" && break; sleep 0.05; done
check "DokuWiki answers" "$(curl -s -o /dev/null -w '%{http_code}' "$base/doku.php?id=start")" 200
sed "s#BASE#$base#g" "$repo/tests/realapps/dokuwiki-tasks.yaml" >"$tmp/dw.yaml"
sed "s#BASE#$base#g" "$repo/tests/realapps/dokuwiki-tasks.json" >"$tmp/dw.json"
"$kn" validate "$tmp/dw.yaml" "$tmp/dw.json" >"$tmp/validate.out" 2>&1
check "keynode validate: both formats" "$?" 0

kn_chromium_start "$tmp" || kn_finish

# watch FORMAT FILE — the agent does the task while keynode watch scores it
watch() {
  local d=$tmp/watch-$1
  mkdir -p "$d"
  : >"$d/marks"
  KN_AGENT_GO=$d/go node "$here/agents/dokuwiki.mjs" "$cdp" "$base" "$d/marks" >"$d/agent.out" 2>&1 &
  local apid=$!
  kn_pids+=("$apid")
  for _ in $(seq 1 300); do grep -q '^connected' "$d/marks" && break; sleep 0.05; done
  "$kn" watch --browser "$cdp" --tasks "$2" --task dokuwiki-tent-care --out "$d/result.json" \
    --trajectory "$d/run.jsonl" --until finished >"$d/watch.out" 2>"$d/watch.err" &
  local wpid=$!
  kn_pids+=("$wpid")
  for _ in $(seq 1 200); do grep -q '"tab_open"' "$d/run.jsonl" 2>/dev/null && break; sleep 0.05; done
  touch "$d/go"
  wait "$apid"
  check "$1: the agent did the task" "$?" 0
  kn_forget "$apid"
  for _ in $(seq 1 200); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.05; done
  kn_stop "$wpid"
  check "$1: watch scored it finished, 3 of 3" "$(field "$d/result.json" 'r.status + " " + r.reached + "/" + r.total')" "finished 3/3"
}
watch yaml "$tmp/dw.yaml"
watch mind2web-live "$tmp/dw.json"

# validate NAME — replay --validate of the YAML task; sets r (the report file)
validate() {
  mkdir -p "$tmp/replay-$1"
  "$kn" replay --browser "$cdp" --tasks "$tmp/dw.yaml" --validate --out "$tmp/replay-$1" --quiet >"$tmp/replay-$1.out" 2>&1
  r=$tmp/replay-$1/dokuwiki-tent-care.json
}
validate seeded
check "seeded wiki: passed" "$(field "$r" r.status)" passed
"$dw" theme "$tmp/dokuwiki"
curl -s "$base/doku.php?id=start" >"$tmp/themed.html"
check "theme change took effect: the new title" "$(grep -c '<title>start \[Trailhead Staff Handbook\]' "$tmp/themed.html")" 1
check "theme change took effect: no sidebar" "$(grep -c 'id="dokuwiki__aside"' "$tmp/themed.html")" 0
validate theme
check "theme change: passed (drift allowed)" "$(field "$r" r.status)" passed
"$dw" reset "$tmp/dokuwiki"
"$dw" disable-search "$tmp/dokuwiki"
validate no-search
check "search disabled by configuration: broken at step 2, element not found" \
  "$(field "$r" 'r.status + " " + r.broken.step + " " + r.broken.reason + " " + r.broken.selector')" \
  "broken 2 element not found #qsearch__in"
"$dw" reset "$tmp/dokuwiki"
"$dw" remove-page "$tmp/dokuwiki"
check "page removed: DokuWiki says it does not exist" \
  "$(curl -s "$base/doku.php?id=trailhead:tent_care" | grep -c 'This topic does not exist yet')" 1
validate removed
check "page removed: broken at step 3 (its search result is gone)" \
  "$(field "$r" 'r.status + " " + r.broken.step + " " + r.broken.reason')" "broken 3 element not found"
"$dw" reset "$tmp/dokuwiki"
validate restored
check "changes undone: passed again" "$(field "$r" r.status)" passed
kn_finish
