#!/usr/bin/env python3
"""results_md.py MD HEAD LABEL [INTRO] < SUBSECTION — set the subsection "### LABEL" (its text on stdin,
starting with that heading) of section HEAD ("## …") in RESULTS.md file MD: replaced when a subsection
of that title exists, appended to the section otherwise; the section (with INTRO under its heading)
appended to the file when it does not exist. Used by the benchmarks that keep a table per run."""
import re
import sys

md, head, label = sys.argv[1:4]
intro = sys.argv[4] if len(sys.argv) > 4 else ""
sub = sys.stdin.read().rstrip("\n") + "\n"
text = open(md).read()
if head not in text:
    text = text.rstrip("\n") + "\n\n" + head + "\n\n" + (intro + "\n\n" if intro else "") + sub
else:
    start = text.index(head)
    nxt = re.search(r"^## ", text[start + len(head):], re.M)
    end = start + len(head) + nxt.start() if nxt else len(text)
    section = text[start:end]
    m = re.search(r"^### " + re.escape(label) + r"\n", section, re.M)
    if m:
        after = re.search(r"^###? ", section[m.end():], re.M)
        stop = m.end() + after.start() if after else len(section)
        section = section[:m.start()] + sub + ("\n" if after else "") + section[stop:]
    else:
        section = section.rstrip("\n") + "\n\n" + sub
    text = text[:start] + section.rstrip("\n") + "\n" + ("\n" + text[end:] if end < len(text) else "")
open(md, "w").write(text)
