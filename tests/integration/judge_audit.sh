#!/usr/bin/env bash
# judge_audit.sh — `keynode judge-audit` end to end with the real binary. On the shipped labelled set
# (tests/data/judge-audit/labels.jsonl) with the offline judge: the confusion counts and the list of wrong
# items equal what `keynode match --matcher semantic` says of every item judged one by one; every interval
# holds its point estimate; the same seed gives the same report; the table says the same counts as --json.
# Usage errors and a malformed labels file exit 2 with file:line. Then the LLM path against the fake
# OpenAI-compatible judge (lib.sh kn_judge_start: llm-server.mjs): offline and LLM judges side by side,
# the LLM verdicts equal `keynode match --semantic llm`'s, pairwise agreement between the judges; a
# failed judgement (one item's HTTP 400, then a whole outage) is unjudged — counted and listed with the
# judge's words, never a verdict — and the exit is 1; a slow judge logs its progress on stderr.
# Only 127.0.0.1 is contacted; every process is stopped by PID, even on failure. About 20 s, most of it the
# 355 `keynode match` calls.
# usage: judge_audit.sh KEYNODE_BIN REPO
#
# ctest: integration.judge_audit ARGS=keynode,repo TIMEOUT=240
set -uo pipefail
kn=$1
repo=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init judge-audit
command -v python3 >/dev/null 2>&1 || { kn_fail "python3 not found"; kn_finish; }
labels=$repo/tests/data/judge-audit/labels.jsonl

# expect NAME WANT_EXIT CMD… — run, check the exit code; output in $tmp/out, $tmp/err
expect() {
  local name=$1 want=$2 got; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" = "$want" ]; then kn_ok "$name"; else kn_fail "$name: exit $got, want $want: $(head -c 400 "$tmp/err")"; fi
}
has() { # has NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then kn_ok "$1"; else kn_fail "$1: no '$3' in $2: $(head -c 400 "$2")"; fi
}

# --- usage and malformed input ---
expect "--help: exit 0" 0 "$kn" judge-audit --help
for o in --labels --judge --json --bootstrap --seed --parallel --semantic --llm-url "exit: 0"; do has "--help names $o" "$tmp/out" "$o"; done
expect "no --labels: exit 2" 2 "$kn" judge-audit
has "no --labels: reason" "$tmp/err" "--labels is required"
expect "bad --judge: exit 2" 2 "$kn" judge-audit --labels "$labels" --judge gpt
expect "--judge llm: without a model: exit 2" 2 "$kn" judge-audit --labels "$labels" --judge llm:
expect "--judge twice: exit 2" 2 "$kn" judge-audit --labels "$labels" --judge offline --judge offline
expect "--semantic with --judge: exit 2" 2 "$kn" judge-audit --labels "$labels" --semantic offline --judge offline
expect "--bootstrap out of range: exit 2" 2 "$kn" judge-audit --labels "$labels" --bootstrap 100001
expect "--seed negative: exit 2" 2 "$kn" judge-audit --labels "$labels" --seed -1
expect "missing file: exit 2" 2 "$kn" judge-audit --labels "$tmp/none.jsonl"
has "missing file: named" "$tmp/err" "$tmp/none.jsonl: No such file or directory"
printf '%s\n' '{"rule": "r", "value": "v", "target": "answer", "label": true}' '' \
  '{"rule": "r", "value": "v", "target": "answer", "label": "yes"}' >"$tmp/bad.jsonl"
expect "malformed line: exit 2" 2 "$kn" judge-audit --labels "$tmp/bad.jsonl"
has "malformed line: file:line" "$tmp/err" "$tmp/bad.jsonl:3: \"label\" must be true or false"
printf '{"rule": "r", "value": "v",\n' >"$tmp/bad.jsonl"
expect "bad JSON: exit 2" 2 "$kn" judge-audit --labels "$tmp/bad.jsonl"
has "bad JSON: file:line:column" "$tmp/err" "$tmp/bad.jsonl:1:"

# --- the shipped set, offline ---
n=$(grep -c . "$labels")
[ "$n" -ge 200 ] && kn_ok "the shipped set has $n items (>= 200)" || kn_fail "the shipped set has $n items, want >= 200"
expect "offline audit --json: exit 0" 0 "$kn" judge-audit --labels "$labels" --json
cp "$tmp/out" "$tmp/offline.json"
expect "offline audit again, same seed" 0 "$kn" judge-audit --labels "$labels" --json
cmp -s "$tmp/out" "$tmp/offline.json" && kn_ok "same seed, same report" || kn_fail "two runs with the same seed differ"
for p in 1 32; do
  expect "offline audit --parallel $p" 0 "$kn" judge-audit --labels "$labels" --json --parallel "$p"
  cmp -s "$tmp/out" "$tmp/offline.json" && kn_ok "--parallel $p: the same report" || kn_fail "--parallel $p changes the report"
done
expect "--parallel 0: exit 2" 2 "$kn" judge-audit --labels "$labels" --parallel 0
expect "offline audit, table" 0 "$kn" judge-audit --labels "$labels"
cp "$tmp/out" "$tmp/offline.txt"

# every item through `keynode match`, one by one: its exit code is the verdict (0 match, 1 none)
python3 - "$labels" "$kn" "$tmp/offline.json" "$tmp/offline.txt" <<'PY' || kn_fail "judge-audit and keynode match disagree (above)"
import json, subprocess, sys
labels, kn, report, table = sys.argv[1:5]
items = [(i + 1, json.loads(l)) for i, l in enumerate(open(labels, encoding='utf-8')) if l.strip()]
c = {'tp': 0, 'fp': 0, 'tn': 0, 'fn': 0}
wrong = []
for line, it in items:
    cmd = [kn, 'match', '--target', it['target'], '--matcher', 'semantic', '--expect', it['rule'], '--value', it['value']]
    if it.get('key'):
        cmd += ['--key', it['key']]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if rc not in (0, 1):
        sys.exit(f'line {line}: keynode match exited {rc}')
    verdict = rc == 0
    c[('t' if verdict == it['label'] else 'f') + ('p' if verdict else 'n')] += 1
    if verdict != it['label']:
        wrong.append(line)
r = json.load(open(report))
j = r['judges'][0]
bad = []
if j['judge'] != 'offline' or r['items'] != len(items) or j['judged'] != len(items) or j['unjudged'] != 0:
    bad.append(f"judge {j['judge']}, items {r['items']}, judged {j['judged']}, unjudged {j['unjudged']}")
if j['confusion'] != c:
    bad.append(f"confusion {j['confusion']}, keynode match one by one: {c}")
if [w['line'] for w in j['wrong']] != wrong:
    bad.append(f"wrong lines {[w['line'] for w in j['wrong']]}, keynode match: {wrong}")
for w in j['wrong']:
    it = dict(items)[w['line']]
    if (w['rule'], w['value'], w['label'], w['verdict']) != (it['rule'], it['value'], it['label'], not it['label']):
        bad.append(f"wrong item line {w['line']} does not repeat the item")
for m in ('agreement', 'kappa', 'false_positive_rate', 'false_negative_rate'):
    v = j[m]
    if v['value'] is None or v['ci95'] is None or not v['ci95'][0] <= v['value'] <= v['ci95'][1]:
        bad.append(f"{m} {v}: the interval does not hold the estimate")
n = len(items)
bt = j['by_target']
if {k: sum(t[k] for t in bt.values()) for k in c} != c or set(bt) != {it['target'] for _, it in items}:
    bad.append(f"by_target {bt} does not add up to {c}")
if abs(j['agreement']['value'] - (c['tp'] + c['tn']) / n) > 1e-6:
    bad.append('agreement is not (TP+TN)/n')
if r['bootstrap']['resamples'] != 1000 or r['bootstrap']['seed'] != 1 or r['pairs'] != []:
    bad.append(f"bootstrap {r['bootstrap']}, pairs {r['pairs']}")
line = f"TP {c['tp']}  FP {c['fp']}  TN {c['tn']}  FN {c['fn']}"
if line not in open(table, encoding='utf-8').read():
    bad.append(f'the table does not say "{line}"')
for b in bad:
    print('FAIL', b)
if bad:
    sys.exit(1)
print(f"ok   {n} items: judge-audit's confusion {c} and its {len(wrong)} wrong items equal keynode match's, one by one; intervals hold the estimates")
PY
expect "--seed 2" 0 "$kn" judge-audit --labels "$labels" --json --seed 2
python3 -c 'import json,sys; a,b=(json.load(open(f))["judges"][0] for f in sys.argv[1:]); sys.exit(a["confusion"]!=b["confusion"] or a["kappa"]["ci95"]==b["kappa"]["ci95"] and a["agreement"]["ci95"]==b["agreement"]["ci95"] and a["false_negative_rate"]["ci95"]==b["false_negative_rate"]["ci95"])' \
  "$tmp/offline.json" "$tmp/out" && kn_ok "another seed: the same counts, other intervals" || kn_fail "--seed 2 changed the counts or no interval"
expect "--bootstrap 0: no intervals" 0 "$kn" judge-audit --labels "$labels" --json --bootstrap 0
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["judges"][0]; sys.exit(any(j[m]["ci95"] is not None for m in ("agreement","kappa")) or j["kappa"]["value"] is None)' "$tmp/out" &&
  kn_ok "--bootstrap 0: estimates without intervals" || kn_fail "--bootstrap 0: $(head -c 300 "$tmp/out")"

# all one class: kappa is null with the reason
head -3 "$labels" >"$tmp/one-class.jsonl"   # three items labelled true that the offline judge matches
expect "one class" 0 "$kn" judge-audit --labels "$tmp/one-class.jsonl" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["judges"][0]; k=j["kappa"]; sys.exit(not (k["value"] is None and k["ci95"] is None and "all true" in k["why"] and j["false_positive_rate"]["value"] is None))' "$tmp/out" &&
  kn_ok "labels and verdicts all true: kappa null, why given" || kn_fail "one class: $(head -c 600 "$tmp/out")"

# --- the LLM judge, beside the offline one ---
kn_judge_start || kn_finish
# the fake judge scores kn-score:X (in the rule) and fails on kn-test:400; its verdicts are known here
python3 - "$tmp/llm.jsonl" <<'PY'
import json, sys
rows = [("Decide whether are searching for mens winter coat kn-score:0.93", "mens winter coat", True),
        ("Decide whether are searching for mens winter coat kn-score:0.20", "womens winter coat", False),
        ("Decide whether are searching for coffee maker kn-score:0.95", "coffee machine", True),
        ("Decide whether are searching for coffee maker kn-score:0.90", "coffee maker filters", False),
        ("Decide whether are searching for wall art kn-score:0.10", "wall art", True),
        ("Decide whether is searching for rock kn-score:0.05", "rock climbing", False)]
with open(sys.argv[1], 'w') as f:
    for rule, value, label in rows:
        f.write(json.dumps({"rule": rule, "target": "url", "key": "q", "value": "https://s.example/search?q=" + value.replace(' ', '+'), "label": label}) + "\n")
    f.write(json.dumps({"rule": "Decide whether the content means gift card kn-score:0.80", "target": "element_value", "value": "Gift Cards", "label": True}) + "\n")
    f.write(json.dumps({"rule": "Decide whether the content is about side effects of rogaine kn-score:0.30", "target": "answer", "value": "Rogaine costs $45.", "label": False}) + "\n")
PY
llm=(--llm-timeout 5000 --verdict-cache off) # generous: the machine may be loaded; no outage here waits for it
expect "offline and llm side by side: exit 0" 0 "$kn" judge-audit --labels "$tmp/llm.jsonl" --json --judge offline --judge "llm:fake-judge@$judge_url" "${llm[@]}"
cp "$tmp/out" "$tmp/both.json"
expect "the same, one item at a time" 0 "$kn" judge-audit --labels "$tmp/llm.jsonl" --json --judge offline --judge "llm:fake-judge@$judge_url" "${llm[@]}" --parallel 1
cmp -s "$tmp/out" "$tmp/both.json" && kn_ok "llm judge: --parallel 1 gives the same report" || kn_fail "llm judge: --parallel 1 differs: $(diff "$tmp/out" "$tmp/both.json" | head -5)"
has "llm usage on stderr" "$tmp/err" "llm usage (fake-judge): 8 judgements"
if python3 - "$tmp/both.json" "$tmp/llm.jsonl" "$kn" "$judge_url" <<'PY'
import json, subprocess, sys
r, labels, kn, url = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
items = [json.loads(l) for l in open(labels)]
bad = []
names = [j['judge'] for j in r['judges']]
if names != ['offline', 'llm:fake-judge@' + url]:
    bad.append(f'judges {names}')
llm = r['judges'][1]
# each verdict as `keynode match --semantic llm` gives it
c = {'tp': 0, 'fp': 0, 'tn': 0, 'fn': 0}
for it in items:
    cmd = [kn, 'match', '--target', it['target'], '--matcher', 'semantic', '--expect', it['rule'], '--value', it['value'],
           '--semantic', 'llm', '--llm-url', url, '--llm-model', 'fake-judge', '--verdict-cache', 'off']
    if it.get('key'):
        cmd += ['--key', it['key']]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    v = rc == 0
    c[('t' if v == it['label'] else 'f') + ('p' if v else 'n')] += 1
if llm['confusion'] != c or c != {'tp': 3, 'fp': 1, 'tn': 3, 'fn': 1}:
    bad.append(f"llm confusion {llm['confusion']}, keynode match --semantic llm: {c} (want tp 3 fp 1 tn 3 fn 1)")
if llm['unjudged'] != 0 or llm['usage'].get('backend') != 'llm' or llm['usage'].get('judgements') != 8:
    bad.append(f"llm unjudged {llm['unjudged']}, usage {llm['usage']}")
if abs(llm['kappa']['value'] - 0.5) > 1e-6:   # p_o 6/8, p_e 0.5, kappa 0.5
    bad.append(f"llm kappa {llm['kappa']}")
p = r['pairs']
if len(p) != 1 or p[0]['a'] != 'offline' or p[0]['b'] != names[1] or p[0]['judged'] != 8:
    bad.append(f'pairs {p}')
else:
    off = {w['line']: w['verdict'] for w in r['judges'][0]['wrong']}
    offv = [off.get(i + 1, it['label']) for i, it in enumerate(items)]
    llmw = {w['line']: w['verdict'] for w in llm['wrong']}
    llmv = [llmw.get(i + 1, it['label']) for i, it in enumerate(items)]
    differ = sum(a != b for a, b in zip(offv, llmv))
    lines = [i + 1 for i, (a, b) in enumerate(zip(offv, llmv)) if a != b]
    if not lines:
        bad.append('the two judges never differ here: the pair check would check nothing')
    if p[0]['differ'] != differ or p[0]['differ_lines'] != lines or abs(p[0]['agreement']['value'] - (8 - differ) / 8) > 1e-6:
        bad.append(f'pair {p[0]}: the judges differ on {differ} items')
for b in bad:
    print('FAIL', b)
sys.exit(1 if bad else 0)
PY
then kn_ok "llm verdicts equal keynode match --semantic llm's; kappa 0.5; judges compared pairwise"
else kn_fail "the LLM audit (above)"
fi

# one item's judgement fails (HTTP 400, not retried): unjudged, listed, left out of the numbers; exit 1
python3 - "$tmp/llm.jsonl" "$tmp/llm-400.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows[0]['rule'] += ' kn-test:400'
open(sys.argv[2], 'w').write(''.join(json.dumps(r) + '\n' for r in rows))
PY
expect "one judgement fails: exit 1" 1 "$kn" judge-audit --labels "$tmp/llm-400.jsonl" --json --judge "llm:fake-judge@$judge_url" "${llm[@]}"
python3 - "$tmp/out" <<'PY' && kn_ok "one failed judgement: unjudged, listed with the judge's words, not counted" || kn_fail "one failed judgement: $(head -c 800 "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))['judges'][0]
u = j['unjudged_items']
ok = (j['judged'] == 7 and j['unjudged'] == 1 and len(u) == 1 and u[0]['line'] == 1 and 'HTTP 400' in u[0]['error']
      and 'verdict' not in u[0] and sum(j['confusion'].values()) == 7 and j['confusion']['tp'] == 2)
sys.exit(0 if ok else 1)
PY
expect "one judgement fails, table: exit 1" 1 "$kn" judge-audit --labels "$tmp/llm-400.jsonl" --judge "llm:fake-judge@$judge_url" "${llm[@]}"
has "the table says unjudged" "$tmp/out" "unjudged: 1 (the judge failed"

# a slow judge: progress lines on stderr while a long audit runs (every 2 s, and at the end)
for i in 1 2 3; do
  printf '{"rule": "Decide whether are searching for coats %s kn-test:delay kn-delay:900", "target": "answer", "value": "coats", "label": true}\n' "$i"
done >"$tmp/slow.jsonl"
expect "slow judge: exit 0" 0 "$kn" judge-audit --labels "$tmp/slow.jsonl" --judge "llm:fake-judge@$judge_url" --llm-timeout 5000 --verdict-cache off --parallel 1
has "slow judge: progress on stderr" "$tmp/err" "items judged ("
has "slow judge: the last progress line" "$tmp/err" ": 3 of 3 items judged"
has "slow judge: stdout is the report" "$tmp/out" "3 judged, 0 unjudged"

# the judge down (HTTP 402 on every request): every LLM item unjudged, the offline judge unaffected
kn_judge_outage 402 || kn_finish
expect "outage: exit 1" 1 "$kn" judge-audit --labels "$tmp/llm.jsonl" --json --judge offline --judge "llm:fake-judge@$judge_url" "${llm[@]}"
python3 - "$tmp/out" "$tmp/both.json" <<'PY' && kn_ok "outage: every LLM item unjudged, metrics null (nothing judged), offline as before, no pair" || kn_fail "outage: $(head -c 1200 "$tmp/out")"
import json, sys
r, before = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
off, llm = r['judges']
ok = (off['confusion'] == before['judges'][0]['confusion'] and off['unjudged'] == 0
      and llm['judged'] == 0 and llm['unjudged'] == 8 and len(llm['unjudged_items']) == 8 and llm['wrong'] == []
      and all('402' in u['error'] for u in llm['unjudged_items'])
      and all(llm[m]['value'] is None and llm[m]['why'] == 'no item was judged' for m in ('agreement', 'kappa'))
      and r['pairs'][0]['judged'] == 0 and r['pairs'][0]['unjudged'] == 8 and r['pairs'][0]['kappa']['value'] is None)
sys.exit(0 if ok else 1)
PY
kn_judge_outage none
expect "the judge back: exit 0" 0 "$kn" judge-audit --labels "$tmp/llm.jsonl" --judge "llm:fake-judge@$judge_url" "${llm[@]}"
has "the judge back: all judged" "$tmp/out" "8 judged, 0 unjudged"
kn_finish
