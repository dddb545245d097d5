#!/bin/sh
# bad.sh MODE [PIDFILE] — agents that misbehave, for tests/integration/run.sh. Each appends its own pid
# (and its children's) to PIDFILE so the test can check that none is left after `keynode run`.
#   hang     sleeps forever (the --timeout stops it)
#   exit3    exits 3 at once
#   fork     starts two children that outlive it (one ignores SIGTERM), then exits 0
#   flood    prints 100 MB on stdout, then exits 0
#   garbage  writes 64 KB of random bytes (NULs, invalid UTF-8, no final newline) to the answer file
#   term     ignores SIGTERM and sleeps (only SIGKILL ends it)
mode=$1 pids=${2:-/dev/null}
echo "$$" >>"$pids"
case $mode in
hang) exec sleep 100000 ;;
exit3) exit 3 ;;
fork)
  (sleep 100000 & echo "$!" >>"$pids"; wait) &
  echo "$!" >>"$pids"
  (trap '' TERM; while :; do sleep 1; done) &
  echo "$!" >>"$pids"
  # every pid written before the exit (the grandchild's is written by its subshell): under load the
  # exit could otherwise come first and the test would miss one
  while [ "$(wc -l <"$pids")" -lt 4 ]; do sleep 0.05; done
  exit 0 ;;
flood) head -c 100000000 /dev/zero | tr '\0' 'x'; exit 0 ;;
garbage)
  head -c 65536 /dev/urandom >>"$KEYNODE_ANSWER_FILE"
  printf 'ok\000\377\376 answer\n' >>"$KEYNODE_ANSWER_FILE"
  exit 0 ;;
term) trap '' TERM; while :; do sleep 1; done ;;
*) echo "usage: bad.sh hang|exit3|fork|flood|garbage|term [PIDFILE]" >&2; exit 2 ;;
esac
