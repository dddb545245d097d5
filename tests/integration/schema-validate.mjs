// schema-validate.mjs — validates JSON files against one schema of schemas/ with ajv in strict mode
// (draft 2020-12, formats checked); driven by tests/integration/repair.sh for replay reports.
//
//   node schema-validate.mjs REPO SCHEMA_NAME FILE.json…     (SCHEMA_NAME: replay-report, …)
//
// Prints one line per file; exits 0 when all are valid, 1 otherwise, 2 on usage/environment errors.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [repo, name, ...files] = process.argv.slice(2);
if (!repo || !name || !files.length) {
  console.error('usage: node schema-validate.mjs REPO SCHEMA_NAME FILE.json…');
  process.exit(2);
}
const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node', 'package.json'));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;
const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
const schema = path.join(repo, 'schemas', `${name}.schema.json`);
let validate;
try { validate = ajv.compile(JSON.parse(fs.readFileSync(schema, 'utf8'))); } catch (e) {
  console.log(`FAIL ${schema}: ${e.message}`);
  process.exit(2);
}
let bad = 0;
for (const f of files) {
  let doc;
  try { doc = JSON.parse(fs.readFileSync(f, 'utf8')); } catch (e) { console.log(`FAIL ${f}: ${e.message}`); bad++; continue; }
  if (validate(doc)) console.log(`ok   ${path.basename(f)} validates against schemas/${name}.schema.json`);
  else { console.log(`FAIL ${f}: ${ajv.errorsText(validate.errors.slice(0, 3))}`); bad++; }
}
process.exit(bad ? 1 : 0);
