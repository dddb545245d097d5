#!/usr/bin/env bash
# alerts.sh DRIVER KEYNODE REPO — alerts and the scheduler against a real private PostgreSQL
# (`keynode migrate`), a loopback webhook receiver (alert-receiver.mjs: 500 to the first 2 requests,
# Slack-shaped 429 to the first one) and a dead channel (a closed port). DRIVER is alerts_test.
# Checks: each alert reaches each receiver exactly once after the retries, in the right shape;
# every delivery is recorded with its attempts; dedupe holds until an ack; a LISTEN keynode_alerts
# session sees one NOTIFY per alert; the scheduler enqueues exactly one job set per fire, also when
# two schedulers race, with one catch-up after downtime.
#
# ctest: integration.alerts ARGS=target:alerts_test,keynode,repo TIMEOUT=300
set -u
drv=$1 kn=$2 repo=$3
. "$(dirname "$0")/lib.sh"
kn_lib_init alerts
command -v node >/dev/null || { kn_fail "node is not installed"; kn_finish; }
command -v psql >/dev/null || { kn_fail "psql is not installed"; kn_finish; }

kn_pg_start || kn_finish
"$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 && kn_ok "keynode migrate" ||
  kn_fail "keynode migrate: $(tail -3 "$tmp/migrate.log")"
[ "$(kn_psql "SELECT count(*) FROM schema_migrations WHERE version = 10")" = 1 ] &&
  kn_ok "migration 010_schedule applied" || kn_fail "migration 010_schedule not applied"

# --- receiver
kn_spawn -o "$tmp/receiver.out" -e "$tmp/receiver.err" receiver node "$(dirname "$0")/alert-receiver.mjs" "$tmp/port" "$tmp/received.jsonl"
kn_wait_for "the receiver's port" 20 test -s "$tmp/port"
rport=$(cat "$tmp/port" 2>/dev/null)
[ -n "$rport" ] || { kn_fail "receiver did not start: $(cat "$tmp/receiver.err")"; kn_finish; }
kn_dead_port

# --- a LISTEN session, fed through a FIFO so it stays open while the driver runs
mkfifo "$tmp/psql.in"
# (psql opens the FIFO itself: opened here the shell would wait for a writer)
kn_spawn -o "$tmp/notify.out" listen sh -c 'exec psql -X -A -t "$1" <"$2"' listen "$KN_PG_URL" "$tmp/psql.in"
lpid=$kn_pid
exec 3>"$tmp/psql.in"
echo "LISTEN keynode_alerts;" >&3
kn_wait_for "psql to run LISTEN" 20 grep -q '^LISTEN' "$tmp/notify.out"
grep -q '^LISTEN' "$tmp/notify.out" && kn_ok "LISTEN keynode_alerts" || kn_fail "LISTEN did not run"

# --- the alerts driver
"$drv" alerts "$KN_PG_URL" "http://127.0.0.1:$rport/hook/fail-2" "http://127.0.0.1:$rport/slack/429-1" \
  "http://127.0.0.1:$dead/gone" >"$tmp/driver.out" 2>"$tmp/driver.err"
rc=$?
cat "$tmp/driver.out"
[ $rc = 0 ] && kn_ok "alerts driver" || kn_fail "alerts driver exit $rc: $(tail -5 "$tmp/driver.err")"

echo "SELECT 'done';" >&3
exec 3>&-
wait "$lpid"; kn_forget "$lpid"

# receiver log: 4 alerts, webhook 2 failures first, slack 1 x 429 first
rl=$tmp/received.jsonl
cnt() { node -e '
  const [f, path, status] = process.argv.slice(1);
  const lines = require("fs").readFileSync(f, "utf8").trim().split("\n").map(JSON.parse);
  console.log(lines.filter(l => l.path === path && (status === "" || String(l.status) === status)).length);
' "$rl" "$1" "${2:-}"; }
[ "$(cnt /hook/fail-2)" = 6 ] && kn_ok "webhook: 6 requests (2 answered 500, 4 alerts)" ||
  kn_fail "webhook requests: $(cnt /hook/fail-2), want 6"
[ "$(cnt /hook/fail-2 200)" = 4 ] && kn_ok "webhook: 4 alerts accepted" || kn_fail "webhook 200s: $(cnt /hook/fail-2 200)"
[ "$(cnt /slack/429-1)" = 5 ] && kn_ok "slack: 5 requests (1 answered 429)" || kn_fail "slack requests: $(cnt /slack/429-1), want 5"
[ "$(cnt /slack/429-1 200)" = 4 ] && kn_ok "slack: 4 messages accepted" || kn_fail "slack 200s: $(cnt /slack/429-1 200)"

# shapes: webhook bodies are the alert JSON, one per distinct id; slack bodies have text + blocks
node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  const ok = lines.filter(l => l.status === 200);
  const hooks = ok.filter(l => l.path.startsWith("/hook")).map(l => JSON.parse(l.body));
  const ids = new Set(hooks.map(h => h.id));
  if (ids.size !== 4) throw new Error("distinct webhook ids " + ids.size);
  for (const h of hooks) {
    for (const k of ["id", "dedupe_key", "severity", "title", "detail", "created"])
      if (!(k in h)) throw new Error("webhook body lacks " + k);
  }
  const keys = hooks.map(h => h.dedupe_key + "=" + h.severity).sort().join(",");
  const want = "health:shop-1:broken=critical,health:shop-1:recovered=info,run-below:shop-1=warning,run-below:shop-1=warning";
  if (keys !== want) throw new Error("keys " + keys);
  const broken = hooks.find(h => h.dedupe_key === "health:shop-1:broken");
  if (JSON.stringify(broken.detail.evidence) !== "{\"replays\":[11,12]}" || broken.detail.from !== "healthy")
    throw new Error("broken detail " + JSON.stringify(broken.detail));
  const low = hooks.find(h => h.dedupe_key === "run-below:shop-1" && h.detail.run === "r-1");
  if (!low || low.detail.score !== 0.4 || low.detail.threshold !== 0.7 || low.detail.total !== 5)
    throw new Error("run-below detail " + JSON.stringify(low && low.detail));
  if (!ok.every(l => /^application\/json/.test(l.type))) throw new Error("content-type");
  const slack = ok.filter(l => l.path.startsWith("/slack")).map(l => JSON.parse(l.body));
  for (const s of slack) {
    if (typeof s.text !== "string" || !Array.isArray(s.blocks) || s.blocks[0].type !== "section" ||
        s.blocks[0].text.type !== "mrkdwn") throw new Error("slack shape " + JSON.stringify(s));
  }
  if (!slack.some(s => s.text.startsWith("[critical] keynode: task shop-1 is broken (was healthy)")))
    throw new Error("slack text " + slack.map(s => s.text).join(" | "));
' "$rl" 2>"$tmp/shape.err" && kn_ok "webhook and Slack bodies have the documented shapes" ||
  kn_fail "body shapes: $(cat "$tmp/shape.err" | tail -3)"

# database: 4 alerts, one acked; 3 delivery rows each with the right attempts
[ "$(kn_psql "SELECT count(*) FROM alerts")" = 4 ] && kn_ok "4 alerts recorded (duplicates were not)" ||
  kn_fail "alerts recorded: $(kn_psql "SELECT count(*) FROM alerts")"
[ "$(kn_psql "SELECT count(*) FROM alerts WHERE acked_at IS NOT NULL")" = 1 ] && kn_ok "one alert acknowledged" ||
  kn_fail "acked alerts: $(kn_psql "SELECT count(*) FROM alerts WHERE acked_at IS NOT NULL")"
d=$(kn_psql "SELECT string_agg(format('%s:%s:%s', channel, ok, attempts), ',' ORDER BY alert_id, channel) FROM alert_deliveries")
want="slack[1]:t:2,webhook[0]:t:3,webhook[2]:f:4,slack[1]:t:1,webhook[0]:t:1,webhook[2]:f:4,slack[1]:t:1,webhook[0]:t:1,webhook[2]:f:4,slack[1]:t:1,webhook[0]:t:1,webhook[2]:f:4"
[ "$d" = "$want" ] && kn_ok "deliveries recorded with their attempts (retries on 500/429/refused)" ||
  kn_fail "deliveries: $d"
kn_psql "SELECT detail FROM alert_deliveries WHERE channel = 'webhook[2]' LIMIT 1" | grep -qi "connect" &&
  kn_ok "dead channel's failure says why ($(kn_psql "SELECT detail FROM alert_deliveries WHERE channel = 'webhook[2]' LIMIT 1"))" ||
  kn_fail "dead channel detail: $(kn_psql "SELECT detail FROM alert_deliveries WHERE channel = 'webhook[2]' LIMIT 1")"
n=$(grep -c 'Asynchronous notification "keynode_alerts"' "$tmp/notify.out")
[ "$n" = 4 ] && kn_ok "LISTEN saw 4 NOTIFY keynode_alerts" || kn_fail "NOTIFYs seen: $n ($(head -c 400 "$tmp/notify.out"))"
grep -q 'level=info component=alerts msg="alert delivered"' "$tmp/driver.err" && kn_ok "log lines in house format" ||
  kn_fail "no alerts log line"

# --- the scheduler driver
"$drv" scheduler "$KN_PG_URL" "$repo/tests/sites/tasks.yaml" >"$tmp/sched.out" 2>"$tmp/sched.err"
rc=$?
cat "$tmp/sched.out"
[ $rc = 0 ] && kn_ok "scheduler driver" || kn_fail "scheduler driver exit $rc: $(tail -5 "$tmp/sched.err")"
# exactly one job set per fire in the database
[ "$(kn_psql "SELECT count(*) FROM schedule_fires WHERE schedule = 'every-min'")" = 24 ] &&
  kn_ok "every-min: 24 fires recorded (21 + catch-up + 05:31 + wake-up)" ||
  kn_fail "every-min fires: $(kn_psql "SELECT count(*) FROM schedule_fires WHERE schedule = 'every-min'")"
tasks=$(kn_psql "SELECT count(*) FROM tasks WHERE active")
[ "$(kn_psql "SELECT count(*) FROM jobs WHERE schedule = 'every-min'")" = $((24 * tasks)) ] &&
  kn_ok "every-min: $((24 * tasks)) jobs, one per task per fire" ||
  kn_fail "every-min jobs: $(kn_psql "SELECT count(*) FROM jobs WHERE schedule = 'every-min'"), want $((24 * tasks))"
[ "$(kn_psql "SELECT sum(jobs) FROM schedule_fires") " = "$(kn_psql "SELECT count(*) FROM jobs") " ] &&
  kn_ok "schedule_fires.jobs adds up to the jobs table" || kn_fail "fire job counts do not add up"
[ "$(kn_psql "SELECT count(*) FROM schedule_fires WHERE catch_up")" = 4 ] &&
  kn_ok "4 fires marked catch-up (restart x2, wake-up x2)" ||
  kn_fail "catch-up fires: $(kn_psql "SELECT string_agg(schedule || '@' || fire_time, ', ') FROM schedule_fires WHERE catch_up")"
[ "$(kn_psql "SELECT count(*) FROM jobs j JOIN tasks t ON t.current_version = j.task_version WHERE j.schedule = 'shop-daily' AND t.taskset_id = (SELECT id FROM tasksets WHERE name = 'shop')")" = \
  "$(kn_psql "SELECT count(*) FROM tasks WHERE taskset_id = (SELECT id FROM tasksets WHERE name = 'shop')")" ] &&
  kn_ok "shop-daily enqueued the current versions of set shop only" || kn_fail "shop-daily jobs"
kn_finish
