#!/usr/bin/env python3
"""webarena_diff.py — the WebArena differential suite.

Generates cases from WebArena's published task configs (test.raw.json): for every task whose checks
are string_match (exact_match / must_include), url_match or program_html, answers, visited URLs and
page texts built around the gold values (quoted, padded with spaces and no-break spaces, upper-
cased, in a sentence, near misses such as a changed digit or "6,000" for "6", empty, an early right
answer followed by a wrong one, the right page left for another, …). The expected verdict comes
from the oracle below: WebArena's evaluator rules (evaluation_harness/evaluators.py) written out
again here with the Python standard library only — NLTK's word_tokenize rules included, re-written
from NLTK's NLTKWordTokenizer and the sentence rules of keynodes/README.md "Word tokens" — never
from keynode's output. keynode's verdict comes from the wa_diff driver (its importer and
evaluator); every case must agree.

usage: webarena_diff.py --driver PATH/wa_diff --configs test.raw.json [--min-cases 1000] [--keep F]
"""
import argparse
import html
import json
import re
import subprocess
import sys
import urllib.parse

SITES = {
    "__SHOPPING__": "http://127.0.0.1:7770",
    "__SHOPPING_ADMIN__": "http://127.0.0.1:7780/admin",
    "__REDDIT__": "http://127.0.0.1:9999",
    "__GITLAB__": "http://127.0.0.1:8023",
    "__WIKIPEDIA__": "http://127.0.0.1:8888",
    "__MAP__": "http://127.0.0.1:3000",
}


def resolve(s):
    for k, v in SITES.items():
        s = s.replace(k, v)
    return s


# ---------------------------------------------------------------- the oracle: word tokens

WS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" \
     "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

# NLTK's NLTKWordTokenizer (nltk/tokenize/destructive.py), in its order.
STARTING_QUOTES = [
    (re.compile("([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r"^\""), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ \(\[{<])(\"|\'{2})"), r"\1 `` "),
    (re.compile(r"(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b"), r"\1 \2"),
]
PUNCTUATION = [
    (re.compile(r'([^\.])(\.)([\]\)}>"\'' "»”’ " r"]*)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r'([^\.])(\.)([\]\)}>"\']*)\s*$'), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]
PARENS_BRACKETS = (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> ")
DOUBLE_DASHES = (re.compile(r"--"), r" -- ")
ENDING_QUOTES = [
    (re.compile("([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]
CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(?#X)(not)\b", r"(?i)\b(d)(?#X)('ye)\b", r"(?i)\b(gim)(?#X)(me)\b",
    r"(?i)\b(gon)(?#X)(na)\b", r"(?i)\b(got)(?#X)(ta)\b", r"(?i)\b(lem)(?#X)(me)\b",
    r"(?i)\b(more)(?#X)('n)\b", r"(?i)\b(wan)(?#X)(na)(?=\s)",
    r"(?i) ('t)(?#X)(is)\b", r"(?i) ('t)(?#X)(was)\b")]


def treebank(text):
    for rx, sub in STARTING_QUOTES + PUNCTUATION + [PARENS_BRACKETS, DOUBLE_DASHES]:
        text = rx.sub(sub, text)
    text = " " + text + " "
    for rx, sub in ENDING_QUOTES:
        text = rx.sub(sub, text)
    for rx in CONTRACTIONS:
        text = rx.sub(r" \1 \2 ", text)
    return text.split()


LOWERED = {chr(c).lower() for c in range(0x110000)
           if not 0xD800 <= c <= 0xDFFF and len(chr(c).lower()) == 1 and chr(c).lower() != chr(c)}


def sentence_break(chunk, nxt):
    """keynodes/README.md "Word tokens": the Punkt-like sentence rule."""
    if not chunk.endswith(".") or chunk.endswith(".."):
        return False
    if len(chunk) < 2:
        return True
    c = chunk[-2]
    if not re.fullmatch(r"\w", c):
        return True
    if len(chunk) >= 3 and re.fullmatch(r"\w", chunk[-3]):
        return True
    lower_start = nxt in (";", ":", ",", ".", "!", "?") or \
        ("a" <= nxt[0] <= "z") or (nxt[0] > "\x7f" and nxt[0] in LOWERED)
    return not lower_start


def word_tokenize(text):
    chunks = [(m.start(), m.end()) for m in re.finditer("[^%s]+" % re.escape(WS), text)]
    sentences, start = [], 0
    for (a, b), (c, d) in zip(chunks, chunks[1:]):
        if sentence_break(text[a:b], text[c:d]):
            sentences.append(text[start:b])
            start = c
    sentences.append(text[start:])
    return [tok for s in sentences for tok in treebank(s)]


# ---------------------------------------------------------------- the oracle: WebArena's rules

def clean_answer(answer):
    answer = answer.strip()
    if answer.startswith("'") and answer.endswith("'"):
        answer = answer[1:-1]
    elif answer.startswith('"') and answer.endswith('"'):
        answer = answer[1:-1]
    return answer.lower()


def exact_match(ref, pred):
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref, pred, tokenize=False):
    clean_ref = clean_answer(ref)
    clean_pred = clean_answer(pred)
    if tokenize and len(clean_ref) == 1 and len(word_tokenize(clean_ref)) == 1:
        return float(clean_ref in word_tokenize(clean_pred))
    return float(clean_ref in clean_pred)


def string_eval(cfg, answer):
    pred = clean_answer(answer)
    score = 1.0
    for approach, value in cfg["eval"]["reference_answers"].items():
        if approach == "exact_match":
            score *= exact_match(str(value), pred)
        elif approach == "must_include":
            for v in value:
                score *= must_include(str(v), pred, tokenize=len(value) == 1)
    return score


def url_eval(cfg, url):
    def clean_url(u):
        return str(u).rstrip("/")

    def parse_url(u):
        p = urllib.parse.urlparse(u)
        return p.netloc + p.path, urllib.parse.parse_qs(p.query)

    pred = clean_url(url)
    refs = [clean_url(u) for u in resolve(cfg["eval"]["reference_url"]).split(" |OR| ")]
    ref_bases, ref_q = [], {}
    for r in refs:
        b, q = parse_url(r)
        ref_bases.append(b)
        for k, v in q.items():
            ref_q.setdefault(k, set()).update(v)
    pred_base, pred_q = parse_url(pred)
    score = float(any(b in pred_base for b in ref_bases))
    for k, vals in ref_q.items():
        score *= float(any(v in pred_q.get(k, []) for v in vals))
    return score


def html_eval(cfg, pages):
    score = 1.0
    for target, text in zip(cfg["eval"]["program_html"], pages):
        text = html.unescape(text)
        rc = target["required_contents"]
        if "exact_match" in rc:
            score *= exact_match(rc["exact_match"], text)
        else:
            for content in rc["must_include"]:
                score *= float(any(must_include(c, text) for c in content.split(" |OR| ")))
    return score


def oracle(case):
    """WebArena's verdict: the final state — the last answer, the last URL, the pages read."""
    cfg = case["config"]
    answers = [e["text"] for e in case["events"] if e["type"] == "answer"]
    urls = [e["url"] for e in case["events"] if e.get("url")]
    score = 1.0
    for t in cfg["eval"]["eval_types"]:
        if t == "string_match":
            score *= string_eval(cfg, answers[-1]) if answers else 0.0
        elif t == "url_match":
            score *= url_eval(cfg, urls[-1]) if urls else 0.0
        elif t == "program_html":
            score *= html_eval(cfg, case["pages"])
    return int(score == 1.0)


# ---------------------------------------------------------------- case generation

def near_miss(s):
    """s with its first digit changed, or its first letter, or "zz" appended."""
    for i, ch in enumerate(s):
        if ch.isdigit():
            return s[:i] + str((int(ch) + 1) % 10) + s[i + 1:]
    for i, ch in enumerate(s):
        if ch.isalpha():
            return s[:i] + ("b" if ch.lower() == "a" else "a") + s[i + 1:]
    return s + "zz"


def answer_variants(gold, gold_list):
    v = [
        gold, '"%s"' % gold, "'%s'" % gold, '  "%s"  ' % gold, "\"'%s'\"" % gold,
        "'\"%s\"'" % gold, " \t'%s' \n" % gold, "\xa0%s\xa0" % gold, "\u3000\"%s\"\u2003" % gold,
        gold.upper(), gold.title(), "The answer is %s." % gold, "I think it is %s, really" % gold,
        "%s. that is all" % gold, "%s. That is all" % gold, "(%s)" % gold, "“%s”" % gold,
        near_miss(gold), "", "N/A", gold + "s", "is it %s? yes" % gold, "-- %s --" % gold,
    ]
    if len(gold) == 1:
        v += [gold + ",000", gold + ".0", gold + "-7", gold + "/10", gold + ":30", "~" + gold,
              gold + "+", "1" + gold, gold + "th", "$" + gold, gold + "%", "#" + gold,
              "%s. %s" % (gold, "apples"), "%s. 7" % gold, "a %s. b" % gold, "'%s'" % gold,
              "it's %s'" % gold, "%s..." % gold, "[%s]" % gold, "%s!" % gold]
    if len(gold_list) > 1:
        v += [", ".join(gold_list[:-1]), " and ".join(reversed(gold_list))]
    for g in gold_list:
        if " |OR| " in g:
            v += ["%s" % alt for alt in g.split(" |OR| ")]
    return v


def string_cases(cfg):
    ra = cfg["eval"]["reference_answers"] or {}
    if "fuzzy_match" in ra:
        return []
    if "exact_match" in ra:
        gold_list = [str(ra["exact_match"])]
    else:
        gold_list = [str(x) for x in ra.get("must_include", [])]
    if not gold_list:
        return []
    gold = ", ".join(gold_list)
    out = []
    for a in answer_variants(gold, gold_list):
        out.append([{"type": "answer", "text": a}])
    # an early right answer followed by a wrong one, and the other way round
    out.append([{"type": "answer", "text": gold}, {"type": "answer", "text": near_miss(gold)}])
    out.append([{"type": "answer", "text": near_miss(gold)}, {"type": "answer", "text": gold}])
    out.append([{"type": "answer", "text": gold}, {"type": "answer", "text": ""}])
    return out


def nav(url):
    return {"type": "navigate", "tab": "T1", "url": url, "how": "goto"}


def url_variants(cfg):
    refs = resolve(cfg["eval"]["reference_url"]).split(" |OR| ")
    gold = refs[0]
    start = resolve(cfg["start_url"].split(" |AND| ")[0])
    sep = "&" if "?" in gold else "?"
    many = "&".join("f%d=x" % i for i in range(300))
    p = urllib.parse.urlsplit(gold)
    v = [
        [nav(gold)], [nav(gold + "/")], [nav(gold + sep + "extra=1")], [nav(gold + "#frag")],
        [nav(gold), nav(start)], [nav(start), nav(gold)], [nav(near_miss(gold))],
        [nav(gold.replace("127.0.0.1", "localhost"))], [nav(gold.upper())],
        [nav(urllib.parse.urlunsplit((p.scheme, "user@" + p.netloc, p.path, p.query, "")))],
        [nav(gold + "/more/path")], [nav(gold.rstrip("/") + "//")],
    ]
    if p.query:
        v.append([nav(urllib.parse.urlunsplit((p.scheme, p.netloc, p.path, many + "&" + p.query,
                                                "")))])
        v.append([nav(urllib.parse.urlunsplit((p.scheme, p.netloc, p.path, "", "")))])
        q = urllib.parse.parse_qsl(p.query)
        if q:
            k, val = q[0]
            v.append([nav(urllib.parse.urlunsplit((p.scheme, p.netloc, p.path,
                                                    urllib.parse.urlencode([(k, val + "x")]),
                                                    "")))])
            v.append([nav(urllib.parse.urlunsplit((p.scheme, p.netloc, p.path,
                                                    urllib.parse.urlencode(q), "")))])
    else:
        v.append([nav(gold + sep + many)])
    for r in refs[1:]:
        v.append([nav(r)])
    return v


def page_variants(cfg):
    targets = cfg["eval"]["program_html"]
    golds = []
    for t in targets:
        rc = t["required_contents"]
        if "exact_match" in rc:
            golds.append([rc["exact_match"]])
        else:
            golds.append([c.split(" |OR| ")[-1] for c in rc["must_include"]])
    joined = [" ".join(g) for g in golds]
    out = [
        joined,
        [html.escape(j) for j in joined],
        ["<p>%s</p>" % j.replace(" ", "&nbsp;") for j in joined],
        [j.upper() for j in joined],
        ["  '%s'  " % j for j in joined],
        ["&quot;%s&quot;" % j for j in joined],
        [near_miss(j) for j in joined],
        ["" for _ in joined],
        ["None" for _ in joined],
        [j + " &amp; more" for j in joined],
    ]
    return out


def mapped(cfg):
    """Tasks keynode maps fully (what WebArena's Python helpers do is out of scope)."""
    for t in cfg["eval"].get("program_html") or []:
        if t["url"].startswith("func:") and t["url"] != "func:reddit_get_post_url('__last_url__')":
            return False
        if t["locator"].startswith("func:"):
            return False
    return set(cfg["eval"]["eval_types"]) <= {"string_match", "url_match", "program_html"}


def cases(configs):
    out = []
    for cfg in configs:
        if not mapped(cfg):
            continue
        types = cfg["eval"]["eval_types"]
        tid = str(cfg["task_id"])
        if "string_match" in types and "fuzzy_match" in (cfg["eval"]["reference_answers"] or {}):
            continue
        ans = string_cases(cfg) if "string_match" in types else [[]]
        urls = url_variants(cfg) if "url_match" in types else [[]]
        pages = page_variants(cfg) if "program_html" in types else [None]
        n = 0
        if "string_match" in types:
            for a in ans:
                out.append({"id": "%s.%d" % (tid, n), "config": cfg,
                            "events": (urls[0] if "url_match" in types else []) + a,
                            "pages": pages[0]})
                n += 1
        if "url_match" in types:
            for u in urls:
                out.append({"id": "%s.%d" % (tid, n), "config": cfg,
                            "events": u + (ans[0] if "string_match" in types else []),
                            "pages": pages[0]})
                n += 1
        if "program_html" in types:
            for pg in pages:
                out.append({"id": "%s.%d" % (tid, n), "config": cfg,
                            "events": urls[0] + (ans[0] if "string_match" in types else []),
                            "pages": pg})
                n += 1
    for c in out:
        for i, e in enumerate(c["events"]):
            e["t"] = float(i)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--configs", required=True)
    ap.add_argument("--min-cases", type=int, default=1000)
    ap.add_argument("--keep", help="write the cases (JSONL) here")
    ap.add_argument("--semantics", default="webarena",
                    help="keynode: run keynode's own rules instead, to count where they differ")
    a = ap.parse_args()
    with open(a.configs) as f:
        configs = json.load(f)
    cs = cases(configs)
    text = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cs)
    if a.keep:
        with open(a.keep, "w") as f:
            f.write(text)
    args = [a.driver, "--semantics", a.semantics]
    for k, v in SITES.items():
        args += ["--site", "%s=%s" % (k.strip("_"), v)]
    got = subprocess.run(args, input=text.encode(), stdout=subprocess.PIPE, check=True).stdout
    verdicts = dict(line.split(" ", 1) for line in got.decode().splitlines())
    kinds = {"string_match": 0, "url_match": 0, "program_html": 0}
    bad, passes = [], 0
    for c in cs:
        want = oracle(c)
        passes += want
        for t in c["config"]["eval"]["eval_types"]:
            kinds[t] += 1
        if verdicts.get(c["id"]) != str(want):
            bad.append((c["id"], want, verdicts.get(c["id"]), c["events"], c["pages"]))
    print("cases: %d (%d pass per the oracle; by eval type %s); disagreements: %d"
          % (len(cs), passes, kinds, len(bad)))
    for b in bad[:40]:
        print("DISAGREE %s: oracle %s, keynode %s: events %s pages %s"
              % (b[0], b[1], b[2], json.dumps(b[3], ensure_ascii=False)[:300],
                 json.dumps(b[4], ensure_ascii=False)[:200]))
    # the import of the whole file: at least 783 tasks fully mapped, a reason for every other part
    imp = subprocess.run(args + ["--import", a.configs], stdout=subprocess.PIPE,
                         check=True).stdout.decode().splitlines()
    full = int(imp[-1].split()[-1])
    reasons = [l for l in imp if l.startswith("unmapped ")]
    print("import: %s; %d unmapped parts" % (imp[-1], len(reasons)))
    if full < 783 or any(len(l.split(" ", 2)[2]) < 20 for l in reasons):
        print("import: too few tasks fully mapped, or an unmapped part without its reason")
        return 1
    if len(cs) < a.min_cases:
        print("too few cases: %d < %d" % (len(cs), a.min_cases))
        return 1
    if passes == 0 or passes == len(cs):
        print("degenerate suite: every case has the same verdict")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
