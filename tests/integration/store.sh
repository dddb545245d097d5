#!/usr/bin/env bash
# store.sh — services/store against a real, private PostgreSQL cluster (lib.sh): the cmocka suite
# of store_test; `keynode migrate` (first run applies, second is "up to date", errors exit 2);
# kn_ingest streaming 20,000 events while this script stops and restarts the cluster (every event
# stored once, in order); and a process killed with SIGKILL while spooling (database down), whose
# spool — with a torn record appended, as a crash mid-write leaves — the next process flushes.
# usage: store.sh STORE_TEST_BIN KEYNODE_BIN
#
# ctest: integration.store ARGS=target:store_test,keynode TIMEOUT=600
set -uo pipefail
. "$(dirname "$0")/lib.sh"
st=$1 kn=$2
kn_lib_init store
kn_pg_start || kn_finish

# ---- keynode migrate
cfg=$tmp/keynode.yaml
printf 'database: { url: "%s" }\n' "$KN_PG_URL" >"$cfg"
out=$("$kn" migrate --config "$cfg" 2>&1); rc=$?
[ $rc = 0 ] && [[ "$out" == "migrate: applied "*" migration(s), schema version "* ]] &&
  kn_ok "keynode migrate applies ($out)" || kn_fail "keynode migrate: rc=$rc $out"
out=$("$kn" migrate --config "$cfg" 2>&1); rc=$?
[ $rc = 0 ] && [[ "$out" == "migrate: up to date"* ]] && kn_ok "keynode migrate again: $out" ||
  kn_fail "second migrate: rc=$rc $out"
out=$(KEYNODE_DATABASE_URL="$KN_PG_URL" "$kn" migrate --dir "$(dirname "$0")/../../schemas/sql" 2>&1); rc=$?
[ $rc = 0 ] && [[ "$out" == "migrate: up to date"* ]] && kn_ok "migrate --dir with the env url: up to date" ||
  kn_fail "migrate --dir: rc=$rc $out"
sock=$tmp/pg/sock
out=$("$kn" migrate --database "postgresql://postgres@/keynode?host=$sock" 2>&1); rc=$?
[ $rc = 0 ] && [[ "$out" == "migrate: up to date"* ]] && kn_ok "migrate --database with a postgresql:// URL" ||
  kn_fail "URL form: rc=$rc $out"
"$kn" migrate --help | grep -q '^usage: keynode migrate' && kn_ok "migrate --help" || kn_fail "migrate --help"
"$kn" migrate --bogus >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && kn_ok "bad flag exits 2" || kn_fail "bad flag exit $rc"
out=$(env -u KEYNODE_DATABASE_URL "$kn" migrate 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"no database"* ]] && kn_ok "no database exits 2" || kn_fail "no database: rc=$rc $out"
out=$("$kn" migrate --database "host=$tmp/nowhere dbname=x" 2>&1); rc=$?
[ $rc = 2 ] && [[ "$out" == *"cannot connect"* ]] && kn_ok "unreachable database exits 2" ||
  kn_fail "unreachable: rc=$rc $out"
mkdir -p "$tmp/badsql" && echo "CREATE TABLE kn_x (;" >"$tmp/badsql/950_bad.sql"
out=$("$kn" migrate --database "$KN_PG_URL" --dir "$tmp/badsql" 2>&1); rc=$?
[ $rc = 1 ] && [[ "$out" == *"950_bad.sql:1"* ]] && kn_ok "failing migration exits 1 with file:line" ||
  kn_fail "bad migration: rc=$rc $out"

# ---- the cmocka suite
if "$st" >"$tmp/suite.log" 2>&1; then
  kn_ok "store_test suite: $(grep -c '^\[       OK \]' "$tmp/suite.log") tests passed"
else
  cat "$tmp/suite.log"; kn_fail "store_test suite"
fi

# ---- ingest through an outage
spool=$tmp/spool-outage
kn_spawn -o "$tmp/outage.log" -e "$tmp/outage.err" outage "$st" outage "$spool" "$tmp/ready" "$tmp/go" 20000
opid=$kn_pid
kn_wait_for "outage mode to get ready" 60 kn_ended_or "$opid" test -e "$tmp/ready"
if [ -e "$tmp/ready" ]; then
  kn_pg_stop
  touch "$tmp/go"
  kn_wait_for "events in the spool" 10 test -s "$spool/spool.log"
  [ -s "$spool/spool.log" ] && kn_ok "events spooled while the database is down" ||
    kn_fail "nothing in the spool while the database is down"
  kn_pg_start
else
  kn_fail "outage mode never got ready: $(tail -3 "$tmp/outage.err")"
fi
wait $opid; rc=$?
kn_forget $opid
cat "$tmp/outage.log"
[ $rc = 0 ] && kn_ok "20,000 events through an outage: all stored once, in order" ||
  { tail -5 "$tmp/outage.err"; kn_fail "outage run (rc=$rc)"; }
n=$(kn_psql "SELECT count(*) FROM events WHERE run_id = 'r-outage'")
d=$(kn_psql "SELECT count(DISTINCT seq) FROM events WHERE run_id = 'r-outage' AND seq BETWEEN 1 AND 20000")
[ "$n" = 20000 ] && [ "$d" = 20000 ] && kn_ok "psql agrees: 20000 rows, seqs 1..20000" || kn_fail "psql: $n rows, $d seqs"

# ---- SIGKILL while spooling, then recovery
ver=$("$st" version)
spool=$tmp/spool-kill
kn_pg_stop
KN_TASK_VERSION=$ver kn_spawn -o "$tmp/kill.log" -e "$tmp/kill.err" spool-only "$st" spool-only "$spool" "$tmp/ready2" 5000
kpid=$kn_pid
kn_wait_for "spool-only mode to get ready" 60 kn_ended_or "$kpid" test -e "$tmp/ready2"
[ -e "$tmp/ready2" ] && kn_ok "spool-only: $(cat "$tmp/kill.log")" || kn_fail "spool-only: $(tail -3 "$tmp/kill.err")"
kn_stop $kpid KILL
# a crash mid-append leaves a torn record at the end
printf 'KN1 120 0badc0de {"k":"e","r":"r-killed","s":5001,"l":"{\\"n\\": 5001' >>"$spool/spool.log"
kn_pg_start
if "$st" recover "$spool" 5000 >"$tmp/recover.log" 2>"$tmp/recover.err"; then
  cat "$tmp/recover.log"; kn_ok "a new process flushed the killed one's spool"
else
  cat "$tmp/recover.log"; tail -5 "$tmp/recover.err"; kn_fail "recover"
fi
grep -q 'level=warn component=ingest msg="spool record' "$tmp/recover.err" &&
  kn_ok "the torn record was dropped with a warning" || kn_fail "no warning for the torn record"
n=$(kn_psql "SELECT count(*) FROM events WHERE run_id = 'r-killed'")
[ "$n" = 5000 ] && kn_ok "5000 events of the killed process stored (none invented)" || kn_fail "r-killed has $n events"
[ ! -s "$spool/spool.log" ] && kn_ok "spool empty after the flush" || kn_fail "spool not empty"
kn_finish
