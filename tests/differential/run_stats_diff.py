#!/usr/bin/env python3
"""run_stats_diff.py — `keynode run`'s statistics checked against an independent implementation.

Generates `keynode run` folders (DIR/<task>/<k>/result.json exactly as keynode run writes them, with
repeats, missing attempts, errors, unreachable errors, blocked and interrupted attempts and tries set
aside as <k>.error-1) from fixed seeds, has keynode write summary.json (the run_stats_diff driver
calls what `keynode run` calls at its end), runs `keynode compare` and `keynode leaderboard`, and
checks every number against this file's own implementation, written from the definitions in
services/runner/README.md "Uncertainty" with the Python standard library only.

The bootstrap intervals: this file implements the documented scheme (splitmix64 seeded 20241024,
2000 replicates, draw i of replicate b = next() % T over the tasks sorted by id, percentile interval
by nearest rank) on its own and must agree to the printed precision; as a check that the scheme
itself is sound, an independent bootstrap with Python's own generator (4000 replicates) must agree
within 0.05. The sign test is compared with an exact computation in fractions.

usage: run_stats_diff.py --driver PATH/run_stats_diff --keynode PATH/keynode
exit 0 when every check passes, 1 otherwise.
"""
import argparse
import csv
import io
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction
from urllib.parse import urlsplit

FAILS = []
CHECKS = [0]
TOL = 1e-5  # summary.json prints 6 significant digits


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL " + what)


def close(a, b, what, tol=TOL):
    ok = a is not None and b is not None and abs(a - b) <= tol
    check(ok, "%s: keynode %r, expected %r" % (what, a, b))


# ---------------------------------------------------------------- generated tasks and runs

SITES = ["shop.example", "news.example", "travel.example"]


def make_tasks(n, rng, changed=None, extra=0):
    """Task specs: id, site (as this file defines it), yaml text."""
    tasks = []
    for i in range(n + extra):
        tid = "t%02d" % i
        site = SITES[i % 3]
        kind = i % 4
        intent = "Do task %d" % i + (" differently" if tid == changed else "")
        lines = ["  - id: %s" % tid, '    intent: "%s"' % intent]
        if kind == 0:  # a start URL: its host
            lines.append("    start_url: http://%s:8100/start" % site)
            lines += ["    key_nodes:", '      - url: { include: "/done" }']
        elif kind == 1:  # no start URL, the first URL key node names the host (with www.)
            lines += ["    key_nodes:", '      - url: { include: "https://www.%s/a/%d" }' % (site, i)]
        elif kind == 2:  # the first URL key node is relative: the second names the host
            lines += ["    key_nodes:", '      - element_path: { exact: "#go" }',
                      '      - url: { include: "/relative" }',
                      '      - url: { exact: "http://%s/b?x=1" }' % site]
        else:  # no site at all
            site = "-"
            lines += ["    key_nodes:", '      - answer: { include: "42" }']
        tasks.append({"id": tid, "site": site, "yaml": "\n".join(lines),
                      "total": 1 + i % 4, "functional": i % 5 == 0, "reward": i % 7 == 3})
    return tasks


def write_tasks(path, tasks):
    with open(path, "w") as f:
        f.write("tasks:\n" + "\n".join(t["yaml"] for t in tasks) + "\n")


def result_json(task, k, outcome, rng, success_p):
    total = task["total"]
    base = {"task": task["id"], "run": "r1-%s-%d" % (task["id"], k), "mode": "default"}
    att = {"status": "done", "end": "agent exited", "reason": None, "browser_s": 0.3, "page_s": 1.0,
           "ready_s": 1.1, "overhead_start_s": round(rng.uniform(0.5, 3), 3),
           "overhead_end_s": round(rng.uniform(0, 0.1), 3), "agent_s": round(rng.uniform(1, 20), 3),
           "log_bytes": 10, "log_truncated": False, "answers": 0, "answers_dropped": 0, "exit_code": 0}
    reached = 0
    if outcome == "done":
        reached = total if rng.random() < success_p else rng.randrange(0, total)
    steps = rng.randrange(1, 16)
    res = dict(base)
    status = "finished" if reached == total else "incomplete"
    if outcome in ("error", "unreachable"):
        status = "error"
    if outcome == "blocked":
        status = "blocked"
    res.update({"status": status, "steps": steps, "reached": reached, "total": total,
                "score": reached / total, "completion": reached == total,
                "efficiency": steps / reached if reached else 0, "step_scores": [reached / total],
                "key_nodes": [{"id": "k%d" % (j + 1), "function": "url_included_match",
                               "score": 1 if j < reached else 0,
                               "reached_at_step": j + 1 if j < reached else None}
                              for j in range(total)]})
    if task["functional"] and outcome == "done":
        res["functional"] = reached == total and rng.random() < 0.8
    if task["reward"] and outcome == "done":
        res["reward"] = 1.0 if reached == total else round(rng.random() * 0.9, 3)
    if outcome == "error":
        att.update({"status": "error", "end": "browser gone", "reason": "the browser crashed"})
    elif outcome == "unreachable":
        url = "http://%s/x" % task["site"]
        res["reason"] = "unreachable"
        res["unreachable"] = {"url": url, "error": "net::ERR_CONNECTION_REFUSED", "step": 1}
        att.update({"status": "error", "end": "unreachable",
                    "reason": "unreachable: net::ERR_CONNECTION_REFUSED at " + url})
    elif outcome == "blocked":
        att.update({"status": "blocked", "end": "agent exited",
                    "reason": "blocked: the site refused service (result.json blocked)"})
    elif outcome == "interrupted":
        att.update({"status": "interrupted", "end": "interrupted", "reason": "SIGINT"})
    res["attempt"] = att
    if outcome != "interrupted" and rng.random() < 0.7:  # what the agent appended to KEYNODE_USAGE_FILE
        res["usage"] = {"input_tokens": rng.randrange(0, 50000), "output_tokens": rng.randrange(0, 5000),
                        "usd": round(rng.uniform(0, 0.2), 6), "models": ["toy-1"], "lines": 3, "bad_lines": 0}
    return res


def gen_run(d, tasks, K, seed, ability, mix=True):
    """A run folder; ability(task) the success probability. Returns the attempts as written."""
    rng = random.Random(seed)
    os.makedirs(d)
    written = []
    for t in tasks:
        for k in range(1, K + 1):
            u = rng.random() if mix else 1.0
            outcome = ("missing" if u < 0.04 else "interrupted" if u < 0.06 else "error" if u < 0.10
                       else "unreachable" if u < 0.13 else "blocked" if u < 0.17 else "done")
            adir = os.path.join(d, t["id"], str(k))
            if mix and rng.random() < 0.1:  # a try set aside by a retry: not an attempt
                os.makedirs(adir + ".error-1")
                with open(os.path.join(adir + ".error-1", "result.json"), "w") as f:
                    json.dump(result_json(t, k, "error", rng, 0), f)
            if outcome == "missing":
                if rng.random() < 0.5:
                    os.makedirs(adir)  # a folder without result.json: the attempt never finished
                continue
            os.makedirs(adir)
            r = result_json(t, k, outcome, rng, ability(t))
            with open(os.path.join(adir, "result.json"), "w") as f:
                json.dump(r, f, indent=2)
            written.append({"task": t["id"], "k": k, "status": r["attempt"]["status"],
                            "reason": r["attempt"]["reason"] or "", "r": r})
    return written


# ---------------------------------------------------------------- the independent statistics

M64 = (1 << 64) - 1


class SplitMix:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


RATES = ["key_node_completion_rate", "average_step_score_rate", "task_success_rate",
         "task_near_success_rate", "functional_success_rate", "reward_success_rate",
         "task_success_rate_planned"]


def group(attempts, plan_ids, K):
    """Per planned task (sorted by id): executable results and the counts of the others."""
    g = {}
    for tid in sorted(set(plan_ids)):
        g[tid] = {"done": [], "errors": 0, "unreachable": 0, "blocked": 0, "planned": K}
    for a in attempts:
        t = g.get(a["task"])
        if t is None:
            continue
        if a["status"] == "done":
            t["done"].append(a)
        elif a["status"] == "blocked":
            t["blocked"] += 1
        elif a["status"] == "error":
            t["unreachable" if a["reason"].startswith("unreachable") else "errors"] += 1
    return g


def rates(g, ids, attempt=0):
    """The rates over the tasks ids (may repeat); None where undefined."""
    n = succ = near = 0
    reached = total = score = 0.0
    fn = fok = rn = rfull = 0
    planned = 0
    for tid in ids:
        t = g[tid]
        planned += 1 if attempt else t["planned"]
        for a in t["done"]:
            if attempt and a["k"] != attempt:
                continue
            r = a["r"]
            n += 1
            succ += r["completion"]
            reached += r["reached"]
            total += r["total"]
            score += r["score"]
            near += sum(1 for x in r["key_nodes"] if x["score"] < 1) == 1
            if "functional" in r:
                fn += 1
                fok += r["functional"]
            if "reward" in r:
                rn += 1
                rfull += r["reward"] >= 1
    return {"key_node_completion_rate": reached / total if total else None,
            "average_step_score_rate": score / n if n else None,
            "task_success_rate": succ / n if n else None,
            "task_near_success_rate": near / n if n else None,
            "functional_success_rate": fok / fn if fn else None,
            "reward_success_rate": rfull / rn if rn else None,
            "task_success_rate_planned": succ / planned if planned else None}


def percentile_pair(vals):
    vals = sorted(vals)
    m = len(vals)
    lo = math.ceil(Fraction(25 * m, 1000))
    hi = math.ceil(Fraction(975 * m, 1000))
    return vals[max(lo, 1) - 1], vals[max(hi, 1) - 1]


def bootstrap(ga, gb=None, draw=None, B=2000):
    """Percentile intervals of every rate (of gb minus ga when gb). draw(T) gives one replicate."""
    ids = sorted(ga)
    T = len(ids)
    reps = {r: [] for r in RATES}
    if draw is None:
        sm = SplitMix(20241024)
        draw = lambda T: [sm.next() % T for _ in range(T)]
    for _ in range(B):
        pick = [ids[i] for i in draw(T)]
        va = rates(ga, pick)
        vb = rates(gb, pick) if gb is not None else None
        for r in RATES:
            if va[r] is None or (vb is not None and vb[r] is None):
                continue
            reps[r].append(vb[r] - va[r] if vb is not None else va[r])
    return {r: percentile_pair(v) for r, v in reps.items() if v}


def pass_k(g, k, every):
    vals = []
    for t in g.values():
        n, c = len(t["done"]), sum(a["r"]["completion"] for a in t["done"])
        if n < k:
            continue
        if every:
            vals.append(Fraction(math.comb(c, k), math.comb(n, k)))
        else:
            vals.append(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    return (float(sum(vals) / len(vals)) if vals else None), len(vals)


def sign_p(w, l):
    n = w + l
    if n == 0:
        return 1.0
    tail = sum(Fraction(math.comb(n, i), 2 ** n) for i in range(min(w, l) + 1))
    return float(min(Fraction(1), 2 * tail))


# ---------------------------------------------------------------- the checks

def summarize(driver, d, taskfile, K, name=None):
    cmd = [driver, d, taskfile, str(K)] + ([name] if name else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    check(p.returncode == 0, "driver on %s: exit %d %s" % (d, p.returncode, p.stderr.strip()))
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def check_summary(label, s, tasks, attempts, K, taskfile):
    plan = [t["id"] for t in tasks]
    g = group(attempts, plan, K)
    ex = [a for a in attempts if a["status"] == "done"]
    # the keys that were there before stay (docs/shared INTERFACES: never drop)
    for key in ["attempts", "metrics", "excluded", "reliability", "overhead", "wall_s", "attempts_per_minute"]:
        check(key in s, "%s: summary.json keeps %s" % (label, key))
    check(s["attempts"]["executable"] == len(ex), "%s: attempts.executable %d, expected %d"
          % (label, s["attempts"]["executable"], len(ex)))
    check(s["attempts"]["planned"] == len(tasks) * K, label + ": attempts.planned")
    check(s["attempts"]["blocked"] == sum(a["status"] == "blocked" for a in attempts), label + ": blocked")
    allr = rates(g, sorted(g))
    for r in RATES[:-1]:
        if allr[r] is not None and r in s["metrics"]:
            close(s["metrics"][r], allr[r], "%s: metrics.%s" % (label, r))
    # ci95: the documented scheme, then an independent bootstrap
    exp = bootstrap(g)
    for r in RATES[:-1]:
        if r in exp:
            check(r in s["ci95"], "%s: ci95.%s present" % (label, r))
            if r in s["ci95"]:
                close(s["ci95"][r][0], exp[r][0], "%s: ci95.%s low" % (label, r))
                close(s["ci95"][r][1], exp[r][1], "%s: ci95.%s high" % (label, r))
        else:
            check(r not in s["ci95"], "%s: ci95.%s absent (undefined)" % (label, r))
    other = random.Random(7)
    ind = bootstrap(g, draw=lambda T: [other.randrange(T) for _ in range(T)], B=4000)
    for r in ("task_success_rate", "key_node_completion_rate"):
        close(s["ci95"][r][0], ind[r][0], "%s: ci95.%s low vs an independent bootstrap" % (label, r), 0.05)
        close(s["ci95"][r][1], ind[r][1], "%s: ci95.%s high vs an independent bootstrap" % (label, r), 0.05)
    check(s["bootstrap"]["resamples"] == 2000 and s["bootstrap"]["seed"] == 20241024,
          label + ": bootstrap resamples and seed stated")
    # per repeat and std over repeats
    per = {p["repeat"]: p for p in s["per_repeat"]}
    check(sorted(per) == list(range(1, K + 1)), label + ": per_repeat has every k")
    cols = {r: [] for r in RATES}
    for k in range(1, K + 1):
        e = rates(g, sorted(g), attempt=k)
        check(per[k]["attempts"] == sum(1 for a in ex if a["k"] == k), "%s: per_repeat[%d].attempts" % (label, k))
        for r in RATES:
            if e[r] is not None:
                cols[r].append(e[r])
                close(per[k].get(r), e[r], "%s: per_repeat[%d].%s" % (label, k, r))
    for r in RATES:
        if len(cols[r]) >= 2:
            close(s["std_over_repeats"].get(r), statistics.stdev(cols[r]), "%s: std_over_repeats.%s" % (label, r))
        else:
            check(r not in s["std_over_repeats"], "%s: no std for %s" % (label, r))
    # pass@k, pass^k
    for k in range(1, K + 1):
        at, n = pass_k(g, k, False)
        al, _ = pass_k(g, k, True)
        check(s["pass_k_tasks"][str(k)] == n, "%s: pass_k_tasks[%d] %s, expected %d" % (label, k, s["pass_k_tasks"][str(k)], n))
        if at is None:
            check(s["pass_at_k"][str(k)] is None, "%s: pass_at_k[%d] null" % (label, k))
        else:
            close(s["pass_at_k"][str(k)], at, "%s: pass_at_k[%d]" % (label, k))
            close(s["pass_all_k"][str(k)], al, "%s: pass_all_k[%d]" % (label, k))
    # per site (this file's own site rule on the task file's URLs)
    sites = {}
    for t in tasks:
        sites.setdefault(t["site"], []).append(t["id"])
    check(sorted(s["per_site"]) == sorted(sites), "%s: per_site sites %s, expected %s" % (label, sorted(s["per_site"]), sorted(sites)))
    for site, ids in sites.items():
        got = s["per_site"].get(site, {})
        e = rates(g, sorted(ids))
        check(got.get("tasks") == len(ids), "%s: per_site[%s].tasks" % (label, site))
        check(got.get("attempts") == sum(len(g[i]["done"]) for i in ids), "%s: per_site[%s].attempts" % (label, site))
        for c in ("errors", "unreachable", "blocked"):
            check(got.get(c) == sum(g[i][c] for i in ids), "%s: per_site[%s].%s" % (label, site, c))
        for r in ("task_success_rate", "key_node_completion_rate"):
            if e[r] is not None:
                close(got.get(r), e[r], "%s: per_site[%s].%s" % (label, site, r))
    # denominators
    den = s["denominators"]
    succ = sum(a["r"]["completion"] for a in ex)
    check(den["executable"]["attempts"] == len(ex) and den["executable"]["successes"] == succ,
          label + ": denominators.executable counts")
    check(den["planned"]["attempts"] == len(tasks) * K, label + ": denominators.planned.attempts")
    finished = sum(1 for a in attempts if a["status"] in ("done", "error", "blocked"))
    check(den["planned"]["missing"] == len(tasks) * K - finished,
          "%s: denominators.planned.missing %s, expected %d" % (label, den["planned"]["missing"], len(tasks) * K - finished))
    check(den["planned"]["unreachable"] == sum(g[i]["unreachable"] for i in g), label + ": denominators unreachable")
    close(den["planned"]["task_success_rate"], succ / (len(tasks) * K), label + ": denominators.planned rate")
    close(den["planned"]["ci95"][0], exp["task_success_rate_planned"][0], label + ": planned ci95 low")
    close(den["planned"]["ci95"][1], exp["task_success_rate_planned"][1], label + ": planned ci95 high")
    # cost (KEYNODE_USAGE_FILE) and time
    fin = [a for a in attempts if a["status"] in ("done", "error", "blocked")]
    used = [a for a in fin if "usage" in a["r"]]
    cost = s.get("cost")
    check((cost is not None) == bool(used), label + ": cost present exactly when some attempt has a usage")
    if cost:
        usd = sum(a["r"]["usage"]["usd"] for a in used)
        usd_exe = sum(a["r"]["usage"]["usd"] for a in used if a["status"] == "done")
        reached = sum(a["r"]["reached"] for a in ex)
        check(cost["attempts_with_usage"] == len(used), label + ": cost.attempts_with_usage")
        check(cost["input_tokens"] == sum(a["r"]["usage"]["input_tokens"] for a in used), label + ": cost.input_tokens")
        close(cost["usd"], usd, label + ": cost.usd", 1e-5 * max(1, usd))
        close(cost["usd_efficiency_score"], usd_exe / reached if reached else 0, label + ": cost.usd_efficiency_score",
              1e-5 * max(1, usd))
        if succ:
            close(cost["usd_per_success"], usd / succ, label + ": cost.usd_per_success", 1e-5 * max(1, usd))
        check(cost["models"] == ["toy-1"], label + ": cost.models")
    ag = sorted(a["r"]["attempt"]["agent_s"] for a in ex)
    if ag:
        med = ag[len(ag) // 2] if len(ag) % 2 else (ag[len(ag) // 2 - 1] + ag[len(ag) // 2]) / 2
        close(s["time"]["agent_p50_s"], med, label + ": time.agent_p50_s", 1e-3)
        close(s["time"]["agent_p95_s"], ag[math.ceil(Fraction(95 * len(ag), 100)) - 1], label + ": time.agent_p95_s", 1e-3)
    # the task set
    import hashlib
    with open(taskfile, "rb") as f:
        check(s["task_set"]["sha256"] == hashlib.sha256(f.read()).hexdigest(), label + ": task_set.sha256 is the file's")
    hs = [t["sha256"] for t in s["task_set"]["tasks"]]
    check(all(len(h) == 64 for h in hs) and len(set(hs)) == len(hs), label + ": one distinct task hash each")
    return g


def run_compare(keynode, a, b, *extra):
    p = subprocess.run([keynode, "compare", a, b] + list(extra), capture_output=True, text=True)
    return p


def check_compare(label, keynode, da, db, ga, gb, hashes_a, hashes_b, expect_sig):
    p = run_compare(keynode, da, db, "--json")
    check(p.returncode == 0, "%s: compare exit %d: %s" % (label, p.returncode, p.stderr))
    j = json.loads(p.stdout)
    paired = sorted(i for i in ga if i in gb and hashes_a[i] == hashes_b[i])
    check(j["paired"] == len(paired), "%s: paired %d, expected %d" % (label, j["paired"], len(paired)))
    check(sorted(j["only_a"]) == sorted(set(ga) - set(gb)), label + ": only_a")
    check(sorted(j["only_b"]) == sorted(set(gb) - set(ga)), label + ": only_b")
    check(sorted(j["changed"]) == sorted(i for i in ga if i in gb and hashes_a[i] != hashes_b[i]), label + ": changed")
    pa = {i: ga[i] for i in paired}
    pb = {i: gb[i] for i in paired}
    ra, rb = rates(pa, paired), rates(pb, paired)
    exp = bootstrap(pa, pb)
    for r in RATES:
        if ra[r] is None or rb[r] is None:
            check(r not in j["rates"], "%s: rate %s absent" % (label, r))
            continue
        got = j["rates"][r]
        close(got["a"], ra[r], "%s: %s a" % (label, r))
        close(got["b"], rb[r], "%s: %s b" % (label, r))
        close(got["diff"], rb[r] - ra[r], "%s: %s diff" % (label, r))
        close(got["ci95"][0], exp[r][0], "%s: %s paired ci95 low" % (label, r))
        close(got["ci95"][1], exp[r][1], "%s: %s paired ci95 high" % (label, r))
    w = l = t = nc = 0
    for i in paired:
        na, nb = len(pa[i]["done"]), len(pb[i]["done"])
        if not na or not nb:
            nc += 1
            continue
        sa = Fraction(sum(x["r"]["completion"] for x in pa[i]["done"]), na)
        sb = Fraction(sum(x["r"]["completion"] for x in pb[i]["done"]), nb)
        w += sb > sa
        l += sb < sa
        t += sb == sa
    st = j["sign_test"]
    check((st["won"], st["lost"], st["tied"], st["not_comparable"]) == (w, l, t, nc),
          "%s: won/lost/tied/not comparable %s, expected %s" % (label, (st["won"], st["lost"], st["tied"], st["not_comparable"]), (w, l, t, nc)))
    p_exp = sign_p(w, l)
    close(st["p_value"], p_exp, label + ": sign test p", 1e-6 * max(1, p_exp))
    check(j["significant"] == (p_exp < 0.05), label + ": significant")
    check(j["significant"] == expect_sig, "%s: significant is %s, expected %s (p = %g, won %d lost %d)"
          % (label, j["significant"], expect_sig, p_exp, w, l))
    if not expect_sig:
        check(j["verdict"].startswith("no significant difference"), label + ": verdict " + j["verdict"])
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--keynode", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kn-run-stats.")
    try:
        rng = random.Random(24)
        tasks = make_tasks(24, rng)
        tf = os.path.join(tmp, "tasks.yaml")
        write_tasks(tf, tasks)
        ability = {t["id"]: [0.1, 0.5, 0.9][i % 3] for i, t in enumerate(tasks)}
        # 1. one run with K = 3, every kind of attempt
        d1 = os.path.join(tmp, "k3")
        att = gen_run(d1, tasks, 3, 101, lambda t: ability[t["id"]])
        s1 = summarize(args.driver, d1, tf, 3, "mixed")
        g1 = check_summary("K=3", s1, tasks, att, 3, tf)
        # 2. K = 1 and K = 5
        for K, seed in ((1, 202), (5, 303)):
            d = os.path.join(tmp, "k%d" % K)
            a = gen_run(d, tasks, K, seed, lambda t: ability[t["id"]])
            check_summary("K=%d" % K, summarize(args.driver, d, tf, K), tasks, a, K, tf)
        # 3. compare: a weak and a strong agent on 30 tasks (K = 2): a real difference
        ctasks = make_tasks(30, rng)
        cf = os.path.join(tmp, "ctasks.yaml")
        write_tasks(cf, ctasks)
        weak, strong, weak2 = (os.path.join(tmp, n) for n in ("weak", "strong", "weak2"))
        aw = gen_run(weak, ctasks, 2, 11, lambda t: 0.2, mix=False)
        ast = gen_run(strong, ctasks, 2, 12, lambda t: 0.9, mix=False)
        same = {t["id"]: [0.05, 0.5, 0.95][i % 3] for i, t in enumerate(ctasks)}
        sw = summarize(args.driver, weak, cf, 2, "weak")
        ss = summarize(args.driver, strong, cf, 2, "strong")
        hw = {t["task"]: t["sha256"] for t in sw["task_set"]["tasks"]}
        hs = {t["task"]: t["sha256"] for t in ss["task_set"]["tasks"]}
        gw = group(aw, list(hw), 2)
        gs = group(ast, list(hs), 2)
        j = check_compare("weak vs strong", args.keynode, weak, strong, gw, gs, hw, hs, True)
        check("better" in j["verdict"], "weak vs strong: verdict says better: " + j["verdict"])
        # the same agent twice (same per-task ability, other noise): no significant difference
        a1 = gen_run(os.path.join(tmp, "same1"), ctasks, 2, 31, lambda t: same[t["id"]], mix=True)
        a2 = gen_run(weak2, ctasks, 2, 32, lambda t: same[t["id"]], mix=True)
        s1b = summarize(args.driver, os.path.join(tmp, "same1"), cf, 2, "same")
        s2b = summarize(args.driver, weak2, cf, 2, "same")
        h1 = {t["task"]: t["sha256"] for t in s1b["task_set"]["tasks"]}
        check_compare("same agent", args.keynode, os.path.join(tmp, "same1"), weak2,
                      group(a1, list(h1), 2), group(a2, list(h1), 2), h1, h1, False)
        # 4. task sets that differ: one task changed, one only in B; environments that differ
        ctasks2 = make_tasks(30, rng, changed="t04", extra=1)
        cf2 = os.path.join(tmp, "ctasks2.yaml")
        write_tasks(cf2, ctasks2)
        strong2 = os.path.join(tmp, "strong2")
        a3 = gen_run(strong2, ctasks2, 2, 12, lambda t: 0.9, mix=False)
        s3 = summarize(args.driver, strong2, cf2, 2, "strong")
        h3 = {t["task"]: t["sha256"] for t in s3["task_set"]["tasks"]}
        check(h3["t04"] != hw["t04"] and h3["t05"] == hw["t05"], "a changed task gets another hash, the others the same")
        for d, chrome in ((weak, "120.0.6099.0"), (strong2, "121.0.6167.0")):
            with open(os.path.join(d, "summary.json")) as f:
                sj = json.load(f)
            sj["environment"] = {"chromium": chrome, "locale": "en-US"}
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump(sj, f)
        j = check_compare("changed sets", args.keynode, weak, strong2, gw, group(a3, list(h3), 2), hw, h3, True)
        ws = " ".join(j["warnings"])
        check("task sets differ" in ws, "warning: task sets differ: " + ws)
        check("chromium" in ws and "locale" not in ws, "warning names the environment key that differs: " + ws)
        txt = run_compare(args.keynode, weak, strong2)
        check(txt.returncode == 0 and "only in B (1): t30" in txt.stdout and "t04" in txt.stdout
              and "warning: task sets differ" in txt.stdout, "compare table lists only-in-B and changed: " + txt.stdout[-600:])
        three = run_compare(args.keynode, weak, strong, weak2, "--json")
        arr = json.loads(three.stdout) if three.returncode == 0 else None
        check(isinstance(arr, list) and len(arr) == 2 and arr[0]["significant"] and arr[0]["b"]["dir"] == strong
              and arr[1]["b"]["dir"] == weak2, "compare A B C --json: B and C each against A")
        md = run_compare(args.keynode, weak, strong2, "--markdown")
        check(md.returncode == 0 and "| task_success_rate |" in md.stdout and "**Verdict:**" in md.stdout,
              "compare --markdown: " + md.stdout[:300])
        # 5. leaderboard
        p = subprocess.run([args.keynode, "leaderboard", weak, strong, d1, "--json"], capture_output=True, text=True)
        check(p.returncode == 0, "leaderboard --json exit %d %s" % (p.returncode, p.stderr))
        rows = json.loads(p.stdout) if p.returncode == 0 else []
        check([r["agent"] for r in rows] == ["strong", "mixed", "weak"] or
              [r["task_success_rate"] for r in rows] == sorted([r["task_success_rate"] for r in rows], reverse=True),
              "leaderboard sorted by task success")
        for r in rows:
            g = {"weak": gw, "strong": gs, "mixed": g1}[r["agent"]]
            e = rates(g, sorted(g))
            close(r["task_success_rate"], e["task_success_rate"], "leaderboard %s task_success_rate" % r["agent"])
            close(r["completion_rate"], e["key_node_completion_rate"], "leaderboard %s completion_rate" % r["agent"])
            ci = bootstrap(g)
            close(r["task_success_rate_ci95"][0], ci["task_success_rate"][0], "leaderboard %s ci low" % r["agent"])
            close(r["completion_rate_ci95"][1], ci["key_node_completion_rate"][1], "leaderboard %s ci high" % r["agent"])
        check("different task sets" in p.stderr, "leaderboard warns about different task sets: " + p.stderr)
        p = subprocess.run([args.keynode, "leaderboard", weak, strong, "--csv"], capture_output=True, text=True)
        lines = list(csv.DictReader(io.StringIO(p.stdout)))
        check(p.returncode == 0 and len(lines) == 2 and lines[0]["agent"] == "strong"
              and len(lines[0]["task_set_sha256"]) == 64, "leaderboard --csv: " + p.stdout[:300])
        p = subprocess.run([args.keynode, "leaderboard", weak, strong], capture_output=True, text=True)
        check(p.returncode == 0 and "| 1 | strong |" in p.stdout and "| 2 | weak |" in p.stdout,
              "leaderboard markdown: " + p.stdout[:400])
        # 6. --resume refuses attempts made with another Chromium (no browser starts: the refusal comes
        # first, and with the same Chromium every attempt is already done)
        for ver, rc_want in (("2.0.0", 2), ("1.0.0", 0)):
            d = os.path.join(tmp, "resume-" + ver)
            shutil.copytree(strong, d)
            with open(os.path.join(d, "summary.json")) as f:
                sj = json.load(f)
            sj["environment"] = {"chromium_version": "1.0.0"}
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump(sj, f)
            fake = os.path.join(tmp, "fake-chromium")
            with open(fake, "w") as f:
                f.write('#!/bin/sh\necho "Chromium %s"\n' % ver)
            os.chmod(fake, 0o755)
            p = subprocess.run([args.keynode, "run", "--tasks", cf, "--agent", "true", "--repeat", "2", "--out", d,
                                "--resume", "--quiet", "--chromium", fake], capture_output=True, text=True, timeout=60)
            check(p.returncode == rc_want and (rc_want == 0 or "chromium_version" in p.stderr),
                  "resume with Chromium %s: exit %d (expected %d): %s" % (ver, p.returncode, rc_want, p.stderr.strip()))
            if rc_want == 0:
                with open(os.path.join(d, "summary.json")) as f:
                    env = json.load(f).get("environment", {})
                check(env.get("chromium_version") == "1.0.0" and env.get("judge", {}).get("semantic") == "offline",
                      "resumed summary.json environment: %r" % env)
        # 7. errors: a clear message with the path, never a crash
        bad = os.path.join(tmp, "bad")
        shutil.copytree(weak, bad)
        victim = os.path.join(bad, "t03", "1", "result.json")
        with open(victim, "w") as f:
            f.write('{"task": "t03", "score": ')
        cases = [(["compare", os.path.join(tmp, "nope"), weak], 2, os.path.join(tmp, "nope")),
                 (["compare", weak, bad], 1, victim),
                 (["compare", weak, tmp + "/empty"], 1, "not a keynode run folder"),
                 (["leaderboard", bad], 1, victim),
                 (["compare", weak], 2, "two run folders"),
                 (["compare", "--json", "--markdown", weak, strong], 2, "exclude"),
                 (["leaderboard", "--csv", "--json", weak], 2, "one of")]
        os.makedirs(tmp + "/empty")
        badsum = os.path.join(tmp, "badsum")
        shutil.copytree(weak, badsum)
        with open(os.path.join(badsum, "summary.json"), "w") as f:
            f.write("[1, 2")
        cases.append((["compare", weak, badsum], 1, os.path.join(badsum, "summary.json")))
        for argv, rc, needle in cases:
            p = subprocess.run([args.keynode] + argv, capture_output=True, text=True)
            check(p.returncode == rc and needle in p.stderr,
                  "%s: exit %d (expected %d), stderr %r should name %r" % (" ".join(argv[:1]), p.returncode, rc, p.stderr.strip(), needle))
        for cmd in ("compare", "leaderboard"):
            p = subprocess.run([args.keynode, cmd, "--help"], capture_output=True, text=True)
            check(p.returncode == 0 and "usage: keynode " + cmd in p.stdout, cmd + " --help")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d checks, %d failed" % (CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
