#!/usr/bin/env bash
# realapps.sh — keynode on real web applications nobody on the team wrote: DokuWiki and
# WordPress (on a private MariaDB) from Debian's packages, installed, seeded and served (PHP's built-in server)
# by tests/realapps/{dokuwiki,wordpress}.sh into private folders, against real headless Chromium.
#
#   tests/integration/realapps.sh KEYNODE_BIN REPO_DIR
#
# Checks: both task formats load (native YAML with reference steps, Mind2Web-Live JSON); a Playwright agent
# (agents/dokuwiki.mjs) does the task while `keynode watch` scores it, for each format: finished, 3 of 3 key
# nodes; `keynode replay --validate` of the YAML task: passed on the seeded wiki, passed after a theme change
# (other colours and widths, no sidebar, another title: drift allowed), broken at step 2 (the search box) with
# search disabled by configuration, broken at step 3 (the result link) with the page removed, passed again
# after the changes are undone. WordPress the same way (task wordpress-tent-post): a theme change (Twenty
# Twenty-Three → Twenty Twenty-Two) passes; the front page turned into a static page (Settings → Reading) and
# the post moved to the trash are broken at step 2 (the post's link); undone, passed.
# Env: KN_CHROMIUM, KN_KEEP=1 keeps the scratch folder. Exit: 0 all checks passed, 1 any failed.
#
# ctest: integration.realapps ARGS=keynode,repo TIMEOUT=600
set -u -o pipefail
kn=${1:?usage: realapps.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: realapps.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init realapps
here=$repo/tests/integration
dw=$repo/tests/realapps/dokuwiki.sh
wp=$repo/tests/realapps/wordpress.sh

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
kn_wait_for "DokuWiki to answer" 20 curl -s -o /dev/null "$base/doku.php"
check "DokuWiki answers" "$(curl -s -o /dev/null -w '%{http_code}' "$base/doku.php?id=start")" 200
kn_task_at_site "$repo/tests/realapps/dokuwiki-tasks.yaml" "$tmp/dw.yaml" "BASE=$base"
kn_task_at_site "$repo/tests/realapps/dokuwiki-tasks.json" "$tmp/dw.json" "BASE=$base"
"$kn" validate "$tmp/dw.yaml" "$tmp/dw.json" >"$tmp/validate.out" 2>&1
check "keynode validate: both formats" "$?" 0

kn_chromium_start "$tmp" || kn_finish

# watch APP FORMAT FILE TASK NODES — agents/APP.mjs does TASK while keynode watch scores it (NODES key nodes)
watch() {
  local d=$tmp/watch-$1-$2
  mkdir -p "$d"
  : >"$d/marks"
  kn_watch_scenario "$d" --go "$d/marks" -- --browser "$cdp" --tasks "$3" --task "$4" --until finished \
    -- node "$here/agents/$1.mjs" "$cdp" "$base" "$d/marks" || return 1
  check "$1 $2: the agent did the task" "$kn_agent_rc" 0
  check "$1 $2: watch scored it finished, $5 of $5" "$(field "$d/result.json" 'r.status + " " + r.reached + "/" + r.total')" "finished $5/$5"
}
watch dokuwiki yaml "$tmp/dw.yaml" dokuwiki-tent-care 3
watch dokuwiki mind2web-live "$tmp/dw.json" dokuwiki-tent-care 3

# validate NAME [TASKFILE TASK] — replay --validate of the YAML task; sets r (the report file)
validate() {
  mkdir -p "$tmp/replay-$1"
  "$kn" replay --browser "$cdp" --tasks "${2:-$tmp/dw.yaml}" --validate --out "$tmp/replay-$1" --quiet >"$tmp/replay-$1.out" 2>&1
  r=$tmp/replay-$1/${3:-dokuwiki-tent-care}.json
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

# ---- WordPress on a private MariaDB -----------------------------------------------------------------------------
mkdir -p "$tmp/wordpress"
pport=$(kn_free_port)
trap '"$wp" stop "$tmp/wordpress" >/dev/null 2>&1; kn_lib_cleanup' EXIT
"$wp" install "$tmp/wordpress" "$pport" >"$tmp/wp-install.log" 2>&1 && kn_ok "WordPress installed on a private MariaDB and seeded" ||
  { kn_fail "WordPress install: $(tail -2 "$tmp/wp-install.log")"; kn_finish; }
ppid_=$("$wp" start "$tmp/wordpress" "$pport")
kn_pids+=("$ppid_")
base=http://127.0.0.1:$pport
kn_wait_for "WordPress to answer" 20 curl -s -o /dev/null "$base/"
check "WordPress answers" "$(curl -s -o /dev/null -w '%{http_code}' "$base/")" 200
kn_task_at_site "$repo/tests/realapps/wordpress-tasks.yaml" "$tmp/wp.yaml" "BASE=$base"
kn_task_at_site "$repo/tests/realapps/wordpress-tasks.json" "$tmp/wp.json" "BASE=$base"
"$kn" validate "$tmp/wp.yaml" "$tmp/wp.json" >"$tmp/wp-validate.out" 2>&1
check "keynode validate: both WordPress formats" "$?" 0
watch wordpress yaml "$tmp/wp.yaml" wordpress-tent-post 1
watch wordpress mind2web-live "$tmp/wp.json" wordpress-tent-post 1
validate wp-seeded "$tmp/wp.yaml" wordpress-tent-post
check "WordPress seeded: passed" "$(field "$r" r.status)" passed
"$wp" theme "$tmp/wordpress"
check "theme change took effect (Twenty Twenty-Two)" "$(curl -s "$base/" | grep -c 'themes/twentytwentytwo/style.css')" 1
validate wp-theme "$tmp/wp.yaml" wordpress-tent-post
check "WordPress theme change: passed (drift allowed)" "$(field "$r" r.status)" passed
"$wp" reset "$tmp/wordpress"
"$wp" static-front "$tmp/wordpress"
validate wp-static "$tmp/wp.yaml" wordpress-tent-post
check "latest posts turned off by configuration (static front page): broken at step 2, element not found" \
  "$(field "$r" 'r.status + " " + r.broken.step + " " + r.broken.reason')" "broken 2 element not found"
"$wp" reset "$tmp/wordpress"
"$wp" remove-post "$tmp/wordpress"
check "post removed: WordPress answers 404 for it" "$(curl -s -o /dev/null -w '%{http_code}' "$base/?p=5")" 404
validate wp-removed "$tmp/wp.yaml" wordpress-tent-post
check "post removed: broken at step 2, element not found" \
  "$(field "$r" 'r.status + " " + r.broken.step + " " + r.broken.reason')" "broken 2 element not found"
"$wp" reset "$tmp/wordpress"
validate wp-restored "$tmp/wp.yaml" wordpress-tent-post
check "WordPress changes undone: passed again" "$(field "$r" r.status)" passed
kn_finish
