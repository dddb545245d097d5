// blocked-check.mjs — the checks of blocked.sh that read JSON (node only, no jq on CI machines).
//
//   node blocked-check.mjs tasks FIXTURES.json BASE          → the task file, one task per fixture (stdout)
//   node blocked-check.mjs reports FIXTURES.json DIR         → every DIR/f-NAME.json (keynode replay --validate
//                                                              --out DIR) against the fixture's "expect"
//   node blocked-check.mjs result REPO RESULT.json STATUS [KIND]  → a watched run's result: status (and the
//                                                              blocked kind), valid against run-result.schema.json
// Prints "ok …" / "FAIL …" lines; exit 0 when all passed, 1 otherwise, 2 usage.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [cmd, a, b, c, d] = process.argv.slice(2);
let fails = 0;
const ok = (m) => console.log(`ok   ${m}`);
const fail = (m) => { fails++; console.log(`FAIL ${m}`); };
const check = (m, cond, why = '') => (cond ? ok(m) : fail(why ? `${m}: ${why}` : m));

// The fixture's start path: a geo fixture is asked for under its "from" country.
const startPath = (name, fx) => (fx.redirect ? `/${fx.redirect.from}/f/${name}/` : `/f/${name}/`);

if (cmd === 'tasks' && a && b) {
  const fx = JSON.parse(fs.readFileSync(a, 'utf8'));
  let y = 'tasks:\n';
  for (const name of Object.keys(fx)) {
    const p = startPath(name, fx[name]);
    y += `  - id: f-${name}\n    intent: "Open the catalogue of Trailhead Outfitters"\n    start_url: ${b}${p}\n` +
         `    key_nodes:\n      - url: { include: "${p}done.html" }\n` +
         `    steps:\n      - goto: ${b}${p}\n      - click: { selector: "#go" }\n`;
  }
  process.stdout.write(y);
  process.exit(0);
} else if (cmd === 'reports' && a && b) {
  const fx = JSON.parse(fs.readFileSync(a, 'utf8'));
  for (const [name, f] of Object.entries(fx)) {
    const file = path.join(b, `f-${name}.json`);
    let r;
    try { r = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { fail(`${name}: no report (${e.message})`); continue; }
    const want = f.expect;
    if (r.status !== want.status) { fail(`${name}: status ${r.status}, want ${want.status} ${JSON.stringify(r.blocked || r.broken || {})}`); continue; }
    if (want.status !== 'blocked') {
      check(`${name}: ${want.status}, not blocked`, !r.blocked, JSON.stringify(r.blocked));
      continue;
    }
    const bl = r.blocked || {};
    const png = bl.screenshot ? path.join(b, bl.screenshot) : null;
    const isPng = png && fs.existsSync(png) && fs.readFileSync(png).subarray(1, 4).toString() === 'PNG';
    const problems = [];
    if (bl.kind !== want.kind) problems.push(`kind ${bl.kind}, want ${want.kind}`);
    if (bl.signature !== want.signature) problems.push(`signature ${JSON.stringify(bl.signature)}, want ${JSON.stringify(want.signature)}`);
    if (bl.step !== 1) problems.push(`step ${bl.step}, want 1 (the goto)`);
    if (!bl.url || !bl.url.startsWith('http://127.0.0.1:')) problems.push(`url ${bl.url}`);
    if (f.redirect && !bl.url.includes(`/${f.redirect.to}/`)) problems.push(`url ${bl.url} is not the ${f.redirect.to} site`);
    if ((f.status || 200) !== bl.status) problems.push(`status ${bl.status}, want ${f.status || 200}`);
    if (f.headers && f.headers['Retry-After'] && bl.retry_after !== f.headers['Retry-After'])
      problems.push(`retry_after ${bl.retry_after}, want ${f.headers['Retry-After']}`);
    if (!isPng) problems.push(`no PNG screenshot (${bl.screenshot})`);
    if (r.broken) problems.push('also has "broken"');
    const step = (r.replay && r.replay.steps || [])[0] || {};
    if (step.outcome !== 'blocked') problems.push(`step 1 outcome ${step.outcome}`);
    check(`${name}: blocked (${want.signature}) with evidence`, problems.length === 0, problems.join('; '));
  }
} else if (cmd === 'result' && a && b && c) {
  const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node', 'package.json'));
  const Ajv2020 = require('ajv/dist/2020').default;
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true });
  const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(a, 'schemas', 'run-result.schema.json'), 'utf8')));
  let r;
  try { r = JSON.parse(fs.readFileSync(b, 'utf8')); } catch (e) { fail(`result ${b}: ${e.message}`); process.exit(1); }
  check(`result status ${c}`, r.status === c, `got ${r.status} ${JSON.stringify(r.blocked || {})}`);
  if (d) check(`result blocked.kind ${d}`, r.blocked && r.blocked.kind === d, JSON.stringify(r.blocked));
  else check('result has no "blocked"', !r.blocked, JSON.stringify(r.blocked));
  check('result valid against run-result.schema.json', validate(r), ajv.errorsText(validate.errors));
} else {
  console.error('usage: node blocked-check.mjs tasks|reports|result …');
  process.exit(2);
}
process.exit(fails ? 1 : 0);
