#!/usr/bin/env bash
# realapps_guard.sh — guard rules on real applications: the DokuWiki and the WordPress (on its
# private MariaDB) of tests/realapps, real headless Chromium, `keynode watch` scoring a Playwright agent.
#
#   tests/integration/realapps_guard.sh KEYNODE_BIN REPO_DIR
#
# DokuWiki (tests/realapps/dokuwiki-guard-tasks.yaml, agents/dokuwiki-editor.mjs: the Returns page edited and
# saved). held: the task's guard rule holds the save (POST doku.php, do[save]); the run ends at it, the request
# key node is reached, the trajectory has the request with held: true, the agent sees keynode's "Held by
# keynode" page, and DokuWiki's database — its data folder: the page file under data/pages, data/attic and
# the changes logs (data/meta/**.changes) — is byte for byte unchanged. control: the same task without the
# rule: the key node reached and the page file, the attic and the changes logs changed (the fixture is real).
# WordPress (wordpress-guard-tasks.yaml, agents/wordpress-comment.mjs: signed in as the administrator, a
# comment on the seeded post). held: the comment's POST to wp-comments-post.php held, the sign-in's POST not
# (it passes, its password written redacted), the key node reached, held: true, and in MariaDB wp_comments
# unchanged (the count, and no row with the comment's text); control: the comment arrives (count + 1, its row).
# No file the test wrote (runs, logs, agent output) holds the password the agent typed in clear.
# Env: KN_CHROMIUM, KN_KEEP=1 keeps the scratch folder. Exit: 0 all checks passed, 1 any failed.
#
# ctest: integration.realapps_guard ARGS=keynode,repo TIMEOUT=600
set -u -o pipefail
kn=${1:?usage: realapps_guard.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: realapps_guard.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
kn_lib_init realapps_guard
here=$repo/tests/integration
dw=$repo/tests/realapps/dokuwiki.sh
wp=$repo/tests/realapps/wordpress.sh
secret=admin-password # wordpress.sh's administrator password, typed by agents/wordpress-comment.mjs

check() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }

[ -x "$kn" ] || { kn_fail "no keynode binary at $kn"; kn_finish; }
command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
"$here/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages: $(tail -1 "$tmp/ensure.log")"; kn_finish; }

# WordPress's install (mostly mariadb-install-db) runs while DokuWiki is tested
mkdir -p "$tmp/wordpress"
pport=$(kn_free_port)
trap '"$wp" stop "$tmp/wordpress" >/dev/null 2>&1; kn_lib_cleanup' EXIT
kn_spawn wp-install "$wp" install "$tmp/wordpress" "$pport"

"$dw" install "$tmp/dokuwiki" >"$tmp/dw-install.log" 2>&1 ||
  { kn_fail "DokuWiki install: $(tail -2 "$tmp/dw-install.log")"; kn_finish; }
dport=$(kn_free_port)
kn_pids+=("$("$dw" start "$tmp/dokuwiki" "$dport")")
base=http://127.0.0.1:$dport
kn_wait_for "DokuWiki to answer" 20 curl -s -o /dev/null "$base/doku.php"
kn_task_at_site "$repo/tests/realapps/dokuwiki-guard-tasks.yaml" "$tmp/dw.yaml" "BASE=$base"
kn_chromium_start "$tmp" || kn_finish

# watch NAME AGENT TASKFILE TASK — agents/AGENT.mjs acts while `keynode watch` scores TASK, until its key node
# is reached (at the submission, held or sent) or 60 s pass without an event (a run that fails)
watch() {
  local d=$tmp/$1
  mkdir -p "$d"
  : >"$d/marks"
  kn_watch_scenario "$d" --go "$d/marks" -- --browser "$cdp" --tasks "$3" --task "$4" --until finished --until idle:60 \
    -- node "$here/agents/$2.mjs" "$cdp" "$base" "$d/marks" || return 1
  [ "$kn_agent_rc" = 0 ] || kn_fail "$1: the agent failed: $(tail -2 "$d/agent.log")"
  check "$1: the request key node reached" "$(jq -r '"\(.reached)/\(.total)"' "$d/result.json" 2>&1)" 1/1
}

# signed_out — the shared browser forgets every cookie: each WordPress run signs in from a fresh session, as
# a new visitor would (a second sign-in over the session the first run left was refused by WordPress)
signed_out() {
  node --input-type=module -e "
    import { createRequire } from 'node:module';
    const { chromium } = createRequire('$here/node/package.json')('playwright-core');
    const b = await chromium.connectOverCDP('$cdp');
    for (const c of b.contexts()) await c.clearCookies();
    process.exit(0);" || kn_fail "clearing the browser's cookies"
}

# held_event NAME URL_PART — held (true/false) of the request events to URL_PART, one a line
held_event() {
  jq -r --arg u "$2" 'select(.type == "request" and (.request.url | contains($u))) | .request.held // false' "$tmp/$1/run.jsonl"
}

# ---- DokuWiki: its database is its data folder ---------------------------------------------------------------
page=$tmp/dokuwiki/data/pages/trailhead/returns.txt
# the page files, the attic (old revisions) and the changes logs, one checksum
dw_state() { (cd "$tmp/dokuwiki/data" && { find pages attic -type f; find meta -name '*.changes'; } | sort | xargs md5sum | md5sum); }
before=$(dw_state)
watch dw-held dokuwiki-editor "$tmp/dw.yaml" dokuwiki-edit-held
check "dw-held: the save held (one request event, held: true)" "$(held_event dw-held doku.php | tr '\n' ' ')" "true "
check "dw-held: keynode's log says it held one request" "$(grep -c 'msg="request held"' "$tmp/dw-held/watch.err")" 1
check "dw-held: the agent saw keynode's held page" "$(grep -c '^edit-held' "$tmp/dw-held/marks")" 1
check "dw-held: the data folder unchanged (pages, attic, changes logs)" "$(dw_state)" "$before"
check "dw-held: the page file has no new line" "$(grep -c 'Gift cards' "$page")" 0
watch dw-control dokuwiki-editor "$tmp/dw.yaml" dokuwiki-edit
check "dw-control: the save sent (held: false)" "$(held_event dw-control doku.php | tr '\n' ' ')" "false "
check "dw-control: the agent saw the saved page" "$(grep -c '^edit-saved' "$tmp/dw-control/marks")" 1
check "dw-control: the page file has the new line" "$(grep -c 'Gift cards are final sale' "$page")" 1
[ "$(dw_state)" != "$before" ] && kn_ok "dw-control: the data folder changed" || kn_fail "dw-control: the data folder unchanged"
check "dw-control: the changes log has the edit" "$(grep -cP '\tE\ttrailhead:returns\t' "$tmp/dokuwiki/data/meta/_dokuwiki.changes" 2>/dev/null)" 1

# ---- WordPress on a private MariaDB ----------------------------------------------------------------------------
kn_wait_exit wp-install 600 && [ "$kn_rc" = 0 ] && kn_ok "WordPress installed on a private MariaDB" ||
  { kn_fail "WordPress install: $(tail -2 "$tmp/wp-install.log")"; kn_finish; }
kn_pids+=("$("$wp" start "$tmp/wordpress" "$pport")")
base=http://127.0.0.1:$pport
kn_wait_for "WordPress to answer" 20 curl -s -o /dev/null "$base/"
kn_task_at_site "$repo/tests/realapps/wordpress-guard-tasks.yaml" "$tmp/wp.yaml" "BASE=$base"
# sql QUERY — one value from WordPress's database (the harness's MariaDB socket, root by socket auth)
sql() { mariadb -S "$tmp/wordpress/db/mysql.sock" -u root -N -B wp -e "$1" 2>&1; }
count='SELECT COUNT(*) FROM wp_comments'
ours="SELECT COUNT(*) FROM wp_comments WHERE comment_content LIKE '%spare groundsheet%' AND comment_post_ID = 5"
before=$(sql "$count")
[[ $before =~ ^[0-9]+$ ]] || { kn_fail "WordPress's database: $before"; kn_finish; }
signed_out
watch wp-held wordpress-comment "$tmp/wp.yaml" wordpress-comment-held
check "wp-held: the comment held (one request event, held: true)" "$(held_event wp-held wp-comments-post.php | tr '\n' ' ')" "true "
check "wp-held: the sign-in sent, not held" "$(held_event wp-held wp-login.php | tr '\n' ' ')" "false "
check "wp-held: the sign-in's password written redacted" \
  "$(jq -r 'select(.type == "request" and (.request.url | contains("wp-login.php"))) | .request.fields[] | select(.[0] == "pwd") | .[1]' "$tmp/wp-held/run.jsonl")" "[redacted]"
check "wp-held: keynode's log says it held one request" "$(grep -c 'msg="request held"' "$tmp/wp-held/watch.err")" 1
check "wp-held: the agent saw keynode's held page" "$(grep -c '^comment-held' "$tmp/wp-held/marks")" 1
check "wp-held: wp_comments unchanged (COUNT)" "$(sql "$count")" "$before"
check "wp-held: no row with the comment's text" "$(sql "$ours")" 0
signed_out
watch wp-control wordpress-comment "$tmp/wp.yaml" wordpress-comment
check "wp-control: the comment sent (held: false)" "$(held_event wp-control wp-comments-post.php | tr '\n' ' ')" "false "
check "wp-control: the agent saw its comment posted" "$(grep -c '^comment-posted' "$tmp/wp-control/marks")" 1
check "wp-control: wp_comments one row more (COUNT)" "$(sql "$count")" "$((before + 1))"
check "wp-control: the row with the comment's text" "$(sql "$ours")" 1

# ---- no password in clear in any file the test wrote (the applications' own folders aside) ------------------
leaks=$(grep -rlF -e "$secret" "$tmp" --exclude-dir=profile --exclude-dir=dokuwiki --exclude-dir=wordpress 2>/dev/null)
[ -z "$leaks" ] && kn_ok "no password in clear in any file written" || kn_fail "the password written in clear: $leaks"
kn_finish
