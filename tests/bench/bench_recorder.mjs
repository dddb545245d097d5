// bench_recorder.mjs — the recorder's own cost per recorded action on a very large page: a
// 100,000-element DOM, the recorder installed the monitor's way (isolated world, binding), ten element key
// nodes (ids, paths, a piercing selector, an XPath). Clicks are dispatched from the page's main world in
// batches; the recorder's capture listener runs synchronously inside dispatchEvent, so the batch time with
// the recorder minus the same batch on an identical page without it is the recorder's cost (selector,
// text, hints, key-node matching, serialisation, the binding call). Three targets: a leaf link in a deep
// row, an input (a type step: per input event), and the worst case, a click on the container of all
// 100,000 elements (its visible text).
//
//   node tests/bench/bench_recorder.mjs [RESULT_FILE]     (needs tests/integration/node installed)
// Prints one line per measure; appends them to RESULT_FILE. Never asserts a time.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { recorderSource } from '../integration/recorder-source.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const RECORDER_TEXT = recorderSource(REPO); // services/recorder/recorder.parts, in order
const out = process.argv[2];

const NODES = process.env.NONODES ? [] : [
  { id: 'k1', target: 'element_path', selector: '#row-4999 a', xpath: false, include: false },
  { id: 'k2', target: 'element_path', selector: '#list > div:nth-of-type(7000) > span:nth-of-type(3)', xpath: false, include: false },
  { id: 'k3', target: 'element_path', selector: 'main >> #inner', xpath: false, include: false },
  { id: 'k4', target: 'element_value', selector: 'input[name="q"]', xpath: false, include: false },
  { id: 'k5', target: 'element_path', selector: '//div[@id="row-9000"]//a', xpath: true, include: false },
  { id: 'k6', target: 'element_path', selector: '.row .cell-9 b', xpath: false, include: true },
  { id: 'k7', target: 'element_path', selector: '#nothing-here', xpath: false, include: false },
  { id: 'k8', target: 'element_path', selector: 'li.item:nth-child(2)', xpath: false, include: false },
  { id: 'k9', target: 'element_path', selector: '#list', xpath: false, include: true },
  { id: 'k10', target: 'element_path', selector: 'div[data-n="123"] em', xpath: false, include: false },
];

// 10,000 rows of 10 elements each = 100,000 elements under #list
const BUILD = `(() => {
  const list = document.createElement('div');
  list.id = 'list';
  const parts = [];
  for (let i = 0; i < 10000; i++)
    parts.push('<div class="row" id="row-' + i + '" data-n="' + i + '"><span>Item ' + i + '</span><span><em>e</em></span>' +
      '<span class="cell-9"><b>b</b></span><ul><li class="item">one</li><li class="item">two</li></ul><a href="/p/' + i + '">Open ' + i + '</a></div>');
  list.innerHTML = parts.join('');
  document.body.appendChild(list);
  const f = document.createElement('input'); f.name = 'q'; document.body.appendChild(f);
  document.addEventListener('click', (e) => e.preventDefault()); // the links stay on this page
  return document.getElementsByTagName('*').length;
})()`;

// dispatch n events of kind on the element sel finds; returns ms
const RUN = `(([sel, kind, n]) => {
  const el = document.querySelector(sel);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (kind === 'click') el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    else { el.value = 'x' + i; el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'x' })); }
  }
  return performance.now() - t0;
})`;

async function page(browser, withRecorder) {
  const p = await browser.newPage();
  await p.goto('about:blank');
  const count = await p.evaluate(BUILD);
  let received = 0;
  if (withRecorder) {
    const hex = randomBytes(8).toString('hex');
    const cdp = await p.context().newCDPSession(p);
    cdp.on('Runtime.bindingCalled', () => received++);
    await cdp.send('Runtime.addBinding', { name: `kn_${hex}`, executionContextName: `kn_w_${hex}` });
    await cdp.send('Runtime.enable');
    const at = RECORDER_TEXT.indexOf('__KN_CONFIG__');
    const source = RECORDER_TEXT.slice(0, at) + JSON.stringify({ binding: `kn_${hex}`, nodes: NODES, scroll_debounce_ms: 400 }) +
      RECORDER_TEXT.slice(at + '__KN_CONFIG__'.length);
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source, runImmediately: true, worldName: `kn_w_${hex}` });
  }
  return { p, count, received: () => received };
}

const browser = await chromium.launch({
  executablePath: process.env.KN_CHROMIUM || '/usr/lib/chromium/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const lines = [];
try {
  const base = await page(browser, false);
  const rec = await page(browser, true);
  const measures = [
    ['click on a leaf link (row 4999)', '#row-4999 a', 'click', 200],
    ['input event in a field (type step)', 'input[name="q"]', 'input', 200],
    ['click on the container of 100k elements', '#list', 'click', 5],
  ];
  for (const [name, sel, kind, n] of measures) {
    const best = async (pg) => {
      let b = Infinity;
      for (let r = 0; r < 3; r++) b = Math.min(b, await pg.p.evaluate(`${RUN}(${JSON.stringify([sel, kind, n])})`));
      return b;
    };
    const t0 = await best(base);
    const t1 = await best(rec);
    const per = (t1 - t0) / n;
    const line = `bench_recorder: ${rec.count} elements, ${NODES.length} key nodes: ${name}: ${per.toFixed(3)} ms per action (best of 3 batches of ${n})`;
    console.log(line);
    lines.push(line);
  }
  console.log(`bench_recorder: payloads received: ${rec.received()}`);
} finally {
  await browser.close();
}
if (out) fs.appendFileSync(out, lines.map((l) => `${new Date().toISOString()} ${l}\n`).join(''));
