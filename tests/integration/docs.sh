#!/usr/bin/env bash
# docs.sh — the commands README.md and docs/*.md show are the binary's commands as it is. docs-scan.py
# reads every fenced sh/bash/plain block (backslash continuations joined; a synopsis's indented `[…]` lines
# too), every `keynode …` code span in prose, every `SUB --flag…` span whose SUB is a subcommand
# (`replay --validate`) and the rows of docs/formats.md's command table (one for every command of `keynode
# --help`); for each `keynode SUB …` line:
# - SUB is a command of `keynode --help` ("a|b" alternatives: each) and every --flag the line names, its
#   trailing comment included, is an option `keynode SUB --help` lists in its usage or option lines (or the
#   global --log-level, --help); a flag it does not list fails naming FILE:LINE;
# - the lines that can run offline on inputs in the repo or the shared folder (score, judge-audit, validate,
#   match… whose every path exists; no synopsis, no service, nothing written) run from the repo root as
#   written and must exit 0 (`../shared` means the shared folder when that is elsewhere, KN_SHARED_DIR);
#   a "$ keynode …" line's output shown below it must be what the command prints: the lines before a
#   `...` exactly, trailing spaces aside, and with no `...` the whole output;
# - a path it gives into the repo (tests/…, deploy/…) or the shared folder (../shared/…) exists, whether
#   the line runs or not.
# Covered by their flags only (the scan prints each one's reason): watch, run, replay and record (a live
# browser, the user's own tasks.yaml or agent: `--agent 'python3 my_agent.py'`), serve, worker, migrate
# and prune (PostgreSQL), sites (runs until stopped), the curl calls to :8080, commands with `--out`,
# `--server` or `--llm-url`, synopses, inputs the reader brings (tasks.json, runs/baseline) and code spans
# in prose; so is the output docs/maintain.md shows under `keynode replay --validate` (a browser;
# repair.sh replays that task on the changed sites and checks its proposal).
# Other tests run such commands for real: freshhome.sh docs/service.md's "Running the service for a team"
# (migrate, serve, worker, the curl calls), run.sh docs/evaluate.md's Selenium agent skeleton as written,
# health.sh docs/maintain.md's worked example, cli.sh and judge_audit.sh validate, match, score and
# judge-audit on the same inputs, compare.sh compare and leaderboard, integration.demo `quickstart.sh
# demo`'s deploy/demo.sh.
# Also: every argument README.md or docs/ give deploy/quickstart.sh is one it takes (its `case` labels and
# its usage line, seen by running it with no argument: nothing installed or built); README.md is at most
# 250 lines; and the scanner itself on a malformed document (an unterminated fence, an unclosed code span,
# a backslash on the last line) ends, says so and still finds the commands.
# usage: docs.sh KEYNODE REPO SHARED
#
# ctest: integration.docs ARGS=keynode,repo,shared TIMEOUT=120
set -u -o pipefail
kn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$(cd "$2" && pwd)
shared=${3:-$repo/../shared}
here=$repo/tests/integration
scan=$here/docs-scan.py
. "$here/lib.sh"
kn_lib_init docs
command -v python3 >/dev/null || { kn_fail "python3 not found"; kn_finish; }

# the binary as `keynode`, the way the docs call it
mkdir -p "$tmp/bin" "$tmp/help"
ln -s "$kn" "$tmp/bin/keynode"
export PATH=$tmp/bin:$PATH

# --- the scanner on a malformed document ---
bad=$tmp/malformed.md
{
  echo 'A span `keynode score --csv` and one never closed: `keynode watch --quiet'
  echo
  echo '```sh'
  echo 'keynode validate --json x.yaml'
  echo '```'
  echo
  echo '```bash'
  echo '$ keynode score --tasks t.json --runs r \'
  echo '    --mode webcanvas'
  echo 'TASK  RUN'
  printf '%s\n' 'keynode match --target url --expect a --value b \'
} >"$bad"
if timeout 20 python3 "$scan" scan "$repo" "$shared" "$bad" >"$tmp/malformed.tsv" 2>"$tmp/malformed.err"; then
  m=$tmp/malformed.tsv
  grep -qP "^warn\t$bad\t7\t.*never closed" "$m" && kn_ok "scanner: an unterminated fence is reported at its line" ||
    kn_fail "scanner: no warning for the fence of line 7: $(cat "$m")"
  grep -qP "^cmd\t$bad\t1\tinline\tscore\t--csv\t" "$m" && grep -qP "^cmd\t$bad\t4\tblock\tvalidate\t--json\t" "$m" &&
    grep -qP "^cmd\t$bad\t8\tprompt\tscore\t--tasks --runs --mode\t" "$m" && grep -qP "^out\t$bad\t10\tTASK  RUN$" "$m" &&
    grep -qP "^cmd\t$bad\t11\tblock\tmatch\t--target --expect --value\t" "$m" && ! grep -qP "\twatch\t" "$m" &&
    kn_ok "scanner: the commands around and inside the unterminated fence are found, the unclosed span is not one" ||
    kn_fail "scanner: wrong records for the malformed document: $(cat "$m")"
else
  kn_fail "scanner broke on a malformed document: $(tail -3 "$tmp/malformed.err")"
fi
# ... and the comparison of shown output: a differing line, and output past what was shown, are caught
printf 'a\nb\nc\n' >"$tmp/cmp.out"
printf '5\ta\n6\t...\n7\tc\n' >"$tmp/cmp.ok"
printf '5\ta\n6\tx\n7\t...\n' >"$tmp/cmp.bad"
printf '5\ta\n6\tb\n' >"$tmp/cmp.short"
python3 "$scan" compare "$tmp/cmp.ok" "$tmp/cmp.out" >/dev/null && [ "$(python3 "$scan" compare "$tmp/cmp.bad" "$tmp/cmp.out")" = \
  "6: shown 'x', the command printed 'b'" ] && ! python3 "$scan" compare "$tmp/cmp.short" "$tmp/cmp.out" >/dev/null &&
  kn_ok "compare: '...' skips lines; a differing line and unshown output past the end are failures" ||
  kn_fail "compare does not judge shown output as documented"

# --- what the binary offers ---
keynode --help >"$tmp/help/top.txt" 2>&1 || kn_fail "keynode --help: exit $?"
subs=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$tmp/help/top.txt")
[ "$(echo "$subs" | wc -w)" -ge 10 ] || { kn_fail "keynode --help lists no commands: $(head -5 "$tmp/help/top.txt")"; kn_finish; }
declare -A has=() # has["SUB --flag"]: `keynode SUB --help` lists --flag; "top --flag" the global ones
for f in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help/top.txt"); do has["top $f"]=1; done
helps=()
for s in $subs; do
  if keynode "$s" --help >"$tmp/help/$s.txt" 2>&1; then
    helps+=("$tmp/help/$s.txt")
  else
    kn_fail "keynode $s --help: exit $? (every command has --help)"
  fi
done
while IFS=$'\t' read -r s f; do has["$s $f"]=1; done < <(python3 "$scan" helpflags "${helps[@]}")
declare -A is_sub=()
for s in $subs; do is_sub[$s]=1; done
# docs/formats.md's command table has a row for every command (its first cell starts `SUB`)
missing=
for s in $subs; do grep -q "^| \`$s[\` ]" "$repo/docs/formats.md" || missing+=" $s"; done
[ -z "$missing" ] && kn_ok "docs/formats.md §5: a row for each of the $(echo "$subs" | wc -w) commands" ||
  kn_fail "docs/formats.md §5 has no row for:$missing"

# --- the docs' command lines ---
docs=("$repo/README.md" "$repo"/docs/*.md)
(cd "$repo" && python3 "$scan" scan "$repo" "$shared" "${docs[@]#"$repo"/}") >"$tmp/scan.tsv" 2>"$tmp/scan.err" ||
  { kn_fail "docs-scan.py: $(tail -3 "$tmp/scan.err")"; kn_finish; }

# run from the repo root as written; ../shared is the shared folder wherever that is
same_shared=0
[ "$(realpath -m "$repo/../shared")" = "$(realpath -m "$shared")" ] && same_shared=1

declare -A lines_of=() bad_of=()
nflags=0 nrun=0 ncompared=0 ncompared_readme=0
prev_cmd= prev_file= prev_line= prev_run= last_out= dropped=0
: >"$tmp/shown"

# compare_shown — the output shown under the last prompt command against what it printed
compare_shown() {
  [ -s "$tmp/shown" ] || return 0
  local where=$prev_file:$prev_line
  if [ "$prev_run" != run ]; then
    echo "note $where: output shown, not compared (${prev_run#flags: })"
  elif [ -n "$last_out" ]; then
    if diff=$(python3 "$scan" compare "$tmp/shown" "$last_out"); then
      kn_ok "$where: \`$prev_cmd\` prints the output shown"
      ncompared=$((ncompared + 1))
      [ "$prev_file" = README.md ] && ncompared_readme=$((ncompared_readme + 1))
    else
      kn_fail "$prev_file:$diff (\`$prev_cmd\`)"
      echo "  it printed:"
      head -12 "$last_out" | sed 's/^/    /'
    fi
  fi
  : >"$tmp/shown"
}

while IFS=$'\t' read -r kind file line f4 f5 f6 f7 f8; do
  case $kind in
  warn) kn_fail "$file:$line: $f4" ;;
  qs) ;; # below
  path)
    [ "$dropped" = 1 ] && continue
    kn_fail "$file:$line: $f4 is not in the repo or the shared folder"
    bad_of[$file]=1
    ;;
  out) printf '%s\t%s\n' "$line" "$f4" >>"$tmp/shown" ;;
  cmd)
    compare_shown
    how=$f4 sub=$f5 flags=$f6 run=$f7 text=$f8
    # a `WORD --flag` span or a command-table row is a command only when WORD is one (not `cmake --build`)
    dropped=0
    [[ $how == bare || $how == table ]] && [ -z "${is_sub[$sub]:-}" ] && { dropped=1; continue; }
    nflags=$((nflags + 1))
    lines_of[$file]=$((${lines_of[$file]:-0} + 1))
    [ "$flags" = - ] && flags=
    alts=${sub//|/ }
    [ "$sub" = - ] && alts=top
    [ "$sub" = "*" ] && alts= # a placeholder: keynode COMMAND [OPTIONS]
    for s in $alts; do
      if [ "$s" != top ] && [ -z "${is_sub[$s]:-}" ]; then
        kn_fail "$file:$line: \`keynode $s\` is not a command of keynode --help (\`$text\`)"
        bad_of[$file]=1
        continue
      fi
      for f in $flags; do
        [ "$f" = --help ] || [ -n "${has["top $f"]:-}" ] || [ -n "${has["$s $f"]:-}" ] && continue
        kn_fail "$file:$line: \`keynode ${s#top}\` has no $f in its --help (\`$text\`)"
        bad_of[$file]=1
      done
    done
    prev_cmd=$text prev_file=$file prev_line=$line prev_run=$run last_out=
    if [ "$run" = run ]; then
      cmdline=$text
      [ "$same_shared" = 1 ] || cmdline=${cmdline//..\/shared\//$shared\/}
      nrun=$((nrun + 1))
      o=$tmp/run$nrun.out e=$tmp/run$nrun.err
      (cd "$repo" && bash -c "$cmdline") >"$o" 2>"$e" </dev/null
      rc=$?
      kn_sanitizer_check "$e" || true
      if [ "$rc" = 0 ]; then
        last_out=$o
        [ "$how" = prompt ] || kn_ok "$file:$line: \`$text\` runs (exit 0)"
      else
        kn_fail "$file:$line: \`$text\` exits $rc: $(tail -3 "$e" | tr '\n' ' ')"
      fi
    fi
    ;;
  esac
done < <(cat "$tmp/scan.tsv"; printf 'cmd\tend\t0\tblock\t*\t-\tflags: end\tend\n')
nflags=$((nflags - 1)) # the sentinel that flushed the last output

for d in "${docs[@]}"; do
  f=${d#"$repo"/}
  [ -n "${bad_of[$f]:-}" ] && continue
  kn_ok "$f: ${lines_of[$f]:-0} command lines, each subcommand and flag as its --help says, each path there"
done
echo "checked $nflags command lines by their flags; ran $nrun, $ncompared with the output shown compared"
[ "$nflags" -ge 50 ] || kn_fail "only $nflags command lines found in the docs: the scanner misses them"
[ "$ncompared_readme" -ge 1 ] || kn_fail "README.md: no command's shown output was compared (the score example)"

# --- deploy/quickstart.sh: the arguments the docs give it ---
qs=$repo/deploy/quickstart.sh
labels=$(sed -n 's/^\([a-z][a-z-]*\))$/\1/p' "$qs" | xargs)
usage=$(bash "$qs" 2>&1 </dev/null)
qrc=$?
[ "$qrc" = 2 ] && [[ $usage == *usage:* ]] && kn_ok "quickstart.sh without an argument: its usage, exit 2" ||
  kn_fail "quickstart.sh without an argument: exit $qrc, '$usage'"
nqs=0
while IFS=$'\t' read -r kind file line arg; do
  [ "$kind" = qs ] || continue
  nqs=$((nqs + 1))
  case " $labels " in *" $arg "*) ;; *) kn_fail "$file:$line: deploy/quickstart.sh takes no '$arg' (it takes: $labels)"; continue ;; esac
  [[ $usage =~ [\ \|]$arg(\||$) ]] || kn_fail "$file:$line: quickstart.sh's usage line does not name '$arg': $usage"
done <"$tmp/scan.tsv"
[ "$nqs" -ge 2 ] && kn_ok "deploy/quickstart.sh: the $nqs arguments the docs give it are its own ($labels)" ||
  kn_fail "the README's quickstart commands were not found ($nqs)"

# --- README.md stays short: at most 250 lines ---
n=$(wc -l <"$repo/README.md")
[ "$n" -le 250 ] && kn_ok "README.md: $n lines (at most 250)" || kn_fail "README.md: $n lines, more than 250"
kn_finish
