#!/usr/bin/env bash
# multihost.sh — keynode deployed on several "hosts": network namespaces joined
# by veth links to a bridge in a namespace of their own, each host its own address on a private test
# subnet (10.231.0.0/24; the harness on a link of its own, 10.231.1.0/30, to the load balancer only):
#
#   db        10.231.0.2   a private throwaway PostgreSQL listening on its host address
#   lb        10.231.0.10  nginx (Debian's nginx-light), plain round robin over api1/api2 (no affinity),
#             10.231.1.1   websockets proxied; the harness's side. Each answer says which serve gave it
#                          (X-Kn-Upstream)
#   api1/2    10.231.0.11/12  `keynode serve` on one database, http.hosts: the load balancer's name; a run's
#                          calls reaching the serve that does not run it are forwarded to the one that does
#                          (its advertised address: its listen address), its live feed relayed
#   work1/2   10.231.0.21/22  `keynode worker --browser http://10.231.0.30:9222`
#   browsers  10.231.0.30  chromium-headless-shell, its CDP forwarded to 10.231.0.30:9222 (socat), and `keynode sites`
#                          (tests/sites) on the browser host's own 127.0.0.1:8100
#   harness   10.231.1.2   curl, node; knows only the load balancer (no route to 10.231.0.0/24)
#
# Checks, through the load balancer only: the task-set upload; external runs with harness-posted events
# spread over both serves (both serves' owners in runs, both upstreams in nginx's log; each run's event
# posts and stops answered by either serve, every event stored exactly once); replays queued with POST /api/replays run by both workers against the remote browser
# (each job done once, one passing result each); the dashboard and the live feed (/api/stream websocket);
# an agent-run batch (POST /api/agent-runs) whose attempts both workers run, each on a browser it launches
# (the sites on every host's loopback: the web is reachable from everywhere), every attempt stored once;
# a run watched on the remote browser (`keynode run --server` from work1, which reaches the lb at its
# inside address and the browser host: the serve that takes the run attaches to that browser and scores it).
# Faults, one by one: api1 cut from db (a blackhole route) while events arrive (acknowledged from its spool,
# flushed after, each stored once); work1's link cut while it holds a lease (its lease expires, work2 finishes the job,
# exactly one result); the browser host's link cut mid-replay (the worker's DevTools commands unanswered past
# replay.command_timeout_ms: error, never broken; the host back, the next replay passes); api1 SIGKILLed with a
# run live and not restarted (the load balancer fails over to api2, whose orphan sweep ends the run "service
# restarted"). PostgreSQL is read over its Unix socket.
#
#   tests/integration/multihost.sh KEYNODE_BIN REPO_DIR
#
# Needs root (ip netns), nginx, chromium-headless-shell, socat, PostgreSQL 15, node (node/ensure.sh), curl, jq:
# a missing one is a failure. Every namespace, link and process it makes goes in its EXIT trap.
# Env: KN_MH_RUNS (external runs, default 6), KN_MH_REPLAYS (queued replays, default 8), KN_KEEP=1.
#
# The sanitizer build makes 4 external runs instead of 6 (the same code paths and both faults).
# ctest: integration.multihost ARGS=keynode,repo TIMEOUT=480 SANITIZE_TIMEOUT=720 SANITIZE_ENV=KN_MH_RUNS=4
set -u -o pipefail
kn=${1:?usage: multihost.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: multihost.sh KEYNODE_BIN REPO_DIR}" && pwd)
. "$repo/tests/integration/lib.sh"
nruns=${KN_MH_RUNS:-6}
nreplays=${KN_MH_REPLAYS:-8}
for t in ip nginx chromium-headless-shell socat curl jq node; do
  command -v $t >/dev/null || { echo "FAIL $t not found"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "FAIL multihost.sh needs root (ip netns)"; exit 1; }
[ -x "$kn" ] || { echo "FAIL no keynode binary at $kn"; exit 1; }
"$repo/tests/integration/node/ensure.sh" || exit 1
kn_lib_init multihost
ns=kn$$ # every namespace this test makes: $ns-HOST
hosts=(net db lb api1 api2 work1 work2 browsers harness)
net_down() {
  local h p
  for h in "${hosts[@]}"; do
    ip netns list | grep -qw "$ns-$h" || continue
    for p in $(ip netns pids "$ns-$h" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    ip netns delete "$ns-$h"
  done
}
trap 'kn_lib_cleanup; net_down' EXIT
expect() { if [ "$2" = "$3" ]; then kn_ok "$1"; else kn_fail "$1: got '$2', want '$3'"; fi; }
nx() { local h=$1; shift; ip netns exec "$ns-$h" "$@"; } # run in host H's namespace (background jobs call
# ip netns exec themselves: it execs the command, so $! is the process, not a subshell)
t0=$(date +%s)

# ---- the network -----------------------------------------------------------------------------------------
net=10.231.0
for h in "${hosts[@]}"; do ip netns add "$ns-$h" && ip -n "$ns-$h" link set lo up || { kn_fail "ip netns add $ns-$h"; kn_finish; }; done
ip -n "$ns-net" link add br0 type bridge && ip -n "$ns-net" link set br0 up || { kn_fail "bridge"; kn_finish; }
declare -A addr=([db]=$net.2 [lb]=$net.10 [api1]=$net.11 [api2]=$net.12 [work1]=$net.21 [work2]=$net.22 [browsers]=$net.30)
for h in db lb api1 api2 work1 work2 browsers; do
  ip -n "$ns-net" link add "v-$h" type veth peer name eth0 netns "$ns-$h" &&
    ip -n "$ns-net" link set "v-$h" master br0 up &&
    ip -n "$ns-$h" addr add "${addr[$h]}/24" dev eth0 && ip -n "$ns-$h" link set eth0 up ||
    { kn_fail "link of $h"; kn_finish; }
done
# the harness: a link of its own to the load balancer, no route further
ip -n "$ns-lb" link add eth1 type veth peer name eth0 netns "$ns-harness" &&
  ip -n "$ns-lb" addr add 10.231.1.1/30 dev eth1 && ip -n "$ns-lb" link set eth1 up &&
  ip -n "$ns-harness" addr add 10.231.1.2/30 dev eth0 && ip -n "$ns-harness" link set eth0 up ||
  { kn_fail "the harness's link"; kn_finish; }
LB=http://10.231.1.1

# ---- db: a private cluster on its host address -----------------------------------------------------------
d=$tmp/pg/data s=$tmp/pg/sock
mkdir -p "$d" "$s" && chown postgres:postgres "$tmp/pg" "$d" "$s" && chmod 700 "$d"
su postgres -c "$kn_pgbin/initdb -D $d -U postgres -A trust -E UTF8 --no-sync" >"$tmp/initdb.log" 2>&1 ||
  { kn_fail "initdb: $(tail -3 "$tmp/initdb.log")"; kn_finish; }
echo "host all all $net.0/24 trust" >>"$d/pg_hba.conf"
# server-side TCP keepalives: a serve cut from db leaves its owner-lock session behind on the server
# (the client's end timed out, its RST dropped); until PostgreSQL notices, the lock says the owner lives
# and the runs of a later crash of that serve are never ended "service restarted" (finding)
pg_tcp="-c tcp_keepalives_idle=1 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3"
nx db su postgres -c "$kn_pgbin/pg_ctl -D $d -l $d/server.log -w -o \"-p 5432 -k $s -c listen_addresses='${addr[db]}' -c fsync=off $pg_tcp\" start" \
  >/dev/null 2>&1 || { kn_fail "PostgreSQL on db: $(tail -3 "$d/server.log")"; kn_finish; }
kn_pg_dir=$d
KN_PG_URL="host=$s port=5432 user=postgres dbname=keynode" # the test's own view, over the Unix socket
psql -q "host=$s port=5432 user=postgres dbname=postgres" -c "CREATE DATABASE keynode" >/dev/null || { kn_fail "CREATE DATABASE"; kn_finish; }
DB="host=${addr[db]} port=5432 user=postgres dbname=keynode connect_timeout=5"
# no TCP settings here: keynode's own libpq defaults (keepalives, tcp_user_timeout 5 s: services/store)
# are what a serve whose packets to db are dropped relies on to notice it and spool. Without any, a serve
# was once seen waiting on its open connection (TCP retransmission) with every events post a 503 after
# 10 s; that depends on the connection being busy when the link goes (not seen in every run)
nx api1 "$kn" migrate --database "$DB" >"$tmp/migrate.log" 2>&1 && kn_ok "keynode migrate from api1 over the network" ||
  { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; kn_finish; }

# ---- browsers: the sites on the browser host's loopback, CDP on its address ----------------------------
kn_spawn sites ip netns exec "$ns-browsers" "$kn" sites --dir "$repo/tests/sites" --port 8100 --log-requests
for h in work1 work2; do # the agent-run batch's browsers run on the workers: the sites on their loopback too
  kn_spawn "sites-$h" ip netns exec "$ns-$h" "$kn" sites --dir "$repo/tests/sites" --port 8100
done
# Chromium 156 ignores --remote-debugging-address (CDP on 127.0.0.1 only): socat forwards the host's
# address to it, so the workers reach the browser only through 10.231.0.30:9222. Its TCP keepalive and
# TCP_USER_TIMEOUT (setsockopt 6:18, 3 s) close the browser side of a connection whose worker dropped off the network: Chromium holds every new
# tab paused until each browser-level auto-attach client (a worker's monitor, waitForDebuggerOnStart)
# resumes it, so a dead worker's connection left open stalls every other worker on that browser
kn_spawn chromium ip netns exec "$ns-browsers" chromium-headless-shell --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --user-data-dir="$tmp/chrome" --remote-debugging-port=9223 about:blank
kn_spawn socat ip netns exec "$ns-browsers" socat "TCP-LISTEN:9222,bind=${addr[browsers]},fork,reuseaddr,keepalive,keepidle=1,keepintvl=1,keepcnt=3,setsockopt-int=6:18:3000" \
  TCP:127.0.0.1:9223
CDP=http://${addr[browsers]}:9222
cdp_up() { nx work1 curl -s --max-time 1 "$CDP/json/version" | grep -q webSocketDebuggerUrl; }
kn_wait_for "the browser host's CDP from work1" 60 cdp_up && kn_ok "CDP of the browser host reached from work1 at $CDP" ||
  { kn_fail "CDP: $(tail -3 "$tmp/chromium.log")"; kn_finish; }

# ---- api1, api2 -----------------------------------------------------------------------------------------
TOKEN=mh-$RANDOM$RANDOM
# the load balancer's name as the harness uses it; the load balancer a trusted proxy (its X-Forwarded-*);
# the orphan sweep every 20 s (default 30): an owner is swept after its lock was free at two sweeps in a row,
# so the db cut below (whose first batch waits out libpq's 5 s TCP timeout) may last 20–40 s, even at load
printf 'http:\n  hosts: ["10.231.1.1", "%s"]\n  trusted_proxies: ["%s"]\n  orphan_sweep_s: 20\n' "${addr[lb]}" "${addr[lb]}" >"$tmp/serve.yaml"
# serve_up HOST [N] — `keynode serve` on HOST's address, port 8080 (its log $tmp/HOST.log, appended to),
# up once the log holds N "serving" lines (default 1)
serve_up() {
  local h=$1
  kn_spawn -a "$h" ip netns exec "$ns-$h" env KEYNODE_DATABASE_URL="$DB" KEYNODE_API_TOKEN="$TOKEN" "$kn" serve \
    --config "$tmp/serve.yaml" --listen "${addr[$h]}:8080" --spool-dir "$tmp/spool-$h" --log-requests
  kn_wait_for "serve on $h to start" 60 serving_ "$tmp/$h.log" "${2:-1}" "$kn_pid"
  [ "$(serving_count_ "$tmp/$h.log")" -ge "${2:-1}" ] || { kn_fail "serve on $h did not start: $(tail -3 "$tmp/$h.log")"; kn_finish; }
}
serving_count_() { local c; c=$(grep -c 'msg="serving"' "$1" 2>/dev/null); echo "${c:-0}"; }
# serving_ LOG N PID — LOG holds N "serving" lines, or PID has ended (no use waiting on)
serving_() { [ "$(serving_count_ "$1")" -ge "$2" ] || ! kill -0 "$3" 2>/dev/null; }
serve_up api1
serve_up api2

# ---- lb ----------------------------------------------------------------------------------------------
mkdir -p "$tmp/nginx/logs"
cat >"$tmp/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log;
daemon off;
events { worker_connections 256; }
http {
  access_log $tmp/nginx/logs/access.log;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  log_format up '\$remote_addr "\$request" \$status up=\$upstream_addr';
  upstream keynode_api { server ${addr[api1]}:8080 max_fails=0; server ${addr[api2]}:8080 max_fails=0; }
  map \$http_upgrade \$connection_upgrade { default upgrade; "" close; }
  server {
    listen 10.231.1.1:80;
    listen ${addr[lb]}:80;
    access_log $tmp/nginx/logs/access.log up;
    location / {
      include $repo/deploy/lb/keynode-proxy.conf; # what deploy/compose.yaml's lb ships
      add_header X-Kn-Upstream \$upstream_addr always;
    }
  }
}
EOF
kn_spawn lb ip netns exec "$ns-lb" nginx -p "$tmp/nginx" -e "$tmp/nginx/logs/error.log" -c "$tmp/nginx/nginx.conf"
H() { nx harness "$@"; } # the harness's commands
api() { H curl -s --max-time 30 -H "Authorization: Bearer $TOKEN" "$@"; }
lb_up() { [ "$(H curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$LB/healthz")" = 200 ]; }
kn_wait_for "the load balancer to answer the harness" 30 lb_up && kn_ok "the load balancer answers the harness" ||
  { kn_fail "nginx: $(tail -3 "$tmp/nginx/logs/error.log")"; kn_finish; }
expect "the harness has no route to the serves, the database or the browser" \
  "$(for h in api1 db browsers; do H curl -s -o /dev/null --max-time 1 "http://${addr[$h]}:8080/" && echo "$h reached"; done)" ""
echo "  (set up in $(($(date +%s) - t0)) s)"

# ---- task set, API runs with harness-posted events ------------------------------------------------------
cp "$repo/tests/sites/tasks.yaml" "$tmp/tasks.yaml" # its URLs name 127.0.0.1:8100: the browser host's own loopback
expect "task set uploaded through the load balancer" \
  "$(api -o /dev/null -w '%{http_code}' --data-binary @"$tmp/tasks.yaml" "$LB/api/tasksets?name=sites")" 201
expect "a foreign Host is refused behind the proxy (http.hosts)" \
  "$(H curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "$LB/api/runs")" 403
expect "the refusal names the harness, not the load balancer (X-Forwarded-For from a trusted proxy)" \
  "$(grep -h 'msg="request refused" reason="host not allowed"' "$tmp/api1.log" "$tmp/api2.log" | grep -c 'client=10.231.1.2')" 1
expect "reads need the token (not a loopback listener)" "$(H curl -s -o /dev/null -w '%{http_code}' "$LB/api/runs")" 401

# new_run — POST /api/runs through the lb; prints "ID UPSTREAM"
new_run() {
  api -D "$tmp/run.hdr" -o "$tmp/run.json" -d '{"task":"sites:shop-red-runner-cart"}' "$LB/api/runs" >/dev/null
  echo "$(jq -r .id "$tmp/run.json") $(tr -d '\r' <"$tmp/run.hdr" | sed -n 's/^X-Kn-Upstream: //Ip')"
}
runs=() ups=() n=0 bad=0
for i in $(seq 1 "$nruns"); do
  read -r id up < <(new_run)
  [[ "$id" == r-* ]] || { bad=1; echo "    run $i: $(cat "$tmp/run.json")"; continue; }
  runs+=("$id") ups+=("$up")
done
# the live feed of the first run through the lb, twice: round robin takes the two websockets to both serves
for w in 1 2; do
  kn_spawn "stream$w" ip netns exec "$ns-harness" node "$repo/tests/integration/stream-client.mjs" \
    "ws://10.231.1.1/api/stream?run=${runs[0]}&token=$TOKEN" "$tmp/stream$w.out" "${runs[0]}" 60
  # no check here: the feed's checks below say whether it opened
  kn_wait_for "live feed $w to open" 10 grep -q '"type":"open"' "$tmp/stream$w.out"
done
# each batch's run and answering serve (X-Kn-Upstream); one more request per round, so with round robin
# the batches of each run alternate between the serves
: >"$tmp/posts.txt"
for k in $(seq 1 5); do
  [ $((${#runs[@]} % 2)) = 0 ] && H curl -s -o /dev/null "$LB/healthz"
  for j in "${!runs[@]}"; do
    b=$(for e in 1 2 3 4; do printf '{"t":%d,"type":"navigate","url":"http://127.0.0.1:8100/shop/search.html?n=%d"}\n' $((k * 4 + e)) $((n + e)); done)
    n=$((n + 4))
    c=$(api -D "$tmp/ev.hdr" -o /dev/null -w '%{http_code}' --data-binary "$b" "$LB/api/runs/${runs[$j]}/events")
    [ "$c" = 200 ] || { bad=1; echo "    events of ${runs[$j]} (made on ${ups[$j]}): $c"; }
    echo "$j $(tr -d '\r' <"$tmp/ev.hdr" | sed -n 's/^X-Kn-Upstream: //Ip')" >>"$tmp/posts.txt"
  done
done
expect "$nruns runs made through the lb, 5 event batches each posted and acknowledged (no affinity)" "$bad" 0
expect "each run's event batches answered by both serves (the one that does not run it forwards them)" \
  "$(sort -u "$tmp/posts.txt" | awk '{n[$1]++} END {for (r in n) if (n[r] == 2) k++; print k + 0}')" "${#runs[@]}"
bad=0 other=0
for j in "${!runs[@]}"; do
  c=$(api -D "$tmp/stop.hdr" -o "$tmp/stop.json" -w '%{http_code}' -X POST "$LB/api/runs/${runs[$j]}/stop")
  [ "$c" = 200 ] && [ "$(jq -r .run "$tmp/stop.json")" = "${runs[$j]}" ] || { bad=1; echo "    stop ${runs[$j]}: $c $(head -c 200 "$tmp/stop.json")"; }
  [ "$(tr -d '\r' <"$tmp/stop.hdr" | sed -n 's/^X-Kn-Upstream: //Ip')" = "${ups[$j]}" ] || other=$((other + 1))
done
expect "every stop through the lb answered with the run's result ($other of $nruns by the serve that does not run it)" "$bad" 0
expect "the runs spread over both serves (their X-Kn-Upstream)" "$(printf '%s\n' "${ups[@]}" | sort -u | tr '\n' ' ')" \
  "${addr[api1]}:8080 ${addr[api2]}:8080 "
expect "both serves' owners in runs" \
  "$(kn_psql "SELECT count(DISTINCT owner) FROM runs WHERE id IN ($(printf "'%s'," "${runs[@]}" | sed 's/,$//'))")" 2
expect "nginx's log: requests went to both upstreams" \
  "$(grep -o 'up=10\.231\.0\.1[12]:8080' "$tmp/nginx/logs/access.log" | sort -u | tr '\n' ' ')" \
  "up=${addr[api1]}:8080 up=${addr[api2]}:8080 "
grep -q 'POST /api/runs/' "$tmp/api1.log" && grep -q 'POST /api/runs/' "$tmp/api2.log" &&
  kn_ok "each serve's log shows event posts" || kn_fail "event posts in the serves' logs"
seq 1 "$n" >"$tmp/posted.txt"
kn_psql "SELECT substring(line->>'url' from 'n=([0-9]+)') FROM events WHERE run_id IN ($(printf "'%s'," "${runs[@]}" | sed 's/,$//'))" |
  sort -n >"$tmp/stored.txt"
expect "every posted event stored exactly once ($n)" "$(diff "$tmp/posted.txt" "$tmp/stored.txt" >/dev/null && echo same)" same
expect "each run's events in posting order (seq 1..20)" \
  "$(kn_psql "SELECT count(*) FROM (SELECT array_agg(substring(line->>'url' from 'n=([0-9]+)')::int ORDER BY seq) a, max(seq) m FROM events WHERE run_id IN ($(printf "'%s'," "${runs[@]}" | sed 's/,$//')) GROUP BY run_id) d WHERE m = 20 AND cardinality(a) = 20 AND a = (SELECT array_agg(x ORDER BY x) FROM unnest(a) x)")" "$nruns"
expect "every run ended (stop through the lb)" \
  "$(kn_psql "SELECT count(*) FROM runs WHERE ended IS NOT NULL AND id IN ($(printf "'%s'," "${runs[@]}" | sed 's/,$//'))")" "$nruns"

# ---- fault: api1 cut from db while events arrive (a blackhole route: its link to the lb stays up) ----------
# run_on HOST — a run made through the lb that landed on HOST (others made on the way are stopped); sets on_run
run_on() {
  local id up
  on_run=
  for _ in 1 2 3 4; do
    read -r id up < <(new_run)
    [ "$up" = "${addr[$1]}:8080" ] && { on_run=$id; return 0; }
    api -o /dev/null -X POST "$LB/api/runs/$id/stop"
    api -o /dev/null "$LB/healthz" # round robin: the next run goes to the other serve
  done
  return 1
}
if run_on api1; then
  ip -n "$ns-api1" route add blackhole "${addr[db]}/32"
  bad=0 m=1000
  for k in $(seq 1 10); do
    b=$(for e in 1 2 3 4; do printf '{"t":%d,"type":"navigate","url":"http://127.0.0.1:8100/shop/search.html?n=%d"}\n' $((k * 4 + e)) $((m + e)); done)
    m=$((m + 4))
    c=$(api -o "$tmp/cut.json" -w '%{http_code}' --data-binary "$b" "$LB/api/runs/$on_run/events")
    [ "$c" = 200 ] || { bad=1; echo "    batch $k: $c $(cat "$tmp/cut.json")"; }
  done
  expect "api1 cut from db: 10 event batches acknowledged" "$bad" 0
  grep -q 'msg="database unreachable, spooling' "$tmp/api1.log" && kn_ok "api1 spooled them (its log)" ||
    kn_fail "api1 did not say it spools: $(grep component=ingest "$tmp/api1.log" | tail -2)"
  ip -n "$ns-api1" route del blackhole "${addr[db]}/32"
  kn_wait_sql 30 "SELECT count(*) FROM events WHERE run_id = '$on_run'" 40 || kn_fail "the spool was not flushed"
  expect "the spool flushed: each of the 40 events stored once" \
    "$(kn_psql "SELECT count(DISTINCT line->>'url') || ' ' || count(*) || ' ' || max(seq) FROM events WHERE run_id = '$on_run'")" "40 40 40"
  expect "stop after the outage" "$(api -X POST "$LB/api/runs/$on_run/stop" | jq -r .status)" incomplete
  grep -q 'owner lock taken again' "$tmp/api1.log" && echo "  (api1's owner lock session was ended by PostgreSQL during the cut; api1 took the lock again)"
else
  kn_fail "no run landed on api1"
fi

# ---- the live feed and the dashboard through the lb --------------------------------------------------------
for w in 1 2; do
  kn_wait_exit "stream$w" 120; rc=$kn_rc
  [ $rc = 0 ] && [ "$(grep -c '"type":"event"' "$tmp/stream$w.out")" = 20 ] &&
    [ "$(jq -r 'select(.type=="event") | .seq' "$tmp/stream$w.out" | tr '\n' ' ')" = "$(seq 1 20 | tr '\n' ' ')" ] &&
    grep -q '"type":"end"' "$tmp/stream$w.out" &&
    kn_ok "live feed $w (websocket through nginx; the run made on ${ups[0]}): the run's 20 events in order and its end" ||
    kn_fail "live feed $w (run of ${ups[0]}): exit $rc, $(head -c 300 "$tmp/stream$w.out")"
done
expect "the two feeds were served by both serves (nginx's log)" \
  "$(grep '/api/stream' "$tmp/nginx/logs/access.log" | grep -o 'up=[0-9.:]*' | sort -u | tr '\n' ' ')" \
  "up=${addr[api1]}:8080 up=${addr[api2]}:8080 "
expect "dashboard page through the lb" "$(H curl -s "$LB/" | grep -c 'src="/static/app.js"')" 1
expect "dashboard script through the lb" "$(H curl -s -o /dev/null -w '%{http_code}' "$LB/static/app.js")" 200
echo "  (runs and feed done at $(($(date +%s) - t0)) s)"

# ---- replays queued through the lb, run by both workers on the remote browser ----------------------------
# database from KEYNODE_DATABASE_URL; a DevTools command unanswered for 7 s is the browser's fault (the
# browser host lost below), not the site's
# agents: the agent-run batch below (each worker's attempts on a browser it launches itself)
cat >"$tmp/worker.yaml" <<EOF
# database from KEYNODE_DATABASE_URL
replay: {command_timeout_ms: 7000}
agents:
  pw: "exec node $repo/tests/agents/playwright.mjs"
EOF
# worker_up HOST — `keynode worker` on HOST (stdout $tmp/HOST.out, stderr $tmp/HOST.log), spawned as HOST
worker_up() {
  kn_spawn -o "$tmp/$1.out" -e "$tmp/$1.log" "$1" ip netns exec "$ns-$1" env KEYNODE_DATABASE_URL="$DB" "$kn" worker \
    --config "$tmp/worker.yaml" --browser "$CDP" --id "$1" --agent-out "$tmp/agent-jobs-$1" \
    --poll 200 --lease 4 --element-timeout 5000 --settle-timeout 20000
}
# popup-newsletter: its popup's actions went unrecorded on this browser (chromium-headless-shell) until
# the monitor re-added the recorder's listeners in a reused window (replay.sh) — broken on an unchanged site
tasks=${KN_MH_TASKS:-shop-red-runner-cart forum-new-post popup-newsletter spa-mail-dark-theme forum-compare-replies shop-checkout}
tasks=($tasks)
first=$(kn_psql "SELECT coalesce(max(id), 0) FROM jobs")
bad=0
for i in $(seq 1 "$nreplays"); do
  t=${tasks[$(((i - 1) % ${#tasks[@]}))]}
  c=$(api -o "$tmp/rp.json" -w '%{http_code}' -d "{\"task\":\"sites:$t\"}" "$LB/api/replays")
  [ "$c" = 202 ] || { bad=1; echo "    replay $t: $c $(cat "$tmp/rp.json")"; }
done
expect "$nreplays replays queued through the lb" "$bad" 0
batch="id > $first"
worker_up work1
worker_up work2
# fault: work1's link cut while it holds a lease, after it finished two jobs — freeze it, check the lease
# is its own, cut, thaw
kn_wait_sql 120 "SELECT count(*) >= 2 FROM jobs WHERE $batch AND worker = 'work1' AND state = 'done'" t ||
  kn_fail "work1 finished no two replays: $(tail -3 "$tmp/work1.log")"
# cut_work1_ — when work1 holds a lease: freeze it, and if the lease is still its own, cut its link and write
# the job to $tmp/cut_job; thaw it either way. Succeeds once cut (kn_wait_for runs it in a subshell: the
# job id goes through the file)
cut_work1_() {
  local j p=${kn_spawned[work1]}
  j=$(kn_psql "SELECT id FROM jobs WHERE worker = 'work1' AND state = 'running' AND $batch LIMIT 1")
  [ -n "$j" ] || return 1
  kill -STOP "$p"
  if [ "$(kn_psql "SELECT state || ' ' || worker FROM jobs WHERE id = $j")" = "running work1" ]; then
    ip -n "$ns-work1" link set eth0 down
    echo "$j" >"$tmp/cut_job"
    kill -CONT "$p"
    return 0
  fi
  kill -CONT "$p"
  return 1
}
kn_wait_for "work1 to hold a lease" 60 cut_work1_
cut_job=$(cat "$tmp/cut_job" 2>/dev/null)
[ -n "$cut_job" ] && kn_ok "work1's link cut while it holds the lease of job $cut_job" || kn_fail "work1 never held a lease"
kn_wait_sql 180 "SELECT count(*) FROM jobs WHERE $batch AND state = 'done'" "$nreplays" &&
  kn_ok "all $nreplays replays done" || kn_fail "replays done: $(tail -3 "$tmp/work2.log")"
[ -n "$cut_job" ] && expect "the cut worker's job finished by work2 after its lease expired" \
  "$(kn_psql "SELECT state || ' ' || worker || ' ' || (attempts >= 2) FROM jobs WHERE id = $cut_job")" "done work2 true"
# work1 back on the network: whatever it still held must not make a second result
ip -n "$ns-work1" link set eth0 up
kn_stop_name work1
kn_stop_name work2
expect "one result per replay job, none twice" \
  "$(kn_psql "SELECT count(*) || ' ' || count(DISTINCT job_id) FROM replay_results WHERE job_id > $first")" "$nreplays $nreplays"
expect "every replay passed on the remote browser" \
  "$(kn_psql "SELECT count(*) FROM replay_results WHERE job_id > $first AND status = 'passed'")" "$nreplays"
expect "both workers stored replays" "$(kn_psql "SELECT count(DISTINCT owner) FROM runs WHERE kind = 'replay'")" 2
expect "every job points at its result" \
  "$(kn_psql "SELECT count(*) FROM jobs j JOIN replay_results r ON r.id = j.replay_id AND r.job_id = j.id WHERE j.$batch")" "$nreplays"
echo "  (jobs per worker: $(kn_psql "SELECT string_agg(worker || '=' || n, ' ') FROM (SELECT worker, count(*) n FROM jobs WHERE $batch GROUP BY worker ORDER BY worker) d"); at $(($(date +%s) - t0)) s)"
expect "a replay's result through the lb" \
  "$(api "$LB/api/replays?task=sites:shop-checkout&limit=10" | jq -r '[.replays[] | .status] | unique | join(",")')" passed

# ---- fault: the browser host lost mid-replay (its link down: no reset, the worker's DevTools commands go
# unanswered) — an error (browser timeout, then on the retry browser unreachable), never broken; the host
# back, the next replay of the same task passes
worker_up work2
seen=$(grep -c 'path="/shop/item.html"' "$tmp/sites.log")
lost=$(api -d '{"task":"sites:shop-checkout"}' "$LB/api/replays" | jq -r '.job // empty')
# the replay under way: the browser fetched the product page (step 1; eleven steps to come)
fetched_item_() { [ "$(grep -c 'path="/shop/item.html"' "$tmp/sites.log")" -gt "$seen" ]; }
under_way=
kn_wait_for "the replay of job $lost to be under way" 60 fetched_item_ && under_way=1
ip -n "$ns-browsers" link set eth0 down
[ -n "$under_way" ] && kn_ok "the browser host cut while the replay of job $lost was under way" ||
  kn_fail "no replay under way to cut (job $lost): $(tail -3 "$tmp/work2.log")"
kn_wait_sql 180 "SELECT state FROM jobs WHERE id = $lost" done ||
  kn_fail "the cut replay's job never finished: $(tail -5 "$tmp/work2.log")"
# the first try's verdict (browser timeout) is retried; the retries cannot reach the browser, so the job
# ends "browser failed N times" after its lease-expiry re-claims (services/scheduler/README.md)
lost_result=$(kn_psql "SELECT status || '|' || coalesce(report->'broken'->>'reason', report->'error'->>'reason', '')
  FROM replay_results WHERE job_id = $lost")
case $lost_result in
  "error|browser timeout"* | "error|navigation timeout"* | "error|browser "*) kn_ok "the replay on the lost browser host is an error, not broken (${lost_result#*|})" ;;
  *) kn_fail "the replay on the lost browser host: '$lost_result', want an error the browser caused" ;;
esac
ip -n "$ns-browsers" link set eth0 up
again=$(api -d '{"task":"sites:shop-checkout"}' "$LB/api/replays" | jq -r '.job // empty')
kn_wait_sql 180 "SELECT state FROM jobs WHERE id = $again" done ||
  kn_fail "the replay after the host came back never finished: $(tail -5 "$tmp/work2.log")"
expect "the host back: the next replay passes" "$(kn_psql "SELECT status FROM replay_results WHERE job_id = $again")" passed
expect "the task's health is not broken" \
  "$(kn_psql "SELECT h.state <> 'broken' FROM task_health h JOIN tasks t ON t.id = h.task_id JOIN tasksets s ON s.id = t.taskset_id WHERE s.name = 'sites' AND t.task_key = 'shop-checkout'" 2>&1)" t
kn_stop_name work2

# ---- an agent-run batch through the lb, spread over both workers --------------------------------------
# each worker launches its own browser for an attempt (services/scheduler/README.md "Agent jobs"), which
# reaches the sites on its host's loopback (started at the top: the web is reachable from every host)
worker_up work1
worker_up work2
ab=$(api -d '{"agent":"pw","tasks":["sites:shop-red-runner-cart","sites:shop-checkout"],"repeat":2}' "$LB/api/agent-runs" | jq -r '.id // empty')
[ -n "$ab" ] && kn_ok "an agent-run batch made through the lb (batch $ab, 4 attempts)" || kn_fail "POST /api/agent-runs through the lb"
kn_wait_sql 240 "SELECT count(*) FROM agent_results WHERE batch = ${ab:-0}" 4 ||
  kn_fail "the batch's attempts: $(tail -3 "$tmp/work1.log"; tail -3 "$tmp/work2.log")"
expect "every attempt stored once, completed" \
  "$(kn_psql "SELECT count(*) || ' ' || count(DISTINCT job_id) || ' ' || count(*) FILTER (WHERE completed) FROM agent_results WHERE batch = ${ab:-0}")" "4 4 4"
expect "the batch's attempts were run by both workers" \
  "$(kn_psql "SELECT count(DISTINCT worker) FROM agent_results WHERE batch = ${ab:-0}")" 2
expect "the batch through the lb: every job done, 4 successes" \
  "$(api "$LB/api/agent-runs/${ab:-0}" | jq -r '"\(.done) \(.metrics.successes)"')" "4 4"
expect "each attempt's run and events stored (kind agent)" \
  "$(kn_psql "SELECT count(DISTINCT r.id) FROM runs r JOIN agent_results a ON a.result->>'run' = r.id WHERE a.batch = ${ab:-0} AND r.kind = 'agent' AND EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.id)")" 4
kn_stop_name work1
kn_stop_name work2

# ---- a run watched on the remote browser: `keynode run --server` from work1 (a client that reaches the
# lb and the browser host) makes each attempt's tab on the browser host and POST /api/runs with that
# browser through the lb; the serve that takes it attaches to the browser host over CDP and scores it
nx work1 env KEYNODE_API_TOKEN=$TOKEN "$kn" run --server "http://${addr[lb]}" --taskset sites --tasks "$tmp/tasks.yaml" \
  --task shop-checkout --browser "$CDP" --out "$tmp/remote-run" --timeout 120 --retries 0 \
  --agent "exec node $repo/tests/agents/playwright.mjs" >"$tmp/remote-run.log" 2>&1
expect "keynode run --server on the remote browser: exit 0" $? 0
rr=$(jq -r .run "$tmp/remote-run/shop-checkout/1/result.json" 2>/dev/null)
expect "the watched run completed the task (its result.json)" \
  "$(jq -r '"\(.completion) \(.score)"' "$tmp/remote-run/shop-checkout/1/result.json" 2>/dev/null)" "true 1"
expect "the same run through the lb: ended, completed, watched by one of the serves" \
  "$(api "$LB/api/runs/$rr" | jq -r '"\(.completion) \(.score)"') $(kn_psql "SELECT owner IN (SELECT owner FROM serve_instances) FROM runs WHERE id = '$rr'")" "true 1 t"

# ---- fault: api1 killed for good while a run is live ------------------------------------------------------
run_on api1; live=$on_run
if [ -z "$live" ]; then kn_fail "no run landed on api1"; else
  api -o /dev/null -d '{"t":1,"type":"navigate","url":"http://127.0.0.1:8100/shop/search.html?q=x"}' \
    "$LB/api/runs/$live/events" -w '%{http_code}' >"$tmp/live.code"
  expect "a run live on api1 with an acknowledged event, in PostgreSQL" \
    "$(cat "$tmp/live.code") $(kn_psql "SELECT count(*) FROM events WHERE run_id = '$live'")" "200 1"
  kn_stop_name api1 KILL
  ok=0
  for _ in $(seq 1 10); do [ "$(H curl -s -o /dev/null -w '%{http_code}' "$LB/healthz")" = 200 ] && ok=$((ok + 1)); done
  expect "api1 down: the lb still answers (10 of 10 through api2)" "$ok" 10
  read -r id2 up2 < <(new_run)
  expect "api1 down: a new run is made on api2 (the last upstream nginx tried)" "${up2##* }" "${addr[api2]}:8080"
  api -o /dev/null -X POST "$LB/api/runs/$id2/stop"
  # not restarted: api2's orphan sweep ends the run once it found api1's lock free at two sweeps (20 s apart); bounded wait, not a timing assertion
  kn_wait_sql 120 "SELECT status || ',' || (ended IS NOT NULL) || ',' || (result->>'reason') FROM runs WHERE id = '$live'" \
    "error,true,service restarted" &&
    kn_ok "api1 killed and not restarted: api2's orphan sweep ended its live run as service restarted" ||
    kn_fail "sweep: $(kn_psql "SELECT status, ended FROM runs WHERE id = '$live'") $(grep 'orphan sweep' "$tmp/api2.log" | tail -2)"
  grep -q 'orphan sweep: ended runs left live by a dead process" runs=1' "$tmp/api2.log" && kn_ok "api2's log says so" ||
    kn_fail "api2's log: $(grep 'orphan' "$tmp/api2.log" | tail -2)"
  expect "the ended run through the lb" "$(api "$LB/api/runs/$live" | jq -r '.status')" error
  c=$(api -o "$tmp/late.json" -w '%{http_code}' -d '{"t":2,"type":"click"}' "$LB/api/runs/$live/events")
  expect "its events after that: 409 (the run already ended), not stored" "$c $(kn_psql "SELECT count(*) FROM events WHERE run_id = '$live'")" "409 1"
  kn_wait_sql 30 "SELECT string_agg(address, ' ') FROM serve_instances" "${addr[api2]}:8080" &&
    kn_ok "serve_instances: api1's row gone, api2's left" || kn_fail "serve_instances: $(kn_psql 'SELECT owner, address FROM serve_instances')"
fi
expect "no run left live" "$(kn_psql "SELECT count(*) FROM runs WHERE ended IS NULL")" 0
# stop every keynode process the usual way (SIGTERM) so a sanitizer build reports what it found
kn_stop_name api1
kn_stop_name api2
expect "no sanitizer report in any keynode log" \
  "$(grep -l 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$tmp"/*.log "$tmp"/*.out 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')" ""
echo "  (total $(($(date +%s) - t0)) s)"
kn_finish
