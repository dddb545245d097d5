// Validates keynode's documents against the JSON Schemas in schemas/ (driven by tests/integration/schemas.sh).
//
//   node validate-json.mjs REPO SHARED SCORE_OUTPUT.json
//
// Positive checks: the Mind2Web-Live files and the conformance tasks (mind2web-live.schema.json), every line of the
// conformance and bundled trajectories (trajectory.schema.json; line 1 must be a header, the rest events with
// non-decreasing t), every YAML task file under tests/data (task.schema.json), tests/data/schema-valid/*, and the
// `keynode score --json` output (score-output.schema.json). Negative checks: every file in
// tests/data/schema-invalid/ must be rejected. Also checks that every property in every schema has a description.
// Needs ajv, ajv-formats and yaml from tests/integration/node/node_modules (node/ensure.sh installs them).
// Exits 0 when everything passed, 1 otherwise, 2 on usage/environment errors.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [repo, shared, scoreOutput] = process.argv.slice(2);
if (!repo || !shared || !scoreOutput) {
  console.error('usage: node validate-json.mjs REPO SHARED SCORE_OUTPUT.json');
  process.exit(2);
}
const nodeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node');
let Ajv2020, addFormats, YAML;
try {
  const require = createRequire(path.join(nodeDir, 'package.json'));
  Ajv2020 = require('ajv/dist/2020').default;
  addFormats = require('ajv-formats').default;
  YAML = require('yaml');
} catch (e) {
  console.error(`validate-json: cannot load ajv/ajv-formats/yaml from ${nodeDir}/node_modules ` +
                `(run tests/integration/node/ensure.sh): ${e.message}`);
  process.exit(2);
}

const schemaDir = path.join(repo, 'schemas');
const BASE = 'https://keynode.dev/schemas/';
const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats(ajv);

let failures = 0, passes = 0;
const fail = (what, why) => { failures++; console.log(`FAIL ${what}: ${why}`); };
const ok = (what, note = '') => { passes++; console.log(`ok   ${what}${note ? ' (' + note + ')' : ''}`); };
// Names as printed: relative to the repo, or `shared/...` for files of the shared dir.
const rel = (p) => {
  const a = path.resolve(p);
  for (const [root, label] of [[path.resolve(repo), ''], [path.resolve(shared), 'shared/']])
    if (a.startsWith(root + path.sep)) return label + path.relative(root, a);
  return a;
};

// --- load and lint the schemas --------------------------------------------------------------------------------
const schemaFiles = ['task', 'mind2web-live', 'trajectory', 'run-result', 'score-output', 'workflow', 'trace', 'replay-report', 'run-summary', 'judge-audit'];
const schemas = {};
for (const name of schemaFiles) {
  const file = path.join(schemaDir, `${name}.schema.json`);
  try {
    schemas[name] = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (schemas[name].$id !== BASE + `${name}.schema.json`) fail(rel(file), `$id is not ${BASE}${name}.schema.json`);
    ajv.addSchema(schemas[name]);
  } catch (e) {
    fail(rel(file), `cannot load: ${e.message}`);
  }
}
if (failures) process.exit(1);
const validators = {};
for (const name of schemaFiles) {
  try {
    validators[name] = ajv.getSchema(BASE + `${name}.schema.json`);
    ok(`schemas/${name}.schema.json`, 'compiles (draft 2020-12, strict)');
  } catch (e) {
    fail(`schemas/${name}.schema.json`, `does not compile: ${e.message}`);
  }
}
if (failures) process.exit(1);
const header = ajv.getSchema(BASE + 'trajectory.schema.json#/$defs/header');
const event = ajv.getSchema(BASE + 'trajectory.schema.json#/$defs/event');

// Every entry of every `properties` map needs a description, directly or on the $ref target.
function resolveLocal(root, ref) {
  if (!ref.startsWith('#/')) return null;
  return ref.slice(2).split('/').reduce((o, k) => (o ? o[k] : undefined), root);
}
function lint(root, node, where, out) {
  if (Array.isArray(node)) { node.forEach((n, i) => lint(root, n, `${where}/${i}`, out)); return; }
  if (!node || typeof node !== 'object') return;
  if (node.properties && typeof node.properties === 'object') {
    for (const [k, sub] of Object.entries(node.properties)) {
      const target = sub.$ref ? resolveLocal(root, sub.$ref) : null;
      if (!sub.description && !(target && target.description)) out.push(`${where}/properties/${k}`);
    }
  }
  // `if` subschemas state conditions, not documented properties.
  for (const [k, v] of Object.entries(node))
    if (k !== 'enum' && k !== 'const' && k !== 'if') lint(root, v, `${where}/${k}`, out);
}
for (const name of schemaFiles) {
  const missing = [];
  lint(schemas[name], schemas[name], '#', missing);
  if (missing.length) fail(`schemas/${name}.schema.json`, `properties without a description: ${missing.join(', ')}`);
  else ok(`schemas/${name}.schema.json`, 'every property described');
}

// --- helpers ---------------------------------------------------------------------------------------------------
// The deepest errors say most (oneOf alternatives add shallow noise); show a few of them.
function why(v) {
  const errs = [...v.errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length);
  return ajv.errorsText(errs.slice(0, 3), { separator: '; ' });
}
function listFiles(dir, pred) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, ent.name);
    if (ent.isDirectory()) out.push(...listFiles(p, pred));
    else if (pred(p)) out.push(p);
  }
  return out.sort();
}
function readJson(file) { return JSON.parse(fs.readFileSync(file, 'utf8')); }
function readYaml(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'));
  if (docs.length !== 1) throw new Error(`expected one YAML document, found ${docs.length}`);
  if (docs[0].errors.length) throw new Error(docs[0].errors[0].message);
  return docs[0].toJS();
}
// Returns null when the document is valid, else the reason.
function checkDoc(kind, file) {
  let doc;
  try {
    if (kind === 'trajectory') return checkTrajectory(file);
    doc = kind === 'task' || kind === 'workflow' ? readYaml(file) : readJson(file);
  } catch (e) {
    return `unreadable: ${e.message}`;
  }
  const v = validators[kind];
  return v(doc) ? null : why(v);
}
function checkTrajectory(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!lines.length) return 'empty file';
  let lastT = -Infinity;
  for (let i = 0; i < lines.length; i++) {
    let obj;
    try { obj = JSON.parse(lines[i]); } catch (e) { return `line ${i + 1}: not JSON: ${e.message}`; }
    // Line 1 must be the header, every other line an event; checking each against its own branch gives clearer
    // messages than the oneOf of the whole schema (which must accept the line too).
    const branch = i === 0 ? header : event;
    if (!branch(obj)) return `line ${i + 1}: ${i === 0 ? 'header' : 'event'}: ${why(branch)}`;
    if (!validators.trajectory(obj)) return `line ${i + 1}: ${why(validators.trajectory)}`;
    if (i > 0) {
      if (obj.t < lastT) return `line ${i + 1}: t ${obj.t} goes back in time (previous ${lastT})`;
      lastT = obj.t;
    }
  }
  return null;
}
function expectValid(kind, file, note) {
  const r = checkDoc(kind, file);
  if (r) fail(`${rel(file)} [${kind}]`, r); else ok(`${rel(file)} [${kind}]`, note);
}
const prefixKind = { task: 'task', m2w: 'mind2web-live', trajectory: 'trajectory',
                     'run-result': 'run-result', 'score-output': 'score-output', workflow: 'workflow',
                     trace: 'trace', 'replay-report': 'replay-report', 'run-summary': 'run-summary',
                     'judge-audit': 'judge-audit' };
function kindOf(file) {
  const base = path.basename(file);
  const k = base.includes('--') ? prefixKind[base.split('--')[0]] : undefined;
  return k;
}

// --- positive checks -------------------------------------------------------------------------------------------
const m2wDir = path.join(shared, 'data', 'mind2web-live');
for (const f of ['mind2web-live_test_20241024.json', 'example_130.json'])
  expectValid('mind2web-live', path.join(m2wDir, f));
expectValid('mind2web-live', path.join(shared, 'conformance', 'tasks.json'));

const trajectories = [
  ...listFiles(path.join(shared, 'conformance', 'runs'), (p) => p.endsWith('.jsonl')),
  ...listFiles(path.join(repo, 'tests', 'data', 'runs', 'm2w-test'), (p) => p.endsWith('.jsonl')),
];
if (trajectories.length < 15) fail('trajectories', `expected at least 15 (3 conformance + 12 bundled), found ${trajectories.length}`);
for (const f of trajectories) expectValid('trajectory', f);

const dataDir = path.join(repo, 'tests', 'data');
const special = [path.join(dataDir, 'schema-invalid'), path.join(dataDir, 'schema-valid')];
const yamlFiles = listFiles(dataDir, (p) => /\.ya?ml$/.test(p) && !special.some((d) => p.startsWith(d + path.sep)));
let taskFiles = 0;
for (const f of yamlFiles) {
  let doc;
  try { doc = readYaml(f); } catch (e) { fail(rel(f), `unreadable YAML: ${e.message}`); continue; }
  // Format is detected from content (docs/formats.md section 1): other YAML (configs, site fixtures) is not ours here.
  const isTask = doc && typeof doc === 'object' && !Array.isArray(doc) &&
                 ('tasks' in doc || 'key_nodes' in doc || 'intent' in doc);
  if (!isTask) { ok(rel(f), 'parses; not a task file, so no task schema'); continue; }
  taskFiles++;
  expectValid('task', f);
}
// the test sites' task files: inline steps with recorded fingerprints and postconditions (`after:`)
const siteTasks = listFiles(path.join(repo, 'tests', 'sites'), (p) => path.basename(p) === 'tasks.yaml');
if (siteTasks.length < 5) fail('tests/sites/**/tasks.yaml', `expected at least 5, found ${siteTasks.length}`);
for (const f of siteTasks) expectValid('task', f);
if (!fs.existsSync(path.join(dataDir, 'tasks', 'demo.yaml'))) fail('tests/data/tasks/demo.yaml', 'missing');
if (taskFiles === 0) fail('tests/data/**/*.yaml', 'no task file found');

for (const f of listFiles(special[1], (p) => !p.endsWith('.md'))) {
  const kind = kindOf(f);
  if (!kind) { fail(rel(f), 'name does not start with a known schema prefix and "--"'); continue; }
  expectValid(kind, f);
}

expectValid('score-output', scoreOutput, '`keynode score --json` output');
// reference workflows beside a task file (schemas/workflow.schema.json)
// (and the false-alarm corpus's workflows with postconditions)
for (const dir of [['mind2web-live', 'workflows'], ['async', 'postconditions']]) {
  const wfFiles = listFiles(path.join(repo, 'tests', 'sites', ...dir), (p) => /\.ya?ml$/.test(p));
  if (wfFiles.length === 0) fail(`tests/sites/${dir.join('/')}`, 'no workflow file found');
  for (const f of wfFiles) expectValid('workflow', f);
}

// --- negative checks -------------------------------------------------------------------------------------------
const invalid = listFiles(special[0], (p) => !p.endsWith('.md'));
if (invalid.length < 3) fail('tests/data/schema-invalid', `expected negative examples, found ${invalid.length}`);
for (const f of invalid) {
  const kind = kindOf(f);
  if (!kind) { fail(rel(f), 'name does not start with a known schema prefix and "--"'); continue; }
  const r = checkDoc(kind, f);
  if (r === null) fail(`${rel(f)} [${kind}]`, 'was ACCEPTED but must be rejected');
  else ok(`${rel(f)} [${kind}]`, `rejected as expected: ${r.length > 140 ? r.slice(0, 137) + '...' : r}`);
}

console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
