# lib.sh — shared pieces of the integration tests that start real things: a private PostgreSQL
# cluster, headless Chromium, `keynode sites`, `keynode serve`. Source it, then call kn_lib_init:
#
#   . "$(dirname "$0")/lib.sh"
#   kn_lib_init NAME          # $tmp scratch dir, an EXIT trap stopping every process started here
#   kn_pg_start               # sets KN_PG_URL (libpq conninfo, Unix socket in $tmp); kn_pg_stop / kn_pg_start again
#   kn_chromium_start DIR     # sets cpid, cport, cdp (http://127.0.0.1:PORT), devtools_file
#   kn_sites_start KN DIR LOG # `keynode sites --port 0`; sets port
#   kn_sites_overlay BASE CHANGED DEST  # a changed site: BASE with CHANGED laid over it (and its REMOVED deleted)
#   kn_api_start KN           # kn_pg_start, migrate, `keynode serve` with a token: sets token, base, A
#   kn_dead_port              # sets dead: a port on 127.0.0.1 held closed (connections refused) until exit
#   kn_judge_start            # a fake OpenAI-compatible judge (llm-server.mjs): sets judge_url, judge_pid, judge_args
#   kn_judge_outage MODE      # every judgement from now on fails as MODE (kn_judge_outages), or none: answers again
#   kn_judged_runs TASKFILE DIR  # the recorded runs (judged and plain) a judge outage is tried on
#   kn_wait_for DESC SECONDS CMD…  # poll CMD until it succeeds (bounded); says what it waited for on timeout
#   kn_ended PID; kn_ended_or PID CMD…  # conditions to wait for: PID has ended; CMD succeeds or PID has ended
#   kn_spawn [-a] [-o OUT] [-e ERR] NAME CMD…  # CMD in the background, stopped on exit, its log $tmp/NAME.log
#   kn_stop_name NAME [SIGNAL]; kn_wait_exit NAME SECONDS  # stop it / wait for it (sets kn_rc)
#   kn_task_at_site IN OUT PORT…   # a task or workflow file (or a folder of them) pointed at the running sites
#   kn_watch_scenario DIR [OPTIONS] -- WATCH ARGS… -- AGENT CMD…  # `keynode watch` while an agent runs
#   kn_ok / kn_fail MSG; kn_finish (exit 0 when no check failed, 1 otherwise; a sanitizer report in the log
#   of any process started by kn_spawn is a failure)
#
# Every process is remembered in kn_pids and stopped by its PID on exit (also on failure or interrupt);
# the cluster is stopped with pg_ctl. $tmp is deleted when the test passed; a failed test's is kept (without
# Chromium profiles and PostgreSQL data) and its path printed, the newest 3 per test (KN_KEEP_FAILED=N);
# KN_KEEP=1 keeps it whole in any case. Missing tools are failures, not skips.

kn_chromium=${KN_CHROMIUM:-/usr/lib/chromium/chromium}
kn_pgbin=${KN_PGBIN:-/usr/lib/postgresql/15/bin}
kn_pids=()
kn_fails=0
declare -A kn_spawned=()
kn_spawn_logs=()
kn_sanitizer_seen=" "
kn_pg_dir=

kn_ok() { echo "ok   $1"; }
kn_fail() { echo "FAIL $1 (at ${SECONDS} s)"; kn_fails=$((kn_fails + 1)); }
kn_finish() {
  kn_sanitizer_check "${kn_spawn_logs[@]}"
  if [ "$kn_fails" -eq 0 ]; then echo "all checks passed (${SECONDS} s)"; exit 0; fi
  echo "$kn_fails check(s) failed (${SECONDS} s)"; exit 1
}

# kn_forget PID — the process was waited for: never signal it again
kn_forget() {
  local p keep=()
  for p in "${kn_pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  kn_pids=("${keep[@]}")
}

# kn_stop PID [SIGNAL] — stop one of our processes (TERM, then KILL after 3 s) and reap it
kn_stop() {
  local p=$1
  kill -"${2:-TERM}" "$p" 2>/dev/null
  for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null
  wait "$p" 2>/dev/null
  kn_forget "$p"
}

# kn_stop_all — stop every process still in kn_pids (TERM to all, then KILL after 3 s each) and reap them
kn_stop_all() {
  local p
  for p in "${kn_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${kn_pids[@]}"; do
    for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  kn_pids=()
}

# kn_lib_cleanup — the EXIT trap: stop everything, then delete $tmp — unless KN_KEEP=1, or the test failed
# (a failed check, or any other non-zero exit: a timeout's TERM, a crash of the script): then $tmp is kept,
# slimmed (kn_keep_failed_), and its path printed, so a failure seen once under load can be read afterwards
kn_lib_cleanup() {
  local rc=$?
  kn_stop_all
  kn_pg_stop
  if [ "${KN_KEEP:-0}" = 1 ]; then echo "kept $tmp"
  elif [ "$rc" != 0 ] || [ "$kn_fails" -gt 0 ]; then kn_keep_failed_ "$rc"
  else rm -rf "$tmp"; fi
}

# kn_keep_failed_ RC — keep a failed test's $tmp (RC its exit code) without what is large and says nothing
# about the failure: Chromium profiles (a folder holding "Local State") and PostgreSQL data folders
# (PG_VERSION; their server.log is kept beside them as pg-server.log). A marker file names it a kept failure; of those, only the
# newest $KN_KEEP_FAILED (default 3) per test name stay in the same parent folder, older ones are deleted.
kn_keep_failed_() {
  local d base old
  [ -n "${tmp:-}" ] && [ -d "$tmp" ] || return 0
  find "$tmp" -name 'Local State' -printf '%h\n' 2>/dev/null | sort -u | while read -r d; do rm -rf "$d"; done
  find "$tmp" -name PG_VERSION -printf '%h\n' 2>/dev/null | while read -r d; do
    [ -f "$d/global/pg_control" ] || continue # a cluster's data folder, not a tablespace
    [ -f "$d/server.log" ] && cp "$d/server.log" "$(dirname "$d")/pg-server.log"
    rm -rf "$d"
  done
  echo "failed (exit $1, $kn_fails failed checks) at $(date '+%F %T')" >"$tmp/.kn-kept-failed"
  base=${tmp%.*}
  ls -1dt "$base".*/.kn-kept-failed 2>/dev/null | tail -n +$((${KN_KEEP_FAILED:-3} + 1)) | while read -r old; do
    rm -rf "$(dirname "$old")"
  done
  echo "kept the failed test's folder: $tmp ($(du -sh "$tmp" 2>/dev/null | cut -f1))"
}

kn_lib_init() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/kn-$1.XXXXXX")
  chmod 755 "$tmp" # the postgres user enters it
  trap kn_lib_cleanup EXIT
  trap 'echo "interrupted"; exit 1' INT TERM
}

# kn_pg_start — a private cluster under $tmp/pg (created on first call, restarted on later calls),
# listening only on a Unix socket in $tmp/pg/sock; database keynode. Sets KN_PG_URL.
kn_pg_start() {
  local d=$tmp/pg/data s=$tmp/pg/sock
  [ -x "$kn_pgbin/initdb" ] || { kn_fail "no PostgreSQL at $kn_pgbin (apt-get install postgresql)"; return 1; }
  if [ ! -d "$d" ]; then
    mkdir -p "$d" "$s" && chown postgres:postgres "$tmp/pg" "$d" "$s" && chmod 700 "$d" || return 1
    su postgres -c "$kn_pgbin/initdb -D $d -U postgres -A trust -E UTF8 --no-sync" >"$tmp/pg/initdb.log" 2>&1 ||
      { kn_fail "initdb failed: $(tail -3 "$tmp/pg/initdb.log")"; return 1; }
    kn_pg_fresh=1
  else
    kn_pg_fresh=0
  fi
  su postgres -c "$kn_pgbin/pg_ctl -D $d -l $d/server.log -w -o \"-p 5432 -k $s -c listen_addresses='' -c fsync=off\" start" \
    >/dev/null 2>&1 || { kn_fail "PostgreSQL did not start: $(tail -3 "$d/server.log")"; return 1; }
  kn_pg_dir=$d
  KN_PG_URL="host=$s port=5432 user=postgres dbname=keynode"
  export KN_PG_URL
  if [ "$kn_pg_fresh" = 1 ]; then
    psql -q "host=$s port=5432 user=postgres dbname=postgres" -c "CREATE DATABASE keynode" >/dev/null ||
      { kn_fail "CREATE DATABASE failed"; return 1; }
  fi
}

# kn_pg_stop — stop the cluster (fast shutdown); kn_pg_start starts it again with its data
kn_pg_stop() {
  [ -n "$kn_pg_dir" ] || return 0
  su postgres -c "$kn_pgbin/pg_ctl -D $kn_pg_dir -m fast -w stop" >/dev/null 2>&1
  kn_pg_dir=
}

# kn_psql SQL — run SQL on the test database, unaligned tuples only
kn_psql() { psql -X -q -A -t "$KN_PG_URL" -c "$1"; }
# kn_wait_sql SECONDS SQL EXPECTED — poll until the query answers EXPECTED (bounded: not a timing assertion)
kn_wait_sql() { kn_wait_for "the query to answer '$3'" "$1" kn_sql_is_ "$2" "$3"; }
# kn_sql_is_ SQL EXPECTED — the query answers EXPECTED (its answer printed: a timeout shows the last one)
kn_sql_is_() { local got; got=$(kn_psql "$1" 2>/dev/null); echo "$got"; [ "$got" = "$2" ]; }

# kn_wait_for DESC SECONDS CMD… — poll CMD (every 0.1 s) until it succeeds: the wait for an event instead of a
# fixed sleep. SECONDS is a generous bound for a loaded machine, not a timing assertion. On timeout it says
# what it waited for, with CMD's last output, and returns 1 (the caller decides whether that is a failure).
kn_wait_for() {
  local desc=$1 secs=$2 out= t0=$SECONDS
  shift 2
  while :; do
    out=$("$@" 2>&1) && return 0
    [ $((SECONDS - t0)) -ge "$secs" ] && break
    sleep 0.1
  done
  echo "  (waited $secs s for $desc; last output: $(printf '%s' "$out" | tail -3 | cut -c1-300))"
  return 1
}

# kn_ended PID — PID has ended; kn_ended_or PID CMD… — CMD succeeds or PID has ended: what kn_wait_for waits
# on when the process that would make CMD true may die first (no use waiting on it then)
kn_ended() { ! kill -0 "$1" 2>/dev/null; }
kn_ended_or() { local p=$1; shift; "$@" || kn_ended "$p"; }

# kn_sanitizer_report FILE — prints the first lines of a sanitizer report in FILE (ASan, LeakSanitizer, UBSan's
# "file:line:col: runtime error:") and succeeds; fails when FILE holds none
kn_sanitizer_report() {
  [ -f "$1" ] || return 1
  grep -qE 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|:[0-9]+(:[0-9]+)?: runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$1" ||
    return 1
  grep -m1 -E -A3 'ERROR: [A-Za-z]*Sanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$1" | cut -c1-200 | tr '\n' ' '
}

# kn_sanitizer_check FILE… — a failure for each FILE holding a sanitizer report, with its first lines; each
# file is reported once. Returns 1 if any held one.
kn_sanitizer_check() {
  local f r bad=0
  for f in "$@"; do
    r=$(kn_sanitizer_report "$f") || continue
    bad=1
    case $kn_sanitizer_seen in *" $f "*) continue ;; esac
    kn_sanitizer_seen="$kn_sanitizer_seen$f "
    kn_fail "sanitizer report in ${f#"$tmp"/}: $r"
  done
  return $bad
}

# kn_spawn [-a] [-o OUT] [-e ERR] NAME CMD… — start CMD in the background as NAME: its PID in kn_pid and
# kn_spawned[NAME], stopped on exit like every process in kn_pids. stdout and stderr go to OUT and ERR
# (default both $tmp/NAME.log; NAME may hold a folder, created; -a appends to them: a restarted process's
# log goes on); kn_finish scans both for sanitizer reports.
# Variables set before the call (VAR=x kn_spawn …) reach CMD's environment.
kn_spawn() {
  local out= err= append=0
  while :; do
    case ${1:-} in
      -a) append=1; shift ;;
      -o) out=$2; shift 2 ;;
      -e) err=$2; shift 2 ;;
      *) break ;;
    esac
  done
  local name=$1
  shift
  out=${out:-$tmp/$name.log}
  err=${err:-$out}
  mkdir -p "$(dirname "$out")" "$(dirname "$err")"
  # emptied here, not only by the child's redirection: that runs after this returns, and a wait that
  # reads the log at once (kn_serve_start's "serving" line) found a previous process's line in it
  if [ "$append" = 0 ]; then : >"$out"; : >"$err"; fi
  if [ "$append" = 1 ]; then
    if [ "$err" = "$out" ]; then "$@" >>"$out" 2>&1 & else "$@" >>"$out" 2>>"$err" & fi
  elif [ "$err" = "$out" ]; then "$@" >"$out" 2>&1 &
  else "$@" >"$out" 2>"$err" &
  fi
  kn_pid=$!
  kn_pids+=("$kn_pid")
  kn_spawned[$name]=$kn_pid
  kn_spawn_logs+=("$out")
  [ "$err" = "$out" ] || kn_spawn_logs+=("$err")
}

# kn_stop_name NAME [SIGNAL] — kn_stop of the process spawned as NAME (SIGNAL first, then TERM… KILL); nothing
# when it was already waited for (its PID may be someone else's now)
kn_stop_name() {
  local p=${kn_spawned[$1]:-}
  case " ${kn_pids[*]} " in *" $p "*) [ -n "$p" ] && kn_stop "$p" "${2:-TERM}" ;; esac
  return 0
}

# kn_wait_exit NAME SECONDS — wait for the process spawned as NAME to end; kn_rc is its exit code. Still
# running after SECONDS (a generous bound, not a timing assertion): killed, kn_rc=124, and returns 1 (also,
# with kn_rc=255, when it was waited for already).
kn_wait_exit() {
  local p=${kn_spawned[$1]:?kn_wait_exit: nothing spawned as $1} t0=$SECONDS
  case " ${kn_pids[*]} " in *" $p "*) ;; *) echo "  (kn_wait_exit: $1 was already waited for)"; kn_rc=255; return 1 ;; esac
  while kill -0 "$p" 2>/dev/null; do
    if [ $((SECONDS - t0)) -ge "$2" ]; then
      echo "  (waited $2 s for $1 to end; killed)"
      kill -KILL "$p" 2>/dev/null
      wait "$p" 2>/dev/null
      kn_forget "$p"
      kn_rc=124
      return 1
    fi
    sleep 0.05
  done
  wait "$p" 2>/dev/null
  kn_rc=$?
  kn_forget "$p"
  return 0
}

# kn_task_at_site IN OUT PORT… — IN (a task or workflow file, YAML or JSON, or a folder: each *.yaml,
# *.yml, *.json in it) with its sites' ports replaced, written to OUT ("-": stdin / stdout). The files
# name the sites at 127.0.0.1:8100, :8101… (also as localhost): the first PORT replaces 8100, the second
# 8101, and so on; a FROM=TO argument replaces port FROM (a file already pointed at a running site), or,
# when FROM is a word, every FROM with TO (a placeholder: BASE=http://127.0.0.1:PORT).
kn_task_at_site() {
  local in=$1 out=$2 arg from i=0 f
  shift 2
  local script=()
  for arg in "$@"; do
    case $arg in
      [0-9]*=*) from=${arg%%=*}; arg=${arg#*=} ;;
      *=*) script+=(-e "s"$'\001'"${arg%%=*}"$'\001'"${arg#*=}"$'\001'"g"); continue ;;
      *) from=$((8100 + i)); i=$((i + 1)) ;;
    esac
    script+=(-e "s/(127\\.0\\.0\\.1|localhost):$from([^0-9]|\$)/\\1:$arg\\2/g")
  done
  if [ -d "$in" ]; then
    mkdir -p "$out" || return 1
    for f in "$in"/*.yaml "$in"/*.yml "$in"/*.json; do
      [ -f "$f" ] || continue
      sed -E "${script[@]}" "$f" >"$out/$(basename "$f")" || return 1
    done
  elif [ "$in" = - ] && [ "$out" = - ]; then sed -E "${script[@]}"
  elif [ "$in" = - ]; then sed -E "${script[@]}" >"$out"
  elif [ "$out" = - ]; then sed -E "${script[@]}" "$in"
  else sed -E "${script[@]}" "$in" >"$out"
  fi
}

# kn_watch_scenario DIR [OPTIONS] -- WATCH ARGS… -- AGENT CMD… — one watched run: `$kn watch WATCH ARGS
# --out DIR/result.json --trajectory DIR/run.jsonl` (stdout DIR/watch.out, stderr DIR/watch.err), and
# once it is ready (its "ready:" line: every open tab attached and recorded) the agent, AGENT CMD (output
# DIR/agent.log). Waits for the agent, then for watch to end. Sets kn_watch_rc, kn_agent_rc (124: killed
# after the bound), kn_result, kn_trajectory. Returns 1 (after a kn_fail) when watch never got ready or a
# sanitizer report is in a log of the run; the exit codes and files are the caller's to check.
# OPTIONS:
#   --go MARKS     the agent starts first, attaches and waits (KN_AGENT_GO=DIR/go; its "connected" line in
#                  MARKS), so that node's start-up is not idle time of the run; DIR/go once watch is ready
#   --started NAME the agent is already running (kn_spawn NAME, its log DIR/agent.log) and waits for DIR/go:
#                  no AGENT CMD
#   --int          watch runs until Ctrl-C: SIGINT once the agent has ended
#   --int-when RE  the same, once watch's stderr matches RE as well (an event the run must have seen)
#   --ready RE     what watch's stderr says when it is ready (default "ready: every open tab")
#   --trajectory FILE  the trajectory there instead of DIR/run.jsonl (kn_trajectory says where)
#   --no-trajectory  no --trajectory (the run written nowhere but its result)
#   --timeout S    the bound on each of the agent and watch (default 300)
kn_watch_scenario() {
  local dir=$1 go= started= int=0 int_when= ready='ready: every open tab' secs=300 traj=1
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
      --go) go=$2; shift 2 ;;
      --started) started=$2; shift 2 ;;
      --int) int=1; shift ;;
      --int-when) int=1; int_when=$2; shift 2 ;;
      --ready) ready=$2; shift 2 ;;
      --trajectory) traj=$2; shift 2 ;;
      --no-trajectory) traj=0; shift ;;
      --timeout) secs=$2; shift 2 ;;
      *) kn_fail "kn_watch_scenario: unknown option $1"; return 1 ;;
    esac
  done
  shift
  local watch_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do watch_args+=("$1"); shift; done
  shift
  [ $# -gt 0 ] || [ -n "$started" ] || { kn_fail "kn_watch_scenario: no agent command"; return 1; }
  mkdir -p "$dir"
  kn_result=$dir/result.json kn_trajectory=$dir/run.jsonl kn_watch_rc= kn_agent_rc=
  [ "$traj" = 1 ] || kn_trajectory=$traj
  [ "$traj" = 0 ] && kn_trajectory=
  rm -f "$kn_result" "$dir/go" ${kn_trajectory:+"$kn_trajectory"}
  [ -n "$kn_trajectory" ] && watch_args+=(--trajectory "$kn_trajectory")
  local id=${dir#"$tmp"/}
  [ -z "$started" ] || kn_spawned[$id/agent]=${kn_spawned[$started]}
  if [ -n "$go" ]; then
    KN_AGENT_GO=$dir/go kn_spawn -o "$dir/agent.log" "$id/agent" "$@"
    kn_wait_for "the agent to attach ($go: connected)" 60 grep -q '^connected' "$go" ||
      { kn_fail "$id: the agent did not attach: $(tail -3 "$dir/agent.log")"; kn_stop_name "$id/agent"; return 1; }
  fi
  kn_spawn -o "$dir/watch.out" -e "$dir/watch.err" "$id/watch" "${kn:?}" watch "${watch_args[@]}" --out "$kn_result"
  kn_wait_for "watch to be ready ($ready)" 60 kn_watch_ready_ "$dir/watch.err" "$ready" "${kn_spawned[$id/watch]}"
  if ! grep -qE "$ready" "$dir/watch.err"; then
    kn_fail "$id: watch did not get ready: $(tail -5 "$dir/watch.err" | cut -c1-200 | tr '\n' ' ')"
    kn_stop_name "$id/agent"
    kn_stop_name "$id/watch"
    kn_sanitizer_check "$dir/watch.err" "$dir/agent.log"
    return 1
  fi
  if [ -n "$go$started" ]; then touch "$dir/go"; else kn_spawn -o "$dir/agent.log" "$id/agent" "$@"; fi
  kn_wait_exit "$id/agent" "$secs"
  kn_agent_rc=$kn_rc
  if [ "$int" = 1 ]; then
    [ -z "$int_when" ] || kn_wait_for "watch to see /$int_when/" "$secs" grep -qE "$int_when" "$dir/watch.err"
    kill -INT "${kn_spawned[$id/watch]}" 2>/dev/null
  fi
  kn_wait_exit "$id/watch" "$secs"
  kn_watch_rc=$kn_rc
  kn_sanitizer_check "$dir/watch.err" "$dir/watch.out" "$dir/agent.log" || return 1
  return 0
}
# kn_watch_ready_ ERRFILE RE PID — watch's stderr says it is ready, or watch has ended (no use waiting on)
kn_watch_ready_() { grep -qE "$2" "$1" 2>/dev/null || ! kill -0 "$3" 2>/dev/null; }

# kn_leftovers DIR [PID…] — "PID COMMAND LINE" of every live process (not a zombie, none of the PIDs given,
# not this shell) whose command line names DIR/ or whose environment holds KEYNODE_ATTEMPT_DIR=DIR/: what a
# test's own processes left running. One grep over every /proc/*/cmdline and */environ instead of three
# processes per process (a scan once took seconds on a loaded machine, and tests scan after every scenario);
# the patterns come from a pipe so that grep's own command line names neither.
kn_leftovers() {
  local dir=$1 pid state skip
  shift
  skip=" $* $$ $BASHPID "
  { grep -laFf <(printf '%s/\n' "$dir") /proc/[0-9]*/cmdline
    grep -laFf <(printf 'KEYNODE_ATTEMPT_DIR=%s/\n' "$dir") /proc/[0-9]*/environ; } 2>/dev/null |
    sed 's#^/proc/\([0-9]*\)/.*#\1#' | sort -un | while read -r pid; do
      case $skip in *" $pid "*) continue ;; esac
      state=$({ awk '{print $3}' <"/proc/$pid/stat"; } 2>/dev/null) || continue
      [ -n "$state" ] && [ "$state" != Z ] || continue
      echo "$pid $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-120)"
    done
}

# kn_chromium_start DIR — a private headless Chromium with its profile in DIR
kn_chromium_start() {
  local profile=$1/profile
  mkdir -p "$profile"
  [ -x "$kn_chromium" ] || { kn_fail "no Chromium at $kn_chromium"; return 1; }
  kn_spawn -o "$1/chromium.log" "${1#"$tmp"/}/chromium" "$kn_chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --remote-debugging-port=0 about:blank
  cpid=$kn_pid
  devtools_file=$profile/DevToolsActivePort
  kn_wait_for "Chromium's DevTools ($devtools_file) with a page" 30 kn_ended_or "$cpid" kn_chromium_up_ "$devtools_file"
  if kn_chromium_up_ "$devtools_file"; then
    cport=$(head -1 "$devtools_file")
    cdp=http://127.0.0.1:$cport
    return 0
  fi
  kn_fail "Chromium did not start: $(tail -3 "$1/chromium.log")"
  return 1
}
# kn_chromium_up_ DEVTOOLS_FILE — the port the file names answers DevTools' /json/list with a page
kn_chromium_up_() {
  [ -s "$1" ] && curl -s --max-time 2 "http://127.0.0.1:$(head -1 "$1")/json/list" 2>/dev/null | grep -q '"type": *"page"'
}

# kn_sites_start KEYNODE DIR LOG [SITES ARGS…] — `keynode sites --dir DIR --port 0 ARGS`; sets port and sites_pid
kn_sites_start() {
  local kn=$1 dir=$2 log=$3
  shift 3
  port=
  kn_spawn -o "$log" "$(basename "$log" .log)" "$kn" sites --dir "$dir" --port 0 "$@"
  sites_pid=$kn_pid
  kn_wait_for "keynode sites to serve" 20 kn_ended_or "$sites_pid" kn_log_port_ "$log" 's/.*url=http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p'
  port=$(kn_log_port_ "$log" 's/.*url=http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p')
  [ -n "$port" ] && return 0
  kn_fail "keynode sites did not start: $(tail -3 "$log")"
  return 1
}
# kn_log_port_ FILE SED — the first port SED (a sed -n script printing it) finds in FILE; fails when none
kn_log_port_() { sed -n "$2" "$1" 2>/dev/null | head -1 | grep .; }

# kn_serve_start KEYNODE LOG [SERVE ARGS…] — `keynode serve ARGS` (the environment passes through);
# waits for its "serving" line; sets serve_pid and api_base (http://127.0.0.1:PORT)
kn_serve_start() {
  local kn=$1 log=$2 p= _
  shift 2
  kn_spawn -o "$log" "$(basename "$log" .log)" "$kn" serve "$@"
  serve_pid=$kn_pid
  api_base=
  kn_wait_for "keynode serve to serve" 30 kn_ended_or "$serve_pid" kn_log_port_ "$log" 's/.*msg="serving".* port=\([0-9]*\).*/\1/p'
  p=$(kn_log_port_ "$log" 's/.*msg="serving".* port=\([0-9]*\).*/\1/p') && { api_base=http://127.0.0.1:$p; return 0; }
  kn_fail "keynode serve did not start: $(tail -5 "$log")"
  return 1
}

# kn_api_start KEYNODE — a private cluster (kn_pg_start), migrated, and `keynode serve` on it on loopback
# with a fresh token; sets KN_PG_URL, token, base (http://127.0.0.1:PORT), A (curl's Authorization
# header, an array) and serve_pid. Fails (kn_fail) and returns 1 on any step.
kn_api_start() {
  local kn=$1
  kn_pg_start || return 1
  "$kn" migrate --database "$KN_PG_URL" >"$tmp/migrate.log" 2>&1 || { kn_fail "migrate: $(tail -3 "$tmp/migrate.log")"; return 1; }
  token="kn-$RANDOM$RANDOM"
  KEYNODE_DATABASE_URL=$KN_PG_URL KEYNODE_API_TOKEN=$token \
    kn_serve_start "$kn" "$tmp/serve.log" --listen 127.0.0.1:0 --spool-dir "$tmp/spool" || return 1
  base=$api_base
  A=(-H "Authorization: Bearer $token")
}

# kn_dead_port — sets dead: a port on 127.0.0.1 that refuses connections for as long as this script runs.
# A process of ours holds it bound without listening, so no other test started in parallel can take it
# (a port merely free now can be someone's site a second later: a refused start page answered).
kn_dead_port() {
  local f
  f=$(mktemp "$tmp/dead-port.XXXXXX")
  kn_spawn -o "$f" "$(basename "$f")" python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1], flush=True)
while True: time.sleep(60)'
  kn_wait_for "a port held closed" 20 test -s "$f"
  dead=$(head -1 "$f")
  [ -n "$dead" ] && return 0
  kn_fail "kn_dead_port: no port held"
  return 1
}

# kn_free_port — a TCP port free on 127.0.0.1 right now
kn_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# kn_sites_v2_root SITES DEST — lay the changed sites (SITES/v2: changed files, REMOVED lists deleted
# ones) over a copy of SITES in DEST, the root `keynode sites` serves as "v2"
kn_sites_v2_root() {
  local sites=$1 root=$2 f
  mkdir -p "$root"
  (cd "$sites" && tar cf - --exclude=./v2 .) | tar xf - -C "$root"
  cp -r "$sites/v2/." "$root/"
  while read -r f; do [ -n "$f" ] && rm -f "$root/$f"; done <"$sites/v2/REMOVED"
  rm -f "$root/REMOVED" "$root/EXPECTED.md" "$root/expected.json"
}

# kn_sites_overlay BASE CHANGED DEST — a changed site served as a whole: a copy of BASE in DEST with the files
# of CHANGED laid over it and the paths CHANGED/REMOVED lists deleted (tests/sites/async + async-v2)
kn_sites_overlay() {
  local base=$1 changed=$2 root=$3 f
  mkdir -p "$root" && cp -r "$base/." "$root/" && cp -r "$changed/." "$root/" || return 1
  if [ -f "$changed/REMOVED" ]; then
    while read -r f; do [ -n "$f" ] && rm -f "$root/$f"; done <"$changed/REMOVED"
  fi
  rm -f "$root/REMOVED" "$root/EXPECTED.md" "$root/expected.json"
}

# The judge outage scenario (tests/integration/unjudged.sh; callable from any test that judges): a fake
# OpenAI-compatible judge on 127.0.0.1 (llm-server.mjs, node without npm packages) that answers a score
# (0.93, or kn-score:X in the rule) until kn_judge_outage makes every request fail one way.
# judge_args: the flags that make keynode use it (no verdict cache: every judgement asks; a 400 ms
# timeout, so the timeout outage costs little).
kn_judge_outages=(402 429 500 timeout garbled text range)
kn_judge_start() {
  local here f _
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  command -v node >/dev/null 2>&1 || { kn_fail "node not found (apt-get install nodejs)"; return 1; }
  f=$(mktemp "$tmp/judge.XXXXXX")
  kn_spawn -o "$f" -e "$f.err" judge node "$here/llm-server.mjs"
  judge_pid=$kn_pid
  kn_wait_for "the fake judge's port" 20 kn_ended_or "$judge_pid" kn_log_port_ "$f" 's/.*"port":\([0-9]*\).*/\1/p'
  judge_url=$(kn_log_port_ "$f" 's/.*"port":\([0-9]*\).*/http:\/\/127.0.0.1:\1/p')
  [ -n "$judge_url" ] || { kn_fail "the fake judge did not start: $(tail -3 "$f.err")"; return 1; }
  judge_args=(--semantic llm --llm-url "$judge_url" --llm-model fake-judge --llm-timeout 400 --verdict-cache off)
}

# kn_judge_outage MODE — 402, 429, 500, timeout, garbled, text, range (kn_judge_outages) or none
kn_judge_outage() {
  [ "$(curl -s --max-time 5 -X POST --data-binary "$1" "$judge_url/outage")" = "$1" ] ||
    { kn_fail "the fake judge refused outage $1"; return 1; }
}

# kn_judged_runs TASKFILE DIR — the recorded runs a judge outage is tried on: TASKFILE has task `judged` (a
# deterministic URL node and a semantic answer node) and task `plain` (no semantic node); DIR/all holds runs
# a, b of `judged` (a reaches its URL node, b does not; both answer 42) and c, d of `plain` (c reaches its
# node); DIR/plain holds c and d alone, what every metric must equal while the judge is out
kn_judged_runs() {
  cat >"$1" <<'EOF'
tasks:
  - id: judged
    intent: find the answer
    key_nodes:
      - id: done
        url: { include: "/done" }
      - id: answer
        answer: { semantic: "Decide whether the answer is forty-two" }
  - id: plain
    intent: open the page
    key_nodes:
      - url: { include: "/x" }
EOF
  mkdir -p "$2/all" "$2/plain"
  kn_judged_run_() { # FILE RUN TASK URL [ANSWER]
    {
      echo "{\"run\": \"$2\", \"task\": \"$3\", \"started\": \"2026-12-07T00:00:00Z\"}"
      echo "{\"t\": 0.0, \"type\": \"navigate\", \"tab\": \"T1\", \"url\": \"$4\", \"how\": \"goto\"}"
      [ -z "${5:-}" ] || echo "{\"t\": 1.0, \"type\": \"answer\", \"text\": \"$5\"}"
    } >"$1"
  }
  kn_judged_run_ "$2/all/a.jsonl" a judged http://s.test/done 42
  kn_judged_run_ "$2/all/b.jsonl" b judged http://s.test/other 42
  kn_judged_run_ "$2/all/c.jsonl" c plain http://s.test/x
  kn_judged_run_ "$2/all/d.jsonl" d plain http://s.test/y
  unset -f kn_judged_run_
  cp "$2/all/c.jsonl" "$2/all/d.jsonl" "$2/plain/"
}
