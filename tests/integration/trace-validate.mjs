// trace-validate.mjs — validates trace index files (index.json of `--trace`) against schemas/trace.schema.json
// with ajv in strict mode (driven by tests/integration/trace.sh).
//
//   node trace-validate.mjs REPO INDEX.json…
//
// Prints one line per file; exits 0 when all are valid, 1 otherwise, 2 on usage/environment errors.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [repo, ...files] = process.argv.slice(2);
if (!repo || !files.length) {
  console.error('usage: node trace-validate.mjs REPO INDEX.json…');
  process.exit(2);
}
const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node', 'package.json'));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;
const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(repo, 'schemas', 'trace.schema.json'), 'utf8')));
let bad = 0;
for (const f of files) {
  let doc;
  try { doc = JSON.parse(fs.readFileSync(f, 'utf8')); } catch (e) { console.log(`FAIL ${f}: ${e.message}`); bad++; continue; }
  if (validate(doc)) console.log(`ok   ${f} validates against schemas/trace.schema.json`);
  else { console.log(`FAIL ${f}: ${ajv.errorsText(validate.errors.slice(0, 3))}`); bad++; }
}
process.exit(bad ? 1 : 0);
