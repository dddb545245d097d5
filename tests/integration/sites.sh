#!/usr/bin/env bash
# sites.sh — `keynode sites` end to end: serves tests/sites on a free port, checks what curl sees
# (status codes, MIME types, the 404 page, HEAD, refused path traversal, the CSP header, port in
# use, SIGTERM shutdown), then loads pages in a real headless Chromium and checks that their
# JavaScript rendered (search results, forum listing, help-centre search), and finally runs every
# task's reference steps with Playwright (tests/sites/reference-run.js) and checks, with
# `keynode score`, that each key node is reached at the step README.md states.
# Needs curl, Chromium ($KN_CHROMIUM or /usr/lib/chromium/chromium), node and the pinned npm packages
# (playwright-core, yaml: node/ensure.sh installs them); a missing one is a failure, never a skip.
# Only 127.0.0.1; every process started here is stopped by PID, even on failure.
# usage: sites.sh KEYNODE_BIN REPO_DIR
#
# ctest: integration.sites ARGS=keynode,repo TIMEOUT=600
set -uo pipefail
kn=$1 repo=$2
sites=$repo/tests/sites
export KN_CHROMIUM=${KN_CHROMIUM:-/usr/lib/chromium/chromium}
chromium=$KN_CHROMIUM
. "$repo/tests/integration/lib.sh"
kn_lib_init sites
ok() { kn_ok "$1"; }
fail() { kn_fail "$1"; }
command -v curl >/dev/null 2>&1 || { fail "curl not found (apt-get install curl)"; kn_finish; }
"$repo/tests/integration/node/ensure.sh" || { fail "node/ensure.sh failed"; kn_finish; }
# reference-run.js (in tests/sites) and the YAML conversion below load their packages from here
export NODE_PATH=$repo/tests/integration/node/node_modules${NODE_PATH:+:$NODE_PATH}

# serving_port_ LOG [PID] — the port in LOG's "serving" line (printed); with PID, also succeeds (printing
# nothing) once PID has ended: no use waiting on
serving_port_() {
  local p
  p=$(sed -n 's/.*msg="serving".*url=http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$1")
  [ -n "$p" ] && { echo "$p"; return 0; }
  [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null
}

# start_server NAME DIR ARGS… — start `keynode sites` in the background; sets $port and $spid.
start_server() {
  local name=$1 dir=$2; shift 2
  kn_spawn -o "$tmp/$name.out" -e "$tmp/$name.log" "$name" "$kn" sites --dir "$dir" --port 0 "$@"
  spid=$kn_pid
  kn_wait_for "$name to serve" 20 serving_port_ "$tmp/$name.log" "$spid"
  port=$(serving_port_ "$tmp/$name.log")
  [ -n "$port" ] && return 0
  fail "$name did not start: $(cat "$tmp/$name.log")"; kn_finish
}

# fetch NAME URL WANT_STATUS [WANT_TYPE_PREFIX] [CURL_ARGS…] — body in $tmp/body, headers in $tmp/hdr
fetch() {
  local name=$1 url=$2 want=$3 type=${4:-}; shift 3; [ $# -gt 0 ] && shift
  local got
  got=$(curl -s --path-as-is -o "$tmp/body" -D "$tmp/hdr" -w '%{http_code} %{content_type}' "$@" "$url")
  local status=${got%% *} ctype=${got#* }
  if [ "$status" != "$want" ]; then fail "$name: status $status, want $want ($url)"; return 1; fi
  if [ -n "$type" ] && [[ "$ctype" != "$type"* ]]; then fail "$name: type '$ctype', want '$type'"; return 1; fi
  ok "$name"
}
has() { # has NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then ok "$1"; else fail "$1: no '$3' in $2"; head -c 600 "$2"; echo; fi
}
hasnt() { # hasnt NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3'"; else ok "$1"; fi
}

# --- the command line ---
"$kn" sites --help >"$tmp/out" 2>&1 && grep -q "usage: keynode sites" "$tmp/out" && ok "sites --help" || fail "sites --help"
"$kn" sites --port 0 >/dev/null 2>"$tmp/err"; [ $? = 2 ] && ok "no --dir: exit 2" || fail "no --dir: exit 2"
"$kn" sites --dir "$sites" >/dev/null 2>"$tmp/err"; [ $? = 2 ] && ok "no --port: exit 2" || fail "no --port: exit 2"
"$kn" sites --dir "$sites" --port 70000 >/dev/null 2>"$tmp/err"; [ $? = 2 ] && ok "bad port: exit 2" || fail "bad port: exit 2"
"$kn" sites --dir "$tmp/nowhere" --port 0 >/dev/null 2>"$tmp/err"; [ $? = 2 ] && ok "missing dir: exit 2" || fail "missing dir: exit 2"
has "missing dir reason" "$tmp/err" "not a directory"

# --- HTTP with curl ---
start_server plain "$sites" --log-requests
base=http://127.0.0.1:$port
srv=$spid
has "start line" "$tmp/plain.log" "level=info component=sites msg=\"serving\" dir=$(cd "$sites" && pwd -P) url=$base/"

fetch "GET /" "$base/" 200 "text/html"
has "hub page" "$tmp/body" "keynode test sites"
has "no-store" "$tmp/hdr" "cache-control: no-store"
fetch "GET /shop/ (index.html)" "$base/shop/" 200 "text/html"
has "shop home" "$tmp/body" 'id="search-form"'
fetch "GET /shop redirects" "$base/shop" 301
has "redirect location" "$tmp/hdr" "location: /shop/"
fetch "GET //shop redirects on this host" "$base//shop" 301
has "redirect never to //host" "$tmp/hdr" "location: /shop/"
fetch "GET /shop/search.html?q=" "$base/shop/search.html?q=red+running+shoes" 200 "text/html"
fetch "MIME .js" "$base/shop/js/search.js" 200 "text/javascript"
fetch "MIME .css" "$base/shop/css/shop.css" 200 "text/css"
fetch "MIME .json" "$base/shop/data/stores.json" 200 "application/json"
fetch "MIME .png" "$base/shop/img/logo.png" 200 "image/png"
fetch "MIME .svg" "$base/favicon.svg" 200 "image/svg+xml"
fetch "MIME .ico" "$base/favicon.ico" 200 "image/x-icon"
cmp -s "$tmp/body" "$sites/favicon.ico" && ok "binary body intact" || fail "binary body intact"
fetch "404" "$base/shop/nope.html" 404 "text/html"
has "404 page" "$tmp/body" "There is no page at this address."
fetch "404 in a missing directory" "$base/nowhere/at/all" 404 "text/html"
fetch "hidden file" "$base/.git/config" 404

# HEAD: headers only, with the length of the body GET would send
size=$(stat -c %s "$sites/shop/index.html")
fetch "HEAD" "$base/shop/index.html" 200 "text/html" -I
has "HEAD content-length" "$tmp/hdr" "content-length: $size"
# no body after HEAD's headers: the next response on the connection follows them directly
if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  printf 'HEAD /shop/index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' >&3
  sleep 0.3
  printf 'GET /favicon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  timeout 5 cat <&3 >"$tmp/raw"
  exec 3<&-
  next=$(tr -d '\r' <"$tmp/raw" | awk 'seen && NF { print; exit } !NF { seen = 1 }')
  [ "$next" = "HTTP/1.1 200 OK" ] && ok "HEAD has no body" || fail "HEAD has no body: next line '$next'"
else
  fail "HEAD has no body: cannot connect"
fi
fetch "HEAD 404" "$base/nope" 404 "" -I
fetch "POST refused" "$base/" 405 "" -X POST -d x=1

# path traversal: every spelling is refused (403 or 404) and never shows /etc/passwd
for p in '/../../etc/passwd' '/%2e%2e/%2e%2e/etc/passwd' '/shop/%2e%2e/%2e%2e/%2e%2e/etc/passwd' \
         '/..%2f..%2f..%2fetc%2fpasswd' '/%2e%2e%5c%2e%2e%5cetc%5cpasswd' '/..\..\etc\passwd' \
         '/shop/../../../../etc/passwd' '/%252e%252e/%252e%252e/etc/passwd'; do
  code=$(curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "$base$p")
  if { [ "$code" = 403 ] || [ "$code" = 404 ]; } && ! grep -q "root:" "$tmp/body"; then
    ok "traversal $p -> $code"
  else
    fail "traversal $p -> $code"
  fi
done

# keep-alive: several requests on one connection
curl -s -o /dev/null -o /dev/null -o /dev/null -w '%{http_code}\n' "$base/" "$base/nope" "$base/shop/" >"$tmp/ka"
[ "$(tr '\n' ' ' <"$tmp/ka")" = "200 404 200 " ] && ok "keep-alive sequence" || fail "keep-alive sequence: $(cat "$tmp/ka")"

# the port is taken: exit 2 with a one-line reason
"$kn" sites --dir "$sites" --port "$port" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "port in use: exit 2, one line" || { fail "port in use: exit $rc"; cat "$tmp/err"; }
has "port in use reason" "$tmp/err" "Address already in use"

has "request log" "$tmp/plain.log" 'msg="request" method=HEAD path="/shop/index.html" status=200'

# a symlink inside a served tree that points out of it: 403 (served from a scratch tree, not
# from tests/sites, which the test leaves untouched); no 404.html there, so the built-in page
mkdir -p "$tmp/www/docs" && echo '<p>scratch</p>' >"$tmp/www/index.html" && ln -s /etc "$tmp/www/etc-link" &&
  ln -s ../index.html "$tmp/www/docs/home.html"
start_server scratch "$tmp/www"
scratch=$spid
fetch "symlink leading out refused" "http://127.0.0.1:$port/etc-link/passwd" 403
hasnt "symlink leak" "$tmp/body" "root:"
fetch "symlink inside allowed" "http://127.0.0.1:$port/docs/home.html" 200 "text/html"
fetch "built-in 404" "http://127.0.0.1:$port/missing" 404 "text/html"
has "built-in 404 page" "$tmp/body" "404"
kill -INT "$scratch"; wait "$scratch"; rc=$?; kn_forget "$scratch"
[ $rc = 0 ] && ok "SIGINT: exit 0" || fail "SIGINT: exit $rc"

# SIGTERM: a clean stop, exit 0
kill -TERM "$srv"
wait "$srv"; rc=$?; kn_forget "$srv"
[ $rc = 0 ] && ok "SIGTERM: exit 0" || fail "SIGTERM: exit $rc"
has "stopped line" "$tmp/plain.log" 'msg="stopped"'
curl -s -o /dev/null --max-time 2 "$base/" && fail "port closed after stop" || ok "port closed after stop"

# --- a real browser, under a strict CSP (proves every script is a file) ---
start_server csp "$sites" --csp
base=http://127.0.0.1:$port
fetch "CSP header" "$base/shop/" 200 "text/html"
has "CSP policy" "$tmp/hdr" "content-security-policy: default-src 'self'; script-src 'self'"

# dump NAME URL — the DOM after load, in $tmp/dom
dump() {
  local profile; profile=$(mktemp -d "$tmp/profile.XXXXXX")
  kn_spawn -o "$tmp/dom" -e "$tmp/chromium.err" dump "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom "$2"
  kn_wait_exit dump 60
  local rc=$kn_rc
  [ $rc = 0 ] && [ -s "$tmp/dom" ] && ok "chromium $1" || { fail "chromium $1: exit $rc"; tail -5 "$tmp/chromium.err"; }
}
dump "shop search" "$base/shop/search.html?q=red+running+shoes"
has "results rendered" "$tmp/dom" '<a class="product-link" href="/shop/item.html?id=3">Red Runner</a>'
has "results: first match" "$tmp/dom" '<a class="product-link" href="/shop/item.html?id=2">Tempo Racer</a>'
has "result count" "$tmp/dom" '2 products'
hasnt "socks are not shoes" "$tmp/dom" 'Ridge Runner Socks'
has "query kept in the box" "$tmp/dom" '<title>red running shoes — Search — Trailhead Outfitters</title>'
dump "shop item" "$base/shop/item.html?id=3"
has "item sizes rendered" "$tmp/dom" '<option value="9">US 9</option>'
has "item colours rendered" "$tmp/dom" 'id="colour-red"'
dump "forum listing" "$base/forum/"
has "forum posts rendered" "$tmp/dom" 'id="post-3"'
dump "help-centre search" "$base/spa/kb.html?q=refund+damaged"
has "kb results rendered" "$tmp/dom" 'Refunds for damaged or faulty items'

# --- reference workflows, scored ---
kn_task_at_site "$sites/tasks.yaml" "$tmp/tasks.yaml" "$port"
# reference-run.js reads JSON: the npm `yaml` package converts (YAML 1.2; same result as PyYAML here)
node -e '
  const fs = require("fs"), YAML = require("yaml");
  const doc = YAML.parseDocument(fs.readFileSync(process.argv[1], "utf8"));
  if (doc.errors.length) { console.error(String(doc.errors[0])); process.exit(1); }
  fs.writeFileSync(process.argv[2], JSON.stringify(doc.toJS()));' "$tmp/tasks.yaml" "$tmp/tasks.json" &&
  ok "tasks.yaml to JSON" || fail "tasks.yaml to JSON"
mkdir -p "$tmp/runs"
kn_spawn reference node "$sites/reference-run.js" "$tmp/tasks.json" "$tmp/runs"
kn_wait_exit reference 300 && [ "$kn_rc" = 0 ] && ok "reference steps ran" ||
  { fail "reference steps ran"; tail -20 "$tmp/reference.log"; }
"$kn" score --tasks "$tmp/tasks.yaml" --runs "$tmp/runs" --json >"$tmp/score.json" 2>"$tmp/err" ||
  { fail "score reference runs"; cat "$tmp/err"; }
# task: node@step … — the default-mode table of tests/sites/README.md
python3 - "$tmp/score.json" <<'PY' || kn_fails=$((kn_fails + 1))
import json, sys
want = {
  "shop-red-runner-cart": "search@3 query@3 product@4 size@5 add@6",
  "shop-checkout": "product@1 cart@5 checkout@6 express@12 confirmed@13 total@14",
  "forum-new-post": "compose@2 title@3 category@5 publish@6 created@6",
  "forum-compare-replies": "stove-post@2 tent-post@4 answer@5",
  "spa-mail-dark-theme": "settings@2 theme@3 save@4",
  "spa-mail-meeting-room": "message@2 room@3",
  "spa-kb-damaged-refund": "search@3 article@4 deadline@5",
  "popup-newsletter": "popup@2 email@3 monthly@6 thanks@6",
  "popup-deal-code": "deals@2 reveal@3 code@4",
}
got = {r["task"]: r for r in json.load(open(sys.argv[1]))["results"]}
bad = 0
for task, nodes in want.items():
    r = got.get(task)
    have = r and " ".join("%s@%s" % (k["id"], k["reached_at_step"]) for k in r["key_nodes"])
    if r and r["status"] == "finished" and have == nodes:
        print("ok   scored %s: %s" % (task, nodes))
    else:
        bad += 1
        print("FAIL scored %s: %s (%s), want %s" % (task, have, r and r["status"], nodes))
sys.exit(1 if bad else 0)
PY

[ "$kn_fails" = 0 ] || { echo "server log:"; cat "$tmp/plain.log"; }
kn_finish
