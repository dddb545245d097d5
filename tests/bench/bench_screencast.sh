#!/bin/bash
# bench_screencast.sh — what the live view costs (services/live/README.md): a worker replays
# tests/sites/live's live-busy (a page that repaints all the time, 20 s) with 0, 1 and 3 viewers
# (bench_live_viewer.mjs) on /api/live. Per run: CPU seconds of the worker, serve, Chromium (its process
# tree) and PostgreSQL (its tree), the worker's own count of Page.startScreencast, frames and bytes sent
# up (its "live view" log line), and what each viewer received. With 0 viewers there must be no
# screencast and no frame (the script fails otherwise). Prints a table; appends it to RESULTS_MD when given.
#   tests/bench/bench_screencast.sh KEYNODE REPO [RESULTS_MD]
kn=$1 src=$2 results=${3:-}
. "$src/tests/integration/lib.sh"
kn_lib_init benchcast
command -v jq >/dev/null || { kn_fail "missing jq"; kn_finish; }
# cpu PID… — user+system seconds of the processes and all their descendants
cpu() {
  python3 - "$@" <<'PY'
import os, sys
roots = {int(p) for p in sys.argv[1:]}
kids, tick, total = {}, os.sysconf('SC_CLK_TCK'), 0
for d in os.listdir('/proc'):
    if d.isdigit():
        try:
            f = open(f'/proc/{d}/stat').read().rsplit(')', 1)[1].split()
            kids.setdefault(int(f[1]), []).append((int(d), int(f[11]) + int(f[12])))
        except OSError:
            pass
stack, seen = list(roots), set()
times = {}
for d in os.listdir('/proc'):
    if d.isdigit() and int(d) in roots:
        try:
            f = open(f'/proc/{d}/stat').read().rsplit(')', 1)[1].split()
            total += int(f[11]) + int(f[12])
        except OSError:
            pass
while stack:
    p = stack.pop()
    for c, t in kids.get(p, []):
        if c not in seen:
            seen.add(c); total += t; stack.append(c)
print(f'{total / tick:.2f}')
PY
}
kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate"; kn_finish; }
pg_pid=$(head -1 "$kn_pg_dir/postmaster.pid")
token="bc-$RANDOM$RANDOM"
KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
  kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || kn_finish
base=$api_base
"$src/tests/integration/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || { kn_fail "node packages"; kn_finish; }
kn_chromium_start "$tmp" || kn_finish
kn_sites_start "$kn" "$src/tests/sites" "$tmp/sites.log" || kn_finish
sed "s/127\.0\.0\.1:8100/127.0.0.1:$port/g" "$src/tests/sites/live/tasks.yaml" >"$tmp/tasks.yaml"
curl -s -o /dev/null -H "Authorization: Bearer $token" --data-binary @"$tmp/tasks.yaml" "$base/api/tasksets?name=live"
printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$tmp/keynode.yaml"
"$kn" worker --config "$tmp/keynode.yaml" --browser "$cdp" --poll 200 >"$tmp/worker.log" 2>&1 &
worker_pid=$!
kn_pids+=("$worker_pid")
rows=()
for viewers in 0 1 3; do
  n0=$(kn_psql "SELECT count(*) FROM replay_results")
  w0=$(cpu "$worker_pid") s0=$(cpu "$serve_pid") c0=$(cpu "$cpid") p0=$(cpu "$pg_pid")
  if [ "$viewers" -gt 0 ]; then
    node "$src/tests/bench/bench_live_viewer.mjs" "$base" "$token" "$viewers" 180 >"$tmp/view.json" 2>"$tmp/view.err" &
    vpid=$!
    sleep 1
  fi
  curl -s -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' --data '{"task": "live-busy"}' "$base/api/replays"
  kn_wait_sql 180 "SELECT count(*) > $n0 FROM replay_results" t || kn_fail "no result with $viewers viewers"
  w1=$(cpu "$worker_pid") s1=$(cpu "$serve_pid") c1=$(cpu "$cpid") p1=$(cpu "$pg_pid")
  got='-'
  if [ "$viewers" -gt 0 ]; then
    wait "$vpid" || kn_fail "viewers: $(cat "$tmp/view.err")"
    got=$(jq -r '[.viewers[] | "\(.frames) frames / \((.bytes / 1024) | floor) KiB"] | join(", ")' "$tmp/view.json")
  fi
  line=$(grep 'msg="live view"' "$tmp/worker.log" | tail -1)
  sc=$(sed -n 's/.* screencasts=\([0-9]*\).*/\1/p' <<<"$line") fr=$(sed -n 's/.* frames=\([0-9]*\).*/\1/p' <<<"$line")
  by=$(sed -n 's/.* bytes=\([0-9]*\).*/\1/p' <<<"$line")
  if [ "$viewers" = 0 ]; then
    [ "$sc" = 0 ] && [ "$fr" = 0 ] && kn_ok "nobody watching: no Page.startScreencast, no frame" ||
      kn_fail "nobody watching: screencasts=$sc frames=$fr"
  fi
  rows+=("| $viewers | $sc | $fr | $((by / 1024)) | $(python3 -c "print(f'{$w1-$w0:.2f}')") | $(python3 -c "print(f'{$s1-$s0:.2f}')") | $(python3 -c "print(f'{$c1-$c0:.2f}')") | $(python3 -c "print(f'{$p1-$p0:.2f}')") | $got |")
done
table="| viewers | startScreencast | frames sent up | KiB sent up (base64) | worker CPU s | serve CPU s | Chromium CPU s | PostgreSQL CPU s | each viewer received |
|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do table+=$'\n'"$r"; done
echo "$table"
if [ -n "$results" ]; then
  { echo; echo "Run $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1 /proc/loadavg), one 20 s replay of live-busy per row:"; echo; echo "$table"; } >>"$results"
fi
kn_finish
