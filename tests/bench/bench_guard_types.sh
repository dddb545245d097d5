#!/usr/bin/env bash
# bench_guard_types.sh — what pausing every resource type costs a page load: a guard rule that may hold a
# GET (its method GET or not given) makes the monitor pause images, scripts, styles and fonts too
# (services/monitor/README.md "Requests and the guard"); a POST-only rule pauses only the types a page
# sends data with. One headless Chromium and a `keynode sites` fixture written here (bench/heavy.html:
# 60 images, 6 scripts, 6 style sheets, every one served no-store, so every load fetches them all);
# ROUNDS rounds, each loading the page N times in three modes one after the other:
#   none  no keynode attached
#   post  `keynode watch` under a rule {method: POST} that matches nothing on the page
#   get   `keynode watch` under a rule {method: GET} that matches nothing on the page: every request paused
# Per load: the navigation's loadEventEnd (performance timing) as the page measured it. Prints medians and
# p90s per mode, and with RESULTS_MD sets the subsection "### DATE, keynode COMMIT" of its section in
# RESULTS.md (results_md.py). Run by hand, never by ctest (tests never assert wall-clock times).
#   tests/bench/bench_guard_types.sh KEYNODE_BIN REPO_DIR [N] [ROUNDS] [RESULTS_MD]
set -u -o pipefail
kn=$1 repo=$(cd "$2" && pwd) n=${3:-20} rounds=${4:-3} md=${5:-}
. "$repo/tests/integration/lib.sh"
kn_lib_init bench-guard-types
"$repo/tests/integration/node/ensure.sh" >/dev/null || { kn_fail "node/ensure.sh failed"; kn_finish; }
site=$tmp/site
mkdir -p "$site/bench"
{
  echo '<!doctype html><html><head><meta charset="utf-8"><title>heavy</title>'
  for i in $(seq 1 6); do echo "<link rel=\"stylesheet\" href=\"s$i.css\"><script src=\"j$i.js\"></script>"; done
  echo '</head><body><h1>heavy</h1>'
  for i in $(seq 1 60); do echo "<img src=\"i$i.svg\" width=\"8\" height=\"8\">"; done
  echo '</body></html>'
} >"$site/bench/heavy.html"
for i in $(seq 1 6); do echo "h1 { margin: ${i}px }" >"$site/bench/s$i.css"; echo "window.j$i = $i;" >"$site/bench/j$i.js"; done
for i in $(seq 1 60); do echo "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\"><rect width=\"$i\" height=\"8\"/></svg>" >"$site/bench/i$i.svg"; done
kn_sites_start "$kn" "$site" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
for m in post get; do
  M=$(echo "$m" | tr a-z A-Z)
  cat >"$tmp/$m.yaml" <<YAML
tasks:
  - id: bench-$m
    intent: Load the heavy page
    start_url: $base/bench/heavy.html
    end_on_guard: false
    key_nodes:
      - url: { include: "/never" }
    guard:
      - { method: $M, url: { include: "/never-sent/" } }
YAML
done
kn_chromium_start "$tmp" || kn_finish
cat >"$tmp/load.mjs" <<'JS'
import { createRequire } from 'node:module';
const require = createRequire(process.argv[2]);
const { chromium } = require('playwright-core');
const [, , , cdp, url, n] = process.argv;
const browser = await chromium.connectOverCDP(cdp);
const page = browser.contexts()[0].pages()[0];
for (let i = 0; i < Number(n); i++) {
  await page.goto(url, { waitUntil: 'load' });
  console.log(await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
}
process.exit(0);
JS
for r in $(seq 1 "$rounds"); do
  for m in none post get; do
    wpid=
    if [ "$m" != none ]; then
      "$kn" watch --browser "$cdp" --tasks "$tmp/$m.yaml" --task "bench-$m" --until idle:600 --step-limit -1 \
        --out "$tmp/$m-$r.json" 2>"$tmp/$m-$r.err" &
      wpid=$!
      kn_pids+=("$wpid")
      kn_wait_for "the watch" 30 grep -q watching "$tmp/$m-$r.err" || kn_fail "$m: not watching"
    fi
    node "$tmp/load.mjs" "$repo/tests/integration/node/package.json" "$cdp" "$base/bench/heavy.html" "$n" >>"$tmp/$m.ms" ||
      kn_fail "$m: loads failed"
    [ -n "$wpid" ] && kn_stop "$wpid" INT
  done
done
{
  echo "Page load (loadEventEnd, ms) of a page with 60 images, 6 scripts, 6 style sheets (no-store); $rounds rounds of $n loads;"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end on $(nproc) cores."
  echo
  echo "| mode | what is paused | median | p90 | loads |"
  echo "|---|---|---|---|---|"
  for m in none post get; do
    case $m in none) what="no keynode" ;; post) what="Document, XHR, Fetch, Ping, EventSource, Other" ;; get) what="every resource type" ;; esac
    sort -n "$tmp/$m.ms" | awk -v m="$m" -v w="$what" '{a[NR]=$1} END {printf "| %s | %s | %.1f | %.1f | %d |\n", m, w, a[int((NR+1)/2)], a[int(NR*0.9+0.5)], NR}'
  done
} >"$tmp/table.md"
cat "$tmp/table.md"
if [ -n "$md" ]; then
  { echo "### $(date -u +%Y-%m-%d), keynode $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)"; echo; cat "$tmp/table.md"; } |
    python3 "$repo/tests/bench/results_md.py" "$md" \
      "## Pausing every resource type — \`tests/bench/bench_guard_types.sh KEYNODE REPO [N] [ROUNDS] [RESULTS_MD]\`" \
      "$(date -u +%Y-%m-%d), keynode $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)" \
      "What a guard rule that may hold a GET costs a page load: every subresource paused at its tab's session and the browser's."
fi
kn_finish
