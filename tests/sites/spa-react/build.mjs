// build.mjs — bundles src/app.jsx with esbuild into OUT/spa-react/ (index.html and app.js), against
// React 19 (the default) or React 18 (--react 18: the npm aliases react-18 and react-dom-18 stand in
// for react and react-dom), and writes the site's API beside it: api/items/N.json for every item of
// src/catalogue.mjs, which the item pages fetch (delete one to take that item off the catalogue: its
// page becomes a soft 404). --drop N takes item N off the catalogue altogether: no data file and no
// row in the list (the rows after it move up one). The packages are tests/integration/node's
// (ensure.sh installs them).
//   node tests/sites/spa-react/build.mjs OUT [--react 18|19] [--drop N]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { COUNT, item } from './src/catalogue.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NODE = path.join(HERE, '..', '..', 'integration', 'node');
const require = createRequire(path.join(NODE, 'package.json'));
const esbuild = require('esbuild');

const out = process.argv[2];
let v = '19';
const dropped = [];
let bad = !out;
for (let a = 3; a < process.argv.length; a += 2) {
  const [opt, val] = [process.argv[a], process.argv[a + 1]];
  if (opt === '--react') v = val;
  else if (opt === '--drop' && /^[0-9]+$/.test(val ?? '')) dropped.push(Number(val));
  else bad = true;
}
if (bad || (v !== '18' && v !== '19')) {
  console.error('usage: build.mjs OUT [--react 18|19] [--drop N]');
  process.exit(2);
}
const mods = path.join(NODE, 'node_modules');
const alias = v === '18' ? { react: path.join(mods, 'react-18'), 'react-dom': path.join(mods, 'react-dom-18') } : {};
const dir = path.join(out, 'spa-react');
fs.mkdirSync(dir, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(HERE, 'src', 'app.jsx')],
  outfile: path.join(dir, 'app.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  jsx: 'transform',
  alias,
  nodePaths: [mods],
  define: { 'process.env.NODE_ENV': '"production"', KN_DROPPED: JSON.stringify(dropped) },
  logLevel: 'error',
});
fs.copyFileSync(path.join(HERE, 'index.html'), path.join(dir, 'index.html'));
const api = path.join(dir, 'api', 'items');
fs.mkdirSync(api, { recursive: true });
for (let i = 0; i < COUNT; i++)
  if (!dropped.includes(i)) fs.writeFileSync(path.join(api, `${i}.json`), JSON.stringify(item(i)));
