// guardmatrix-tables.mjs — guardmatrix.sh's task files and verdicts, both from the shapes' table
// (tests/sites/guard-matrix/shapes.mjs), so a row added there is tried, ruled and judged.
//   node guardmatrix-tables.mjs tasks ORIGIN_A HELD.yaml SENT.yaml
//     HELD.yaml: task set `matrix` whose one task holds every shape under the shape's own rule
//     ({method, url: {regex: "/act/NAME(\?|$)"}} plus the row's body matcher; a WebSocket shape's is
//     {websocket: {url: {regex: …}}}). A guard list takes at most
//     100 rules: the first 100 are the set's `guard:`, the rest the task's. SENT.yaml: the same task with
//     one rule no shape meets (a GET rule, so the same resource types are paused as in the held run).
//     Both: end_on_guard false, one key node (end.html#held or #sent, where the agent ends).
//   node guardmatrix-tables.mjs check DIR [ONLY_REGEX]
//     DIR holds held.log / sent.log (the server's JSON lines of each run), held.jsonl / sent.jsonl (the
//     trajectories). Prints "ok …" / "FAIL …" per shape and writes DIR/table.md (shape, kind, how, held,
//     sent). Exit 1 when a shape leaked (arrived under its rule), was not recorded as held exactly once, did not
//     arrive without its rule, or (not a GET) arrived without a request event in the trajectory.
import fs from 'node:fs';
import { SHAPES } from '../sites/guard-matrix/shapes.mjs';

const [cmd, ...args] = process.argv.slice(2);
const rule = (s) => (s.kind === 'websocket' ? { websocket: { url: { regex: `/act/${s.name}(\\?|$)` } } }
  : { method: s.method, url: { regex: `/act/${s.name}(\\?|$)` }, ...(s.body ? { body: s.body } : {}) });
const y = (o) => JSON.stringify(o); // JSON is YAML flow style

if (cmd === 'tasks') {
  const [a, held, sent] = args;
  // the run's own end page: the tab still showing the other run's must not end this one at once
  const nodes = (run) => `    key_nodes:\n      - id: end\n        url: { include: "/guard-matrix/end.html#${run}" }\n`;
  const rules = SHAPES.map(rule);
  const head = (id, intent, run) => `  - id: ${id}\n    intent: ${intent}\n    start_url: ${a}/guard-matrix/idle.html\n`
    + '    end_on_guard: false\n' + nodes(run);
  fs.writeFileSync(held, `# written by guardmatrix-tables.mjs from shapes.mjs\nguard:\n${rules.slice(0, 100).map((r) => `  - ${y(r)}\n`).join('')}`
    + `tasks:\n${head('matrix-held', 'Try every way a page can send; each is held by its own rule', 'held')}`
    + (rules.length > 100 ? `    guard:\n${rules.slice(100).map((r) => `      - ${y(r)}\n`).join('')}` : ''));
  fs.writeFileSync(sent, `# written by guardmatrix-tables.mjs from shapes.mjs\ntasks:\n${head('matrix-sent', 'Try every way a page can send, no rule holding any', 'sent')}`
    + `    guard:\n      - ${y({ method: 'GET', url: { include: '/never-sent/' } })}\n`);
  process.exit(0);
}

if (cmd !== 'check') {
  console.error('usage: guardmatrix-tables.mjs tasks ORIGIN_A HELD.yaml SENT.yaml | check DIR [ONLY_REGEX]');
  process.exit(2);
}
const [dir, onlyRe] = args;
const only = onlyRe ? new RegExp(onlyRe) : null;
const lines = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const arrivals = (log, s) => log.filter((l) => l.path === `/act/${s.name}` && l.method === s.method).length;
const versions = (log, s) => [...new Set(log.filter((l) => l.path === `/act/${s.name}` && l.method === s.method).map((l) => l.http))];
// a request's events, or a WebSocket shape's message events (type websocket)
const requests = (traj, s, held) => traj.filter((e) => {
  const r = s.kind === 'websocket' ? e.type === 'websocket' && e.websocket : e.type === 'request' && e.request;
  return r && !!r.held === held && new RegExp(`/act/${s.name}(\\?|$)`).test(r.url);
}).length;
const logs = { held: lines(`${dir}/held.log`), sent: lines(`${dir}/sent.log`) };
const trajs = { held: lines(`${dir}/held.jsonl`), sent: lines(`${dir}/sent.jsonl`) };
let fails = 0, n = 0, nHeld = 0, nSent = 0;
const table = ['| shape | kind | how | method | held under its rule | sent without it |', '|---|---|---|---|---|---|'];
for (const s of SHAPES) {
  if (only && !only.test(s.name)) continue;
  n++;
  const leaked = arrivals(logs.held, s), heldEvents = requests(trajs.held, s, true);
  const arrived = arrivals(logs.sent, s), sentEvents = requests(trajs.sent, s, false);
  // held: exactly one request event (a request decided twice is recorded once); sent, a request is also
  // in the trajectory (held: false) unless it is a GET (requests.h: GETs are
  // recorded only for tasks with request key nodes)
  const heldOk = leaked === 0 && heldEvents === 1, sentOk = arrived >= 1 && (sentEvents >= 1 || s.method === 'GET');
  nHeld += heldOk;
  nSent += sentOk;
  const held = leaked ? `**LEAK**: arrived ${leaked}×` : heldEvents ? `held (${heldEvents} event${heldEvents > 1 ? 's' : ''}), 0 arrived` : '**not recorded** (0 arrived)';
  const sent = (arrived ? `arrived ${arrived}× (HTTP/${versions(logs.sent, s).join(', ')})` : '**did not arrive**')
    + (sentEvents ? ', recorded' : s.method === 'GET' ? '' : ', **not recorded**');
  table.push(`| \`${s.name}\` | ${s.kind} | ${s.how} | ${s.method} | ${held} | ${sent} |`);
  if (heldOk && sentOk) console.log(`ok   ${s.name}: ${held}; ${sent}`);
  else { fails++; console.log(`FAIL ${s.name}: ${held}; ${sent}`); }
}
table.push('', `${n} shapes: ${nHeld} held under their rule with nothing arriving, ${nSent} arrived without it.`);
fs.writeFileSync(`${dir}/table.md`, `${table.join('\n')}\n`);
console.log(`shapes ${n} held ${nHeld} sent ${nSent}`);
process.exit(fails ? 1 : 0);
