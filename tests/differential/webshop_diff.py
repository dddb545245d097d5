#!/usr/bin/env python3
"""webshop_diff.py — the WebShop purchase-reward differential suite.

Generates goal/product pairs (seeded, so every run is the same) and thefuzz token_set_ratio pairs,
computes the expected results with an independent oracle written here from the rules of WebShop's
web_agent_site/engine/goal.py (Python standard library only; thefuzz 0.19.0 without
python-Levenshtein, so its ratio is difflib's SequenceMatcher), runs keynode's driver
(webshop_diff.c) on the same cases and requires every result to agree. The type rule's noun
tagging (spaCy in WebShop) follows keynode's documented WordNet approximation
(keynodes/README.md "Purchase reward"), read here from the same WordNet files.

    webshop_diff.py --driver build/tests/differential/webshop_diff [--cases N] [--wordnet DIR]
"""
import argparse
import decimal
import difflib
import json
import random
import re
import subprocess
import sys

# ---------------------------------------------------------------- the oracle: thefuzz 0.19.0


def full_process(s):
    """utils.full_process(s, force_ascii=True): chr(128)..chr(255) deleted, \\W to spaces,
    lower(), strip()."""
    s = "".join(c for c in s if not 128 <= ord(c) < 256)
    return re.sub(r"(?u)\W", " ", s).lower().strip()


def ratio(a, b, scorer):
    if a == b:
        return 100
    if not a or not b:
        return 0
    if scorer == "indel":  # python-Levenshtein's ratio: 2 * LCS / total length
        prev = [0] * (len(b) + 1)
        for x in a:
            cur = [0]
            for j, y in enumerate(b):
                cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
            prev = cur
        r = 2 * prev[-1] / (len(a) + len(b))
    else:
        r = difflib.SequenceMatcher(None, a, b).ratio()
    return int(round(100 * r))


def token_set_ratio(s1, s2, scorer="difflib"):
    p1, p2 = full_process(s1), full_process(s2)
    if not p1 or not p2:
        return 0
    t1, t2 = set(p1.split()), set(p2.split())
    sect = " ".join(sorted(t1 & t2))
    c12 = (sect + " " + " ".join(sorted(t1 - t2))).strip()
    c21 = (sect + " " + " ".join(sorted(t2 - t1))).strip()
    return max(ratio(sect, c12, scorer), ratio(sect, c21, scorer), ratio(c12, c21, scorer))


# ---------------------------------------------------------------- the oracle: goal.py's rules

COLOURS = """alabaster apricot aqua ash asphalt azure banana beige black blue blush bordeaux bronze
brown burgundy camel camo caramel champagne charcoal cheetah chestnut chocolate christmas coffee
cognac copper coral cranberry cream crystal dark denim eggplant elephant espresso fuchsia gold
granite grape graphite grass gray green grey heather indigo ivory ivy khaki lavender lemon leopard
light lilac lime magenta maroon mauve merlot midnight mint mocha multicolor mushroom mustard
natural navy nude olive orange peach pewter pink plum purple rainbow red rose royal rust sand
sapphire seashell silver skull slate steel stone stonewash sunflower tan taupe teal tiger turquoise
violet walnut wheat white wine yellow""".split()


def normalize_color(s):
    return next((c for c in COLOURS if c in s), s)


class Nouns:
    """keynode's approximation of spaCy's NOUN/PROPN tags (keynodes/README.md)."""
    FUNCTION = set("""a about an and as at but by for from he her his i in into it its my nor of
        on onto or our per she than that the their these they this those to via we with without
        you your""".split())
    SUFFIX = [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
              ("shes", "sh"), ("men", "man"), ("ies", "y")]

    def __init__(self, folder):
        self.tags = {}  # word -> {pos: tagsense_cnt}
        for pos in ("noun", "adj", "adv"):
            with open(f"{folder}/index.{pos}", encoding="latin-1") as f:
                for line in f:
                    if line.startswith(" "):
                        continue
                    p = line.split()
                    self.tags.setdefault(p[0], {})[pos] = int(p[5 + int(p[3])])
        self.exc = {}
        with open(f"{folder}/noun.exc", encoding="latin-1") as f:
            for line in f:
                p = line.split()
                if len(p) > 1:
                    self.exc.setdefault(p[0], p[1])

    def noun_tags(self, w):
        forms = [w] + ([self.exc[w]] if w in self.exc else [])
        forms += [w[:-len(s)] + r for s, r in self.SUFFIX if len(w) > len(s) and w.endswith(s)]
        for f in forms:
            if "noun" in self.tags.get(f, {}):
                return self.tags[f]["noun"]
        return None

    def is_noun(self, w):
        if w in self.FUNCTION:
            return False
        t = self.tags.get(w, {})
        other = max(t.get("adj", -1), t.get("adv", -1))
        n = self.noun_tags(w)
        if n is None:
            return other < 0 and not any(len(w) > len(s) + 2 and w.endswith(s)
                                         for s in ("able", "ible", "less", "ous", "ful"))
        return other <= n

    def of(self, name):
        out = []
        for m in re.finditer(r"[^\W_]+(?:\.[^\W_]+)*", name):
            tok = m.group(0)
            if re.fullmatch(r"[0-9.]+", tok):
                continue
            if tok in ("s", "S") and m.start() > 0 and name[m.start() - 1] in "'\u2019":
                continue
            if self.is_noun(tok.lower()):
                out.append(tok.lower())
        return out


def price_of(text):
    """The price WebShop reads from a price text (keynode: no "$" means one number; a range
    counts at its larger end)."""
    if text is None:
        return None
    pieces = text.split("$")[1:] if "$" in text else [text]
    try:
        values = [float(decimal.Decimal(re.sub(r"[^0-9.]", "", p))) for p in pieces[:2]]
    except decimal.InvalidOperation:
        return None
    return max(values) if values else None


def bullet_points(read_bullets):
    """goal.py's BulletPoints as the page shows them: each item read, and within an item each line
    (innerText puts a line break between block elements: a reader naming the whole list, or a
    bullet with <br>, gets its points as lines). The whitespace around a break goes with it."""
    return [line for b in read_bullets for line in re.split(r"[ \t\f\v]*[\r\n][ \t\r\n\f\v]*", b)]


def reward(nouns, goal, read):
    desired = nouns.of(goal["type"])
    bought = set(nouns.of(read["title"] or ""))
    title_score = len(set(desired) & bought) / len(desired) if desired else 0.2
    r_type = 1.0 if title_score > 0.2 else 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    attrs = 0
    for g in goal["attributes"]:
        if any(token_set_ratio(p, g) > 85 for p in read["attributes"]) or \
           g in (read["title"] or "").lower() or \
           g in " ".join(bullet_points(read["bullets"])).lower() or \
           g in (read["description"] or "").lower():
            attrs += 1
    opts = 0
    for g in goal["options"]:
        g = normalize_color(g)
        if any(token_set_ratio(normalize_color(p), g) > 85 for p in read["options"]):
            opts += 1
    price = price_of(read["price"])
    limit = goal["price_max"] if goal["price_max"] > 0 else 1000000
    price_ok = int(price is not None and price <= limit)
    total = (attrs + opts + price_ok) / (len(goal["attributes"]) + len(goal["options"]) + 1)
    return [total * r_type, r_type, title_score, attrs, opts, price_ok]


# ---------------------------------------------------------------- the generator

TYPES = [
    ("trail running shoe", ["Trail Running Shoe Pro", "Waterproof Hiking Boot", "Running Sock"]),
    ("waterproof jacket", ["Waterproof Hiking Boot", "Packable Rain Jacket", "Jacket"]),
    ("stainless steel water bottle", ["Insulated Water Bottle, Stainless Steel",
                                      "Portable Blender Bottle", "Steel Lunch Box"]),
    ("crème brûlée dessert cup", ["CRÈME BRÛLÉE Dessert Cups (Pack of 6)", "Crème Caramel Cup",
                                  "Ceramic Ramekin"]),
    ("men's leather wallet", ["Leather Wallet for Men – RFID Blocking", "Women's Leather Purse",
                              "Slim Card Holder"]),
    ("portable bluetooth speaker", ["Bluetooth Speaker, Portable & Waterproof",
                                    "Wireless Earbuds", "Portable Charger"]),
    ("organic green tea bags", ["Organic Green Tea, 100 Tea Bags", "Herbal Tea Sampler",
                                "Green Coffee Beans"]),
    ("lightweight rain jacket for hiking trips", ["Packable Rain Jacket", "Hiking Boot Classic",
                                                  "Lightweight Trekking Poles"]),
    ("ΣΑΛΑΤΑ bowl", ["σαλατα Bowl Set", "Salad Bowl", "ΣΑΛΑΤΑ ΜΠΟΛ"]),
    ("4k ultra hd soundbar", ["Ultra HD 4K Soundbar with Subwoofer", "HD Projector",
                              "Soundbar Wall Mount"]),
    ("high quality non-slip yoga mat", ["Non-Slip Yoga Mat, Extra Thick", "Yoga Block",
                                        "Exercise Mat"]),
    ("king size bed sheets", ["Bed Sheets King Size – 4 Piece", "Queen Pillowcases",
                              "Sheet Set"]),
]

ATTRS = ["water resistant", "non-slip", "bpa free", "stainless steel", "fast charging",
         "long lasting", "easy clean", "machine washable", "gluten free", "crème brûlée",
         "dishwasher safe", "wireless", "high quality", "lightweight", "café au lait",
         "naïve design", "ærø made", "noise cancelling", "extra large", "ergonomic handle"]

OPTIONS = ["navy blue", "dark grey", "xl", "pack of 12", "9", "10", "small", "medium", "rose gold",
           "cool powder snow", "black", "size 9", "12 count (pack of 1)", "500ml", "twin",
           "crème", "Ærø red"]

PRICES = ["$59.99", "$1,299.99", "$10.00 - $20.00", "$15 to $45.5", "USD 12.50", "free", "$",
          "$9.99.", "$0.5", "$100", "12,50 €", "Price: $42.00 (save $5)", None]


def typo(rng, s):
    """A near miss: one or two edits of a word."""
    if not s:
        return s
    chars = list(s)
    for _ in range(rng.choice([1, 1, 2])):
        i = rng.randrange(len(chars))
        op = rng.choice(["swap", "drop", "double", "sub"])
        if op == "swap" and i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == "drop" and len(chars) > 2:
            del chars[i]
        elif op == "double":
            chars.insert(i, chars[i])
        else:
            chars[i] = rng.choice("aeiourstn")
    return "".join(chars)


def variant(rng, s):
    """s as a page may write it: case, punctuation, dashes, Unicode look-alikes, typos."""
    k = rng.randrange(9)
    if k == 0:
        return s.upper()
    if k == 1:
        return s.title()
    if k == 2:
        return s.replace(" ", rng.choice(["\u2013", "-", "/", " & ", "\u00a0", ", "]))
    if k == 3:
        return typo(rng, s)
    if k == 4:
        return rng.choice(["Premium ", "New ", "(2 pack) ", ""]) + s + rng.choice(
            ["!", " \u2014 best", " ™", "."])
    if k == 5:
        return s.replace("e", "é").replace("a", "à")
    if k == 6:
        return " ".join(reversed(s.split()))
    return s


def split_items(rng, text):
    """Bullet points that cut a phrase over two items."""
    words = text.split()
    if len(words) < 2:
        return [text]
    i = rng.randrange(1, len(words))
    return [" ".join(words[:i]), " ".join(words[i:])]


def make_case(rng, n, id_):
    kind = n % 8
    gtype, titles = rng.choice(TYPES)
    goal_attrs = rng.sample(ATTRS, rng.choice([0, 1, 2, 2, 3]))
    goal_opts = rng.sample(OPTIONS, rng.choice([0, 1, 2, 3]))
    title = rng.choice(titles + [gtype.upper(), gtype.title()])
    read = {"title": title, "attributes": [], "options": [], "price": rng.choice(PRICES),
            "bullets": [], "description": None}
    for a in goal_attrs:  # where each asked-for attribute shows, if anywhere
        place = rng.randrange(6 if kind != 2 else 3)
        if place == 0:
            read["attributes"].append(variant(rng, a))
        elif place == 1:
            read["description"] = (read["description"] or "Made to last.") + " " + variant(rng, a)
        elif place == 2:
            read["bullets"] += split_items(rng, variant(rng, a))
        elif place == 3:
            read["title"] += " " + variant(rng, a)
        elif place == 4:
            read["attributes"].append(typo(rng, a))
    read["attributes"] += rng.sample(ATTRS, rng.randrange(3))
    if kind == 3:  # untouched defaults: the read has only what the agent chose, maybe nothing
        read["options"] = []
    else:
        for o in goal_opts:
            if rng.random() < 0.7:
                read["options"].append(variant(rng, o) if rng.random() < 0.5 else o)
        if rng.random() < 0.3:
            read["options"].append(rng.choice(OPTIONS))
    if kind == 4:  # long texts: difflib's autojunk past 200 characters in the fuzzy match
        read["attributes"].append(" ".join(rng.choice(ATTRS) for _ in range(30)))
    if rng.random() < 0.2:
        read["bullets"].append("Soothing, great feeling \u2013 easy to use")
    if kind == 6 and len(read["bullets"]) > 1:  # the whole list read as one text, a line a point
        read["bullets"] = [rng.choice(["\n", " \n", "\n\n", "\r\n  "]).join(read["bullets"])]
    goal = {"type": variant(rng, gtype) if kind == 5 else gtype, "attributes": goal_attrs,
            "options": goal_opts, "price_max": rng.choice([0, 20, 45.5, 60, 1300])}
    return {"id": id_, "goal": goal, "read": read}


def ratio_case(rng, id_):
    a = rng.choice(ATTRS + OPTIONS)
    b = variant(rng, a) if rng.random() < 0.8 else rng.choice(ATTRS + OPTIONS)
    if rng.random() < 0.5:
        a, b = b, a
    return {"id": id_, "ratio": [a, b], "scorer": rng.choice(["difflib", "difflib", "indel"])}


def long_ratio_case(rng, id_):
    """Texts of 150 to 450 characters: difflib's autojunk (popular characters of a second string of
    200 or more) and long matching-block recursions."""
    words = [rng.choice(ATTRS + OPTIONS) for _ in range(rng.randrange(20, 50))]
    a = " ".join(words)
    b = " ".join(typo(rng, w) if rng.random() < 0.3 else w for w in rng.sample(words, len(words)))
    return {"id": id_, "ratio": [a, b], "scorer": "difflib"}


def fixed_reward_cases():
    """An attribute over two bullet points ("made of stainless" · "steel for durability"): goal.py
    joins them with a space and finds "stainless steel" (1.0; 0.5 if the join were lost) — as
    separate items, as one text with line breaks (a list read whole), and the whitespace goal.py
    keeps: a trailing space in an item makes two and the phrase is not found (0.5)."""
    goal = {"type": "water bottle", "attributes": ["stainless steel"], "options": [], "price_max": 0}
    reads = [["made of stainless", "steel for durability"],
             ["made of stainless\nsteel for durability"],
             ["made of stainless \r\n\n  steel for durability"],
             ["BPA free", "Made of Stainless", "Steel for durability"],
             ["made of stainless ", "steel for durability"],
             ["made of stainless\t steel for durability"],
             ["made of stainless", "", "steel for durability"],
             ["made of stainless"], []]
    return [{"id": "b%d" % i, "goal": goal,
             "read": {"title": "Water Bottle", "attributes": [], "options": [], "price": "$10",
                      "bullets": b, "description": None}}
            for i, b in enumerate(reads)]


FIXED_RATIOS = [  # the and thefuzz's own examples, both orders
    ("fast charngig", "fast charging"), ("fast charging", "fast charngig"),
    ("crème brûlée", "CRÈME BRÛLÉE"), ("water\u2013resistant", "water resistant"),
    ("fuzzy was a bear", "fuzzy fuzzy was a bear"), ("İstanbul", "istanbul"),
    ("Ærø ΣΑΣ", "ærø σας"), ("?!", "?!"), ("", "x"), ("black", "blue"), ("size 9", "size 10"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--wordnet", default="/usr/share/wordnet")
    args = ap.parse_args()
    nouns = Nouns(args.wordnet)
    rng = random.Random(28)
    cases = [make_case(rng, n, "r%d" % n) for n in range(args.cases)]
    cases += [ratio_case(rng, "f%d" % n) for n in range(args.cases)]
    cases += [long_ratio_case(rng, "l%d" % n) for n in range(args.cases // 8)]
    cases += [{"id": "x%d" % i, "ratio": [a, b], "scorer": "difflib"}
              for i, (a, b) in enumerate(FIXED_RATIOS)]
    cases += fixed_reward_cases()
    want = {}
    for c in cases:
        if "ratio" in c:
            want[c["id"]] = [token_set_ratio(*c["ratio"], scorer=c["scorer"])]
        else:
            want[c["id"]] = reward(nouns, c["goal"], c["read"])
    feed = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    out = subprocess.run([args.driver], input=feed.encode(), capture_output=True, check=True)
    got = {}
    for line in out.stdout.decode().splitlines():
        p = line.split(" ", 1)
        got[p[0]] = p[1] if len(p) > 1 else ""
    bad = 0
    by_id = {c["id"]: c for c in cases}
    for id_, w in want.items():
        g = got.get(id_)
        try:
            vals = [float(x) for x in g.split()]
            ok = len(vals) == len(w) and all(abs(a - b) < 1e-12 for a, b in zip(vals, w))
        except (AttributeError, ValueError):
            ok = False
        if not ok:
            bad += 1
            if bad <= 20:
                print("DIFFER %s: oracle %s keynode %s\n  case %s" % (
                    id_, w, g, json.dumps(by_id[id_], ensure_ascii=False)))
    n_reward = sum(1 for c in cases if "goal" in c)
    rewards = sorted({round(w[0], 4) for i, w in want.items() if i.startswith("r")})
    split = [want[c["id"]][0] for c in cases if c["id"].startswith("b")]
    if split[:4] != [1.0] * 4 or split[4:] != [0.5] * 5:  # the oracle itself, on the known cases
        print("oracle: split bullet points give %s, want 4 × 1.0 then 5 × 0.5" % split)
        bad += 1
    print("webshop_diff: %d reward cases (%d distinct rewards), %d ratio cases: %d differ" % (
        n_reward, len(rewards), len(cases) - n_reward, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
