#!/usr/bin/env python3
"""webcanvas_diff.py — the WebCanvas (Mind2Web-Live) differential suite.

The expected numbers come from the oracle below: WebCanvas's run_task loop
(evaluate/evaluate_utils.py), its step matchers (evaluate/step_score.py), its task scores
(evaluate/task_score.py) and its dataset metrics (experiment_results.py), written out again here
from upstream's code at iMeanAI/WebCanvas 2d6a2b5 with the Python standard library only — URLs go
through urllib.parse exactly as upstream's do — never from keynode's output. keynode's numbers
come from `keynode score --mode webcanvas --json` over the same runs written as trajectories.

What the oracle cannot have, and how it stands in for it (keynodes/README.md, "webcanvas mode:
limits of offline scoring"):
- the page: upstream resolves selectors in the page's HTML (BeautifulSoup select_one). The oracle's
  page resolves a selector to an element named by its text with whitespace collapsed and dropped
  around combinators, and has no ancestors (upstream's 3-ancestor tolerance never applies);
- the LLM: both sides take the raw score of keynode's offline judge (the wc_judge driver), and each
  applies its own clamping and rounding — upstream's max(0, min(1, s)) and round(s, 2) here;
- a select's own text (upstream's element value of a select): the oracle's page gives the text
  upstream's DOM tree gives a <select> without text, title, placeholder or aria-label.

Runs: for both published files, annotation replays (each key node's content.url visited, its
element clicked or filled there) and seeded random runs; for the 104 test tasks, runs generated
around the references (mutated URLs, ;params, double-encoded values, error pages, padding past
the budget, selects); and hand-written edge cases, one per rule. Every run's steps, status, key-node
scores, step scores, reached and efficiency, and every dataset metric, must be identical.

usage: webcanvas_diff.py --keynode PATH --judge PATH/wc_judge --data DIR [--seed N] [--keep DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import parse_qs, quote, unquote, urlparse

# ---------------------------------------------------------------- the oracle: the judge

class Judge:
    """keynode's offline judge, raw scores, through wc_judge (one process, cached)."""

    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  encoding="utf-8", errors="surrogateescape")
        self.cache = {}

    def raw(self, rule, text):
        k = (rule, text)
        if k not in self.cache:
            self.p.stdin.write(json.dumps([rule, text]) + "\n")
            self.p.stdin.flush()
            line = self.p.stdout.readline().strip()
            if line.startswith("E"):
                raise RuntimeError("judge: " + line)
            self.cache[k] = float(line)
        return self.cache[k]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


JUDGE = None

# ---------------------------------------------------------------- the oracle: step_score.py

class Page:
    """What step_evaluate reads of the page: its URL and, for selectors, a page-less DOM."""

    def __init__(self, url):
        self.url = url


def select_one(selector):
    """The element a selector names in the oracle's page (None cannot be resolved: upstream's
    soup.select_one(None) raises, caught as score 0)."""
    if selector is None:
        raise TypeError("select_one(None)")
    s = " ".join(selector.split())
    return re.sub(r"\s*([>+~,])\s*", r"\1", s)


def exact_match(a, b):
    return 1 if a == b else 0


def include_match(a, b):
    return 1 if b in a else 0


def semantic_match(input_answer, semantic_method):
    # MatchFunction.semantic_match: an LLM score, clamped, rounded unless 0 or 1
    score = JUDGE.raw(semantic_method, input_answer)
    score = max(0, min(1, score))
    if score != 0 and score != 1:
        return round(score, 2)
    return score


def url_exact_match(input_url, reference_answer, key=False):
    if key:
        try:
            input_answer = parse_qs(urlparse(input_url).query)[key][0]
        except Exception:
            return 0
    else:
        input_answer = input_url
    return exact_match(unquote(input_answer), reference_answer)


def url_include_match(input_url, reference_answer, key=None):
    if key:
        try:
            input_answer = parse_qs(urlparse(input_url).query)[key][0]
        except Exception:
            return 0
    else:
        try:
            parsed = urlparse(input_url)
            input_answer = parsed.netloc + parsed.path
            if parsed.fragment is not None and parsed.fragment:
                input_answer += "#" + parsed.fragment
        except Exception:
            input_answer = input_url
    return include_match(unquote(input_answer), reference_answer)


def url_semantic_match(input_url, semantic_method, key=False):
    if key:
        try:
            input_answer = parse_qs(urlparse(input_url).query)[key][0]
        except Exception:
            return 0
    else:
        input_answer = input_url
    return semantic_match(unquote(input_answer), semantic_method)


MAP_TAG_NAMES = {"span", "h1", "h2", "h3", "h4", "h5", "h6", "div", "li", "ul", "p"}


def path_exact_match(input_answer, reference_answer, method, input_netloc, reference_netloc):
    score = 0
    if method == "selector":
        if reference_netloc != input_netloc:
            return 0
        try:
            a, b = select_one(input_answer), select_one(reference_answer)
            score = a == b  # the oracle's page has no ancestors to climb
        except Exception:
            score = 0
    elif method == "xpath":
        if reference_netloc != input_netloc:
            return 0
        try:
            a, b = select_one(input_answer), select_one(reference_answer)
        except Exception:
            score = 0
            raise UnboundLocalError("input_elements")  # upstream's xpath branch, line 93
        score = a == b
    return score


def element_value_exact_match(v, ref, input_netloc, reference_netloc):
    return 0 if reference_netloc != input_netloc else exact_match(v, ref)


def element_value_include_match(v, ref, input_netloc, reference_netloc):
    return 0 if reference_netloc != input_netloc else include_match(v, ref)


def element_value_semantic_match(v, rule, input_netloc, reference_netloc=0):
    if reference_netloc != input_netloc:
        return 0
    if len(v) == 0:
        return 0
    return semantic_match(v, rule)


class NotAwaited:
    """TextEvaluator.text_semantic_match returns a coroutine nobody awaits: max() then raises."""

    def __gt__(self, other):
        raise TypeError("'>' not supported between coroutine and int")

    __lt__ = __gt__


def get_netloc(url):
    url = urlparse(url)
    try:
        if url.netloc.startswith("www"):
            return re.findall(r".*?\.(.*?)\..*?", url.netloc)[0]
        return re.findall(r"(.*?)\..*?", url.netloc)[0]
    except Exception:
        return ""


def step_evaluate(page, evaluate_steps, input_path=None, element_value=None, text_content=None):
    """evaluate_utils.py step_evaluate, lines 121-247: mutates the nodes' scores in place; an
    exception leaves the nodes after the one that raised unchecked (run_task catches it)."""
    for ev in evaluate_steps:
        score = 0
        if ev["score"] != 1:
            mf = ev["match_function"]
            if mf == "url_exactly_match":
                score = url_exact_match(page.url, ev["reference_answer"], ev["key"])
            elif mf == "url_included_match":
                score = url_include_match(page.url, ev["reference_answer"], ev["key"])
            elif mf == "url_semantic_match":
                score = url_semantic_match(page.url, ev["reference_answer"], ev["key"])
            elif mf == "element_path_exactly_match":
                score = path_exact_match(input_path, ev["reference_answer"], ev["method"],
                                         get_netloc(page.url), ev["netloc"])
            elif mf.startswith("element_value_") and mf != "element_value_semantic_match":
                fn = element_value_exact_match if mf == "element_value_exactly_match" \
                    else element_value_include_match
                if input_path is not None and element_value is not None:
                    netloc = get_netloc(page.url)
                    if "path" in ev and path_exact_match(input_path, ev["path"], "selector", netloc,
                                                         ev["netloc"]) == 0:
                        score = 0
                    else:
                        score = fn(element_value, ev["reference_answer"], netloc, ev["netloc"])
            elif mf == "element_value_semantic_match":
                if input_path is not None and element_value is not None:
                    netloc = get_netloc(page.url)
                    if len(element_value) > 0:
                        if "path" in ev and path_exact_match(input_path, ev["path"], "selector",
                                                             netloc, ev["netloc"]) == 0:
                            score = 0
                        else:
                            score = element_value_semantic_match(element_value,
                                                                 ev["reference_answer"], netloc,
                                                                 ev["netloc"])
            elif mf in ("cache_data_exact_match", "final_answer_exact_match"):
                if text_content:
                    score = exact_match(text_content.lower(), ev["reference_answer"].lower())
            elif mf in ("cache_data_included_match", "final_answer_included_match"):
                if text_content:
                    score = include_match(text_content.lower(), ev["reference_answer"].lower())
            elif mf in ("cache_data_semantic_match", "final_answer_semantic_match"):
                if text_content:
                    score = NotAwaited()
            ev["score"] = max(ev["score"], score)
    return evaluate_steps


def read_file(tasks):
    """evaluate_utils.py read_file: the key nodes as run_task sees them."""
    out = []
    for task in tasks:
        steps = []
        for e in task["evaluation"]:
            mf, c = e["match_function_name"], e["content"]
            if "url" in mf:
                steps.append({"match_function": mf, "key": c["key"],
                              "reference_answer": c["reference_answer"], "score": 0})
            elif "element_path" in mf:
                steps.append({"match_function": mf, "method": e["method"],
                              "reference_answer": c["reference_answer"], "netloc": c["netloc"],
                              "score": 0})
            elif "element_value" in mf:
                d = {"match_function": mf, "reference_answer": c["reference_answer"],
                     "netloc": c["netloc"]}
                if "path" in c:
                    d["path"] = c["path"]
                d["score"] = 0
                steps.append(d)
            elif "final_answer" in mf or "cache_data" in mf:
                steps.append({"match_function": mf, "reference_answer": c["reference_answer"],
                              "score": 0})
        out.append((task["task"], task["index"], task["reference_task_length"], steps))
    return out


# ---------------------------------------------------------------- the oracle: run_task

SELECT_OWN_TEXT = "Select an option value"  # get_element_value of a bare <select>


def action_inputs(a):
    """parse_current_trace: (selector, element_value, text_content) of a planned action."""
    kind = a["do"]
    if kind == "click":
        return a["selector"], a.get("text", ""), ""
    if kind == "fill":
        return a["selector"], a["value"], ""
    if kind == "select":
        return a["selector"], SELECT_OWN_TEXT, ""
    if kind == "answer":
        return None, "", a["text"]
    return None, "", ""


def run_task(reference_task_length, reference_evaluate_steps, actions):
    """run_task's batch_tasks loop, lines 341-632, with the agent's actions given. Returns the
    per-step score strings, the nodes' final scores and the status."""
    nodes = [dict(n) for n in reference_evaluate_steps]
    config_max, increase, conditions = 10, 5, {"URL": ["error"]}  # configs/setting.toml
    max_steps = int(max(config_max, 1.5 * reference_task_length))
    additional_steps, encountered = 0, set()
    num_steps, steps_list, finished, status = 0, [], False, None
    page = Page("about:blank")  # env.reset("about:blank")
    it = iter(actions)
    while num_steps < max_steps + additional_steps:
        a = next(it, None)
        if a is None:  # the recorded agent stopped here; upstream's would have gone on
            status = "incomplete"
            break
        selector, element_value, text_content = action_inputs(a)
        try:
            step_evaluate(page, nodes, selector, element_value, text_content)
        except Exception:
            pass  # "Current step evaluate error"
        total = 0
        for n in nodes:
            total += n["score"]
        if total == len(nodes):
            finished = True
        page.url = a["after"]  # the action runs
        current_info = {"URL": page.url}
        for ctype, keywords in conditions.items():  # adjust_max_action_step
            for kw in keywords:
                if kw in current_info[ctype] and kw not in encountered:
                    additional_steps += increase
                    encountered.add(kw)
        steps_list.append(str(total) + " / " + str(len(nodes)))
        if num_steps >= 25 or finished:
            break
        num_steps += 1
    if finished:
        status = "finished"
    elif status is None:
        status = "step_limit"
    return steps_list, [float(n["score"]) for n in nodes], status


def run_metrics(steps_list, status):
    """experiment_results.py read_json_result + evaluate, per task."""
    first, second = steps_list[-1].split("/")
    step_score = float(first)
    steps = len(steps_list)
    return {"steps": steps, "reached": step_score, "total": float(second),
            "rate": float(first) / float(second),
            "efficiency": steps / step_score if step_score != 0 else 0,
            "near": float(second) - float(first) == 1.0, "finished": status == "finished"}


def dataset_metrics(ms):
    """experiment_results.py evaluate(): summed in run order (upstream: sorted by task index)."""
    n = len(ms)
    s_first = s_second = s_rate = s_eff = 0.0
    for m in ms:
        s_first += m["reached"]
        s_second += m["total"]
        s_rate += m["rate"]
        s_eff += m["efficiency"]
    return {"key_node_completion_rate": s_first / s_second,
            "average_step_score_rate": s_rate / n,
            "task_success_rate": sum(m["finished"] for m in ms) / n,
            "task_near_success_rate": sum(m["near"] for m in ms) / n,
            "efficiency_score": s_eff / n}


# ---------------------------------------------------------------- runs

def page_for(node, netloc=None):
    url = node["content"].get("url") or ""
    if not url.startswith("http"):
        url = "https://www.%s.com/" % (netloc or "example")
    return url


def add_params(url):
    """The same page with ;params on its last path segment (a session id)."""
    p = urlparse(url)
    if not p.path or p.path.endswith("/"):
        return url
    return url.replace(p.path, p.path + ";jsessionid=A1B2", 1)


def twice_encoded(url):
    """Query values percent-encoded once more (%20 → %2520, a space → %20)."""
    p = urlparse(url)
    if not p.query:
        return url
    q = "&".join(f.split("=", 1)[0] + "=" + quote(f.split("=", 1)[1], safe="")
                 if "=" in f else f for f in p.query.split("&"))
    return url.replace("?" + p.query, "?" + q, 1)


class RunBuilder:
    """Upstream actions, each with the URL its action leaves (`after`)."""

    def __init__(self):
        self.actions, self.url = [], "about:blank"

    def goto(self, url):
        self.actions.append({"do": "goto", "after": url, "before": self.url})
        self.url = url

    def back(self, url):
        self.actions.append({"do": "back", "after": url, "before": self.url})
        self.url = url

    def act(self, do, after=None, **kw):
        a = {"do": do, "before": self.url, "after": after or self.url}
        a.update(kw)
        self.actions.append(a)
        self.url = a["after"]

    def on(self, url):
        if self.url != url:
            self.goto(url)


def replay(task, rng=None, order=None, mutate=None, select_values=False):
    """A run doing what the annotators did: each key node's page visited, its element acted on."""
    b = RunBuilder()
    nodes = task["evaluation"]
    for i in (order if order is not None else range(len(nodes))):
        n = nodes[i]
        c, mf = n["content"], n["match_function_name"]
        url = page_for(n, c.get("netloc"))
        if mutate:
            url = mutate(url)
        if mf.startswith("url_"):
            b.on(url)
            b.act("scroll")  # a step on the page, so it is checked before the next action
        elif mf.startswith("element_path"):
            b.on(url)
            b.act("click", selector=c["reference_answer"], text="x")
        elif mf.startswith("element_value"):
            b.on(url)
            sel = c.get("path") or "#field-%d" % i
            if select_values:
                b.act("select", selector=sel, value=c["reference_answer"], text=c["reference_answer"])
            else:
                b.act("fill", selector=sel, value=c["reference_answer"])
    b.act("scroll")
    return b.actions


def random_run(tasks, task, rng, length):
    """Seeded random actions over the pages and selectors of the file."""
    b = RunBuilder()
    own = task["evaluation"]
    pool = [n for t in rng.sample(tasks, min(3, len(tasks))) for n in t["evaluation"]] + own * 3
    for _ in range(length):
        n = rng.choice(pool)
        c = n["content"]
        url = page_for(n, c.get("netloc"))
        r = rng.random()
        if r < 0.1:
            url = add_params(url)
        elif r < 0.2:
            url = twice_encoded(url)
        elif r < 0.25:
            url = url.rstrip("/") + "/error?code=500"
        k = rng.random()
        if k < 0.3 or b.url == "about:blank":
            b.goto(url)
        elif k < 0.45:
            b.act("click", after=url, selector=c.get("reference_answer", "#a") + rng.choice(["", " "]),
                  text=rng.choice(["x", c.get("reference_answer", "")]))
        elif k < 0.6 and c.get("path"):
            if b.actions[-1]["do"] == "fill" and b.actions[-1]["selector"] == c["path"]:
                b.act("scroll")  # keynode joins typing into one field into one step (a limit)
            b.act("fill", selector=c["path"], value=rng.choice([c["reference_answer"],
                                                                c["reference_answer"].upper()]))
        elif k < 0.65 and c.get("path"):
            b.act("select", selector=c["path"], value="1", text=c["reference_answer"])
        elif k < 0.75:
            b.act("click", selector=rng.choice(["#other", "a.next", "div > span"]), text="Next")
        elif k < 0.8:
            b.back(url)
        elif k < 0.85:
            b.act("hover", selector="#menu")
        else:
            b.act("scroll")
    return b.actions


def generated_runs(task, rng):
    """Runs around the references of one task."""
    n = len(task["evaluation"])
    runs = [replay(task),
            replay(task, order=list(reversed(range(n)))),
            replay(task, order=list(range(n - 1))),
            replay(task, mutate=add_params),
            replay(task, mutate=twice_encoded),
            replay(task, select_values=True)]
    # finished early, then more steps (upstream stops at the completing step)
    r = replay(task)
    b = RunBuilder()
    b.actions, b.url = r, r[-1]["after"]
    for _ in range(5):
        b.act("scroll")
    runs.append(b.actions)
    # an error page first, then padding past any budget, the references last
    b = RunBuilder()
    b.goto("https://www.example.com/error/404")
    for i in range(rng.choice([8, 12, 14, 20, 24, 27])):
        b.act("scroll" if i % 3 else "hover", selector="#m")
    for a in replay(task):
        b.actions.append(dict(a, before=b.url))
        b.url = a["after"]
    runs.append(b.actions)
    return runs


# ---------------------------------------------------------------- trajectories

def events_of(actions):
    """The trajectory keynode records for upstream's actions (docs/formats.md §2)."""
    out, t = [], 0.0
    for a in actions:
        t += 1.0
        d, before, after = a["do"], a["before"], a["after"]
        if d in ("goto", "back"):
            out.append({"t": t, "type": "navigate", "tab": "T1", "url": after, "how": d})
            continue
        e = {"t": t, "tab": "T1", "url": before}
        if d == "click":
            e.update(type="click", selector=a["selector"], text=a.get("text", ""))
        elif d == "fill":
            e.update(type="type", selector=a["selector"], value=a["value"])
        elif d == "select":
            e.update(type="select", selector=a["selector"], value=a["value"], text=a["text"])
        elif d == "hover":
            e.update(type="hover", selector=a.get("selector", "#menu"))
        elif d == "answer":
            e.update(type="answer", text=a["text"])
        else:
            e.update(type="scroll", value="down")
        out.append(e)
        if after != before:
            out.append({"t": t + 0.5, "type": "navigate", "tab": "T1", "url": after,
                        "how": "form" if d == "fill" else "link"})
    return out


def write_runs(folder, runs):
    os.makedirs(folder, exist_ok=True)
    for i, (tid, actions) in enumerate(runs):
        with open(os.path.join(folder, "%06d.jsonl" % i), "w", encoding="utf-8") as f:
            f.write(json.dumps({"run": "r%06d" % i, "task": str(tid),
                                "started": "2026-12-07T00:00:00Z"}) + "\n")
            for e in events_of(actions):
                f.write(json.dumps(e, ensure_ascii=False) + "\n")


def keynode_score(keynode, tasks_file, folder):
    p = subprocess.run([keynode, "score", "--mode", "webcanvas", "--json", "--tasks", tasks_file,
                        "--runs", folder], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("keynode score: exit %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout)


def g15(x):
    return "%.15g" % x


def compare(label, tasks, runs, got, problems):
    """Oracle vs keynode for every run and the dataset; returns the number of runs compared."""
    refs = {str(t[1]): t for t in read_file(tasks)}
    results = got["results"]
    if len(results) != len(runs):
        problems.append("%s: %d runs scored, %d written" % (label, len(results), len(runs)))
        return 0
    ms = []
    for i, ((tid, actions), res) in enumerate(zip(runs, results)):
        _, _, ref_len, ref_steps = refs[str(tid)]
        steps_list, scores, status = run_task(ref_len, ref_steps, actions)
        m = run_metrics(steps_list, status)
        ms.append(m)
        want = {"steps": m["steps"], "status": status, "reached": g15(m["reached"]),
                "efficiency": g15(m["efficiency"]),
                "step_scores": [g15(float(s.split("/")[0]) / float(s.split("/")[1]))
                                for s in steps_list],
                "scores": [g15(s) for s in scores]}
        have = {"steps": res["steps"], "status": res["status"], "reached": g15(res["reached"]),
                "efficiency": g15(res["efficiency"]),
                "step_scores": [g15(s) for s in res["step_scores"]],
                "scores": [g15(k["score"]) for k in res["key_nodes"]]}
        for k in want:
            if want[k] != have[k]:
                problems.append("%s run %06d (task %s) %s: oracle %s, keynode %s" %
                                (label, i, tid, k, want[k], have[k]))
    want = dataset_metrics(ms)
    for k, v in want.items():
        if got["summary"][k] != v:
            problems.append("%s summary %s: oracle %.17g, keynode %.17g" %
                            (label, k, v, got["summary"][k]))
    return len(runs)


# ---------------------------------------------------------------- edge cases

def edge_cases():
    """(name, tasks, [(task id, actions)]) — one rule each, built by hand."""
    cases = []

    def task(idx, nodes, ref_len=4):
        return {"index": idx, "task": "edge " + str(idx), "reference_task_length": ref_len,
                "evaluation": nodes}

    def url(mf, ref, key="", at="https://www.shop.com/"):
        return {"match_function_name": mf, "content": {"key": key, "reference_answer": ref,
                                                       "url": at}}

    def elem(ref, netloc="shop", at="https://www.shop.com/"):
        return {"match_function_name": "element_path_exactly_match", "method": "selector",
                "content": {"reference_answer": ref, "netloc": netloc, "url": at}}

    def value(mf, ref, path, netloc="shop"):
        return {"match_function_name": mf, "content": {"reference_answer": ref, "netloc": netloc,
                                                       "path": path, "url": "https://www.shop.com/"}}

    def pad(b, n, do="scroll"):
        for _ in range(n):
            b.act(do)

    # the loop stops at the completing step: later steps do not count (efficiency)
    t = task(1, [url("url_included_match", "shop.com/cart"), elem("#buy")])
    b = RunBuilder()
    b.goto("https://www.shop.com/cart")
    b.act("click", selector="#buy", text="Buy")
    pad(b, 6)
    cases.append(("stop at completion", [t], [(1, b.actions)]))

    # the 26th step runs when 1.5 × reference length ≥ 26; nothing after it
    for ref_len, n in ((17, 30), (18, 30), (40, 30)):
        t = task(2, [url("url_included_match", "shop.com/late")], ref_len)
        b = RunBuilder()
        b.goto("https://www.shop.com/")
        pad(b, 23)
        b.goto("https://www.shop.com/late")
        pad(b, n - 25)
        cases.append(("budget ref %d" % ref_len, [t], [(2, b.actions)]))

    # an "error" URL after a step adds 5 steps, once
    for first_error in (2, 9, 10, 14):
        t = task(3, [url("url_included_match", "shop.com/found")], 4)
        b = RunBuilder()
        b.goto("https://www.shop.com/")
        pad(b, first_error - 2)
        b.goto("https://www.shop.com/error?e=1")
        b.goto("https://www.shop.com/")
        b.goto("https://www.shop.com/error/again")
        pad(b, 13 - len(b.actions))
        b.goto("https://www.shop.com/found")  # step 14: seen by step 15, in the budget of 15 only
        pad(b, 3)
        cases.append(("error adds 5 (after step %d)" % first_error, [t], [(3, b.actions)]))

    # query values decoded twice
    t = task(4, [url("url_exactly_match", "red shoes", key="q"),
                 url("url_included_match", "100%", key="d"),
                 url("url_exactly_match", "a+b", key="p")])
    b = RunBuilder()
    b.goto("https://www.shop.com/s?q=red%2520shoes&d=100%2525&p=a%252Bb")
    pad(b, 1)
    cases.append(("double decode", [t], [(4, b.actions)]))

    # the include form from urlparse: ;params of the last segment dropped
    t = task(5, [url("url_included_match", "shop.com/cart;sid"),
                 url("url_included_match", "/a;v=1/cart"),
                 url("url_included_match", "shop.com/item#top")])
    b = RunBuilder()
    b.goto("https://www.shop.com/a;v=1/cart;sid=9?x=1")
    b.goto("https://www.shop.com/item;p#top")
    pad(b, 1)
    cases.append(("urlparse params", [t], [(5, b.actions)]))

    # url_semantic_match without a key judges the whole URL; fractions are rounded
    rule = "Decide whether are searching for Chicago, IL"
    t = task(6, [url("url_semantic_match", rule),
                 url("url_semantic_match", "Decide whether are searching for Chicago, IL", key="q"),
                 url("url_included_match", "shop.com/")])
    b = RunBuilder()
    b.goto("https://www.shop.com/find?q=Chicago")
    pad(b, 2)
    cases.append(("semantic whole URL, rounding, near success", [t], [(6, b.actions)]))

    # near success: N − Σ == 1.0 with fractions as they are
    t = task(7, [url("url_semantic_match", rule, key="q"), url("url_included_match", "shop.com/")])
    b = RunBuilder()
    b.goto("https://www.shop.com/find?q=Chicago")
    pad(b, 2)
    cases.append(("near success with a fraction", [t], [(7, b.actions)]))
    t = task(8, [url("url_included_match", "shop.com/"), url("url_included_match", "/never"),
                 url("url_included_match", "/none")])
    b = RunBuilder()
    b.goto("https://www.shop.com/")
    pad(b, 2)
    cases.append(("near success, two missing", [t], [(8, b.actions)]))

    # a select's value is the select's own text, not the chosen option
    t = task(9, [value("element_value_exactly_match", "2 adults", "#guests"),
                 value("element_value_included_match", "adults", "#guests")])
    b = RunBuilder()
    b.goto("https://www.shop.com/")
    b.act("select", selector="#guests", value="2", text="2 adults")
    b.act("fill", selector="#guests", value="2 adults")
    pad(b, 1)
    cases.append(("select value", [t], [(9, b.actions)]))

    # the site gate and the first step on about:blank
    t = task(10, [elem("#go", netloc="shop"), url("url_included_match", "blank")])
    b = RunBuilder()
    b.goto("https://shop.com/")
    b.act("click", selector="#go", text="Go")
    b.goto("https://www.shop.com/")
    b.act("click", selector="#go ", text="Go")
    pad(b, 1)
    cases.append(("site gate, about:blank", [t], [(10, b.actions)]))
    return cases


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keynode", required=True)
    ap.add_argument("--judge", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", type=int, default=20241024)
    ap.add_argument("--random-runs", type=int, default=3, help="seeded random runs per task")
    ap.add_argument("--keep", help="keep the runs in this folder")
    args = ap.parse_args()
    global JUDGE
    JUDGE = Judge(args.judge)
    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="wc_diff.")
    problems, total = [], 0
    try:
        files = ["mind2web-live_test_20241024.json", "example_130.json"]
        for fname in files:
            path = os.path.join(args.data, fname)
            with open(path, encoding="utf-8") as f:
                tasks = json.load(f)
            groups = {"replay": [(t["index"], replay(t)) for t in tasks],
                      "random": [(t["index"], random_run(tasks, t, rng, rng.randint(3, 32)))
                                 for t in tasks for _ in range(args.random_runs)]}
            if fname.startswith("mind2web-live_test"):
                groups["generated"] = [(t["index"], r) for t in tasks for r in generated_runs(t, rng)]
            for g, runs in groups.items():
                folder = os.path.join(work, fname.split("_")[0] + "-" + g)
                write_runs(folder, runs)
                got = keynode_score(args.keynode, path, folder)
                n = compare("%s %s" % (fname, g), tasks, runs, got, problems)
                print("%s %s: %d runs" % (fname, g, n))
                total += n
        for i, (name, tasks, runs) in enumerate(edge_cases()):
            tf = os.path.join(work, "edge%02d.json" % i)
            with open(tf, "w", encoding="utf-8") as f:
                json.dump(tasks, f)
            folder = os.path.join(work, "edge%02d" % i)
            write_runs(folder, runs)
            got = keynode_score(args.keynode, tf, folder)
            total += compare("edge '%s'" % name, tasks, runs, got, problems)
        print("edge cases: %d" % len(edge_cases()))
    finally:
        JUDGE.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for p in problems[:60]:
        print("MISMATCH", p)
    runs_differ = len({p.split(" (task")[0] for p in problems if " run " in p})
    print("%d runs compared, %d differ, %d mismatches" % (total, runs_differ, len(problems)))
    return 1 if problems or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
