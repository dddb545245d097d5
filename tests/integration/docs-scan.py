#!/usr/bin/env python3
"""docs-scan.py — the keynode command lines of Markdown files, for docs.sh (which does the checking).

  docs-scan.py scan ROOT SHARED FILE…   one record a line, fields separated by tabs:
      cmd  FILE LINE HOW SUB FLAGS RUN TEXT
           HOW   block (a fenced sh/bash/plain block), prompt (a "$ keynode …" line in one, its output
                 below it), inline (a `keynode …` code span in prose), bare (a `SUB --flag …` code span:
                 "keynode " is put before it; docs.sh drops it when SUB is no subcommand) or table (a
                 row of a table headed "| command |": the flags of every code span in the row)
           SUB   the subcommand ("a|b" when the text names alternatives, "-" for `keynode --help`,
                 "*" for a placeholder such as COMMAND)
           FLAGS every --flag the line names, its trailing comment included, space-separated ("-": none)
           RUN   "run" when docs.sh runs it from ROOT as written, else "flags: WHY"
           TEXT  the command, backslash continuations joined, "$ " taken off
      out  FILE LINE TEXT        an output line shown under the last prompt command
      path FILE LINE WORD        a command's path into the repo (tests/, deploy/…) or ../shared that is not there
      qs   FILE LINE ARG         an argument given to deploy/quickstart.sh
      warn FILE LINE MESSAGE     a malformed document (an unterminated fence); scanning goes on
  docs-scan.py helpflags DIR/SUB.txt…  "SUB<tab>--flag" for each flag a --help text lists: those of its usage
                                  lines (up to the first blank line) and those an option line starts with
                                  ("  --flag ARG  what"), not a flag its prose names in passing
  docs-scan.py compare SHOWN ACTUAL  SHOWN holds "LINE<tab>TEXT" lines, ACTUAL the real output. Lines shown
                                  before a "..." line must match the output's first lines, each part after a
                                  "..." must come later in order, and without a final "..." the last part ends
                                  the output; trailing spaces do not count. Exit 0, or 1 naming the first line
                                  that differs.

A fence that is never closed runs to the end of the file (as CommonMark reads it): a warn record, and the
lines after it are still scanned as a block. Commands are never run here.
"""
import glob
import os
import re
import sys

SHELL_LANGS = {"", "sh", "bash", "shell", "console", "zsh"}
# subcommands whose documented examples can run offline on inputs in the repo or the shared folder
OFFLINE = {"validate", "match", "score", "judge-audit", "import", "compare", "leaderboard", "trace"}
WHY_LIVE = {
    "watch": "needs a live browser and the user's task file",
    "replay": "needs a live browser",
    "record": "needs a live browser and a person or agent acting",
    "run": "needs the user's agent and browsers",
    "serve": "needs PostgreSQL; runs until stopped",
    "worker": "needs PostgreSQL and browsers",
    "migrate": "needs PostgreSQL",
    "prune": "needs PostgreSQL",
    "sites": "a server that runs until stopped",
}
# flags whose value is a service to reach, or that write files into the tree
NEEDS_SERVICE = {"--llm-url", "--server", "--browser"}
WRITES = {"--out", "--verdict-cache", "--trajectory", "--spool-dir", "--trace-dir"}

FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)")
COMMAND = re.compile(r"^\s*(\$\s+)?keynode(\s|$)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def split_comment(text):
    """(code, comment): a '#' that starts a word outside quotes starts the comment."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i], text[i:]
    return text, ""


def unquoted(text):
    """text with every quoted string emptied (flags of an agent's own command are not keynode's)"""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", text)


def flags_of(text):
    code, comment = split_comment(text)
    seen = []
    for part in (unquoted(code), comment):
        for f in FLAG.findall(part):
            if f not in seen:
                seen.append(f)
    return seen


def subcommand(code):
    words = unquoted(code).split()
    if len(words) < 2 or words[1].startswith("-"):
        return ""
    w = words[1]
    if re.fullmatch(r"[A-Z_]+", w):
        return "*"
    return w


def run_decision(how, sub, code, root, shared):
    """'run', or 'flags: WHY' — why the command is checked by its flags only"""
    if how == "inline":
        return "flags: a command in prose"
    if sub in WHY_LIVE:
        return "flags: " + WHY_LIVE[sub]
    if sub not in OFFLINE:
        return "flags: not a runnable subcommand"
    bare = unquoted(code)
    if re.search(r"[\[|]|…|\.\.\.", bare):
        return "flags: a synopsis"
    fl = set(FLAG.findall(bare))
    if fl & NEEDS_SERVICE:
        return "flags: needs a service (%s)" % " ".join(sorted(fl & NEEDS_SERVICE))
    if fl & WRITES:
        return "flags: writes files (%s)" % " ".join(sorted(fl & WRITES))
    for w in bare.split()[2:]:
        # a path: a word with a slash or an extension (not a flag, a URL or a number)
        if w.startswith("-") or "://" in w or re.fullmatch(r"[0-9.]+", w) or w == "''":
            continue
        if not ("/" in w or re.search(r"\.[A-Za-z]+$", w)):
            continue
        path = w.replace("../shared/", shared.rstrip("/") + "/", 1) if w.startswith("../shared/") else w
        path = os.path.join(root, path)
        if not (glob.glob(path) if "*" in w else os.path.exists(path)):
            return "flags: input not in the repo or the shared folder: " + w
    return "run"


REPO_DIRS = ("tests/", "deploy/", "schemas/", "docs/", "services/", "keynodes/", "../shared/")


def missing_repo_paths(code, root, shared):
    """the words of a command that name a file of the repo or the shared folder that is not there"""
    out = []
    for w in unquoted(code).split()[2:]:
        w = w.split("=", 1)[1] if w.startswith("--") and "=" in w else w
        if not w.startswith(REPO_DIRS):
            continue
        path = shared.rstrip("/") + "/" + w[len("../shared/"):] if w.startswith("../shared/") else w
        path = os.path.join(root, path)
        if not (glob.glob(path) if "*" in w else os.path.exists(path)):
            out.append(w)
    return out


def emit_cmd(path, num, how, sub, text, run, root, shared):
    code, _ = split_comment(text)
    emit("cmd", path, num, how, sub, " ".join(flags_of(text)), run, text)
    for w in missing_repo_paths(code, root, shared):
        emit("path", path, num, w)


def emit(*fields):
    # "-" for an empty field: a shell's `read` takes two tabs in a row for one
    print("\t".join(str(f).replace("\t", " ") or "-" for f in fields))


def emit_out(path, num, text):
    # an output line as shown, blank or not (the last field: nothing follows it)
    print("out\t%s\t%s\t%s" % (path, num, text.replace("\t", " ")))


def scan_block(path, lines, root, shared):
    """lines: (number, text) of one fenced shell block"""
    i = 0
    prompt_open = False
    while i < len(lines):
        num, text = lines[i]
        m = COMMAND.match(text)
        if not m:
            if prompt_open and re.match(r"^\s*\$\s", text):
                prompt_open = False
            elif prompt_open:
                emit_out(path, num, text)
            i += 1
            continue
        prompt = bool(m.group(1))
        joined = text.strip()
        if prompt:
            joined = re.sub(r"^\$\s+", "", joined)
        i += 1
        while i < len(lines):
            nxt = lines[i][1]
            if joined.endswith("\\"):
                joined = joined[:-1].rstrip() + " " + nxt.strip()
            elif not prompt and re.match(r"^\s+(\[|--)", nxt):
                # a synopsis continued on an indented line without a backslash
                joined += " " + nxt.strip()
            else:
                break
            i += 1
        joined = joined.rstrip("\\").rstrip()
        code, _ = split_comment(joined)
        sub = subcommand(code)
        how = "prompt" if prompt else "block"
        emit_cmd(path, num, how, sub, joined, run_decision(how, sub, code.strip(), root, shared), root, shared)
        prompt_open = prompt


SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")


def table_row(path, num, text):
    """A row of a command table whose first cell is a command (`keynode SUB …` or `SUB …`): one record with
    the flags of every code span in the row (its flags column). False when the first cell is none."""
    cells = re.split(r"(?<!\\)\|", text.strip().strip("|"))
    m = SPAN.search(cells[0]) if cells else None
    if not m:
        return False
    first = re.sub(r"^keynode\s+", "", m.group(1).strip())
    sub = first.split()[0] if first.split() else ""
    if not re.fullmatch(r"[a-z][a-z-]*", sub):
        return False
    flags = []
    for span in SPAN.findall(text):
        for f in flags_of(span):
            if f not in flags:
                flags.append(f)
    emit("cmd", path, num, "table", sub, " ".join(flags), "flags: a command reference", "keynode " + first)
    return True


def scan_prose(path, para, root, shared):
    """para: (number, text) lines of one paragraph outside fences: `keynode …` code spans, `SUB --flag…`
    code spans (bare: docs.sh drops those whose SUB is no subcommand) and command-table rows"""
    if not para:
        return
    # a table whose header's first cell is "command" is a command reference (docs/formats.md §5)
    rows, cmd_table, prev_row = [], False, False
    for n, t in para:
        row = t.lstrip().startswith("|")
        if row and not prev_row:
            cmd_table = t.strip().strip("|").split("|")[0].strip().lower() == "command"
        elif row and cmd_table and table_row(path, n, t):
            t = ""
        rows.append((n, t))
        prev_row = row
    para = rows
    text = "\n".join(t for _, t in para)
    first = para[0][0]
    for m in SPAN.finditer(text):
        span = m.group(1).replace("\n", " ").strip()
        if re.match(r"keynode\s", span):
            how = "inline"
        elif re.match(r"[a-z][a-z-]*\s", span) and FLAG.search(span):
            how = "bare"
            span = "keynode " + span
        else:
            continue
        num = first + text.count("\n", 0, m.start())
        code, _ = split_comment(span)
        sub = subcommand(code)
        emit_cmd(path, num, how, sub, span, "flags: a command in prose", root, shared)


def scan(root, shared, path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    fence = None  # (char, length, lang, opening line number, block lines)
    para = []
    for num, text in enumerate(lines, 1):
        for m in re.finditer(r"deploy/quickstart\.sh\s+([a-z][a-z0-9-]*)", text):
            emit("qs", path, num, m.group(1))
        if fence:
            ch, n, lang, at, block = fence
            if re.match(r"^ {0,3}" + re.escape(ch) + "{" + str(n) + r",}\s*$", text):
                if lang in SHELL_LANGS:
                    scan_block(path, block, root, shared)
                fence = None
            else:
                block.append((num, text))
            continue
        m = FENCE_OPEN.match(text)
        # a backtick fence's info string holds no backtick (else it is inline code)
        if m and not (m.group(2)[0] == "`" and "`" in text[m.end(2):]):
            scan_prose(path, para, root, shared)
            para = []
            fence = (m.group(2)[0], len(m.group(2)), m.group(3).lower(), num, [])
            continue
        if text.strip():
            para.append((num, text))
        else:
            scan_prose(path, para, root, shared)
            para = []
    scan_prose(path, para, root, shared)
    if fence:
        ch, n, lang, at, block = fence
        emit("warn", path, at, "the fence opened here (%s) is never closed" % (ch * n))
        if lang in SHELL_LANGS:
            scan_block(path, block, root, shared)


def helpflags(text):
    """the flags a --help text offers (see the head of this file)"""
    out = []
    lines = text.split("\n")
    usage = True
    for line in lines:
        if usage:
            if not line.strip():
                usage = False
                continue
            found = FLAG.findall(line)
        else:
            m = re.match(r"^\s*(--[a-z].*)$", line)
            if not m:
                continue
            # the term ends where its description starts, after two spaces
            term = re.split(r"\s{2,}", m.group(1))[0]
            found = FLAG.findall(term)
        for f in found:
            if f not in out:
                out.append(f)
    return out


def compare(shown_path, actual_path):
    with open(shown_path, encoding="utf-8") as f:
        shown = [(l.rstrip("\n").split("\t", 1) + [""])[:2] for l in f if l.strip("\n")]
    while shown and not shown[-1][1].strip():
        shown.pop()  # blank lines before the closing fence
    with open(actual_path, encoding="utf-8", errors="replace") as f:
        actual = [l.rstrip() for l in f.read().split("\n")]
    while actual and not actual[-1]:
        actual.pop()
    parts, cur = [], []
    for num, text in shown:
        if text.strip() in ("...", "…"):
            parts.append(cur)
            cur = []
        else:
            cur.append((num, text.rstrip()))
    open_end = not cur
    parts.append(cur)
    pos = 0
    for k, part in enumerate(parts):
        if not part:
            continue
        want = [t for _, t in part]
        if k == 0:
            at = 0 if actual[:len(want)] == want else -1
        else:
            at = next((j for j in range(pos, len(actual) - len(want) + 1) if actual[j:j + len(want)] == want), -1)
        if at < 0 and k == 0:
            # name the first shown line that differs
            for off, (num, text) in enumerate(part):
                got = actual[off] if off < len(actual) else "(end of output)"
                if got != text:
                    print("%s: shown '%s', the command printed '%s'" % (num, text, got))
                    return 1
        if at < 0:
            print("%s: the lines shown from here are not in the output after the part before" % part[0][0])
            return 1
        pos = at + len(want)
    if not open_end and pos != len(actual):
        print("%s: the output goes on after it ('%s'; end the shown output with '...')"
              % (shown[-1][0], actual[pos]))
        return 1
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "scan":
        for path in argv[4:]:
            scan(argv[2], argv[3], path)
        return 0
    if len(argv) >= 2 and argv[1] == "helpflags":
        for path in argv[2:]:
            with open(path, encoding="utf-8", errors="replace") as f:
                for flag in helpflags(f.read()):
                    emit(os.path.basename(path).rsplit(".", 1)[0], flag)
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__.split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
