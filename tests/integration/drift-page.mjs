// drift-page.mjs — the dashboard's drift diff page in headless Chromium (driven by drift.sh): opens
// BASE/#/tasks/REF/drift in the Chromium at CDP (playwright-core) and checks the first differing step, both
// screenshots (loaded), both URLs, the hostile page title and repair YAML as text (no element made of
// them, no script run), the key-node table, the requests of both sides paired, then that the task page and the alerts page link to it, and
// that nothing logged a console error. A screenshot of the page goes to OUT_DIR/drift-diff.png.
//   node drift-page.mjs CDP_HTTP_URL BASE TASK_REF XSS_TITLE XSS_YAML OUT_DIR
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');

const [cdp, base, ref, xssTitle, xssYaml, outDir] = process.argv.slice(2);
let fails = 0;
const check = (name, ok, got) => {
  console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${got}`);
  if (!ok) fails++;
};
const ready = (page, name) => page.waitForSelector(`#view[data-page="${name}"][data-state="ready"]`, { timeout: 30000 });
const browser = await chromium.connectOverCDP(cdp);
try {
  const ctx = browser.contexts()[0] || await browser.newContext();
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 1360, height: 900 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const href = `#/tasks/${encodeURIComponent(ref)}/drift`;
  await page.goto(`${base}/${href}`);
  await ready(page, 'drift');
  check('drift page ready', true);

  const step = await page.locator('#drift-step').textContent();
  check('the first step that differs is named', /step 2 \(click\)/.test(step) && step.includes('URL after the step'), step);
  await page.waitForFunction(() => ['drift-shot-passing', 'drift-shot-failing'].every((id) => {
    const i = document.getElementById(id);
    return i && i.tagName === 'IMG' && i.complete;
  }), null, { timeout: 20000 }).catch(() => {});
  const widths = await page.evaluate(() => ['drift-shot-passing', 'drift-shot-failing'].map((id) => {
    const i = document.getElementById(id);
    return i && i.tagName === 'IMG' ? i.naturalWidth : -1;
  }));
  check('both screenshots load', widths.every((w) => w > 0), JSON.stringify(widths));
  const up = await page.locator('#drift-url-passing').textContent();
  const uf = await page.locator('#drift-url-failing').textContent();
  check('both URLs', up.endsWith('/forum/post.html?id=3') && uf.endsWith('/forum/post.html?post=3'), `${up} | ${uf}`);
  const t = await page.locator('#drift-title-failing').textContent();
  check('the hostile page title renders as text', t === xssTitle, t);
  check('no element made from the title', await page.locator('#drift-title-failing *').count() === 0, 'elements');
  const rec = await page.locator('#drift-recorded').textContent();
  check('the recorded fingerprint is shown', rec.includes('post.html?id=3') && rec.includes('Winter camping stove advice'), rec);
  const changed = await page.locator('#drift-keynodes tr.drift-changed').evaluateAll((l) => l.map((r) => r.dataset.node));
  check('key node post marked changed', changed.length === 1 && changed[0] === 'post', JSON.stringify(changed));
  const repair = page.locator('.drift-repair');
  check('one Proposed repair box', await repair.count() === 1, await repair.count());
  const yaml = await page.locator('.drift-repair pre').textContent();
  check('the repair YAML renders as text', yaml === xssYaml, yaml);
  check('the repair says it was verified', (await repair.textContent()).includes('proposal verified by replay at 2026-11-25T04:00:00Z'), await repair.textContent());
  // the requests: the order held on the passing side, sent on the failing side, marked changed
  const req = await page.locator('#drift-requests tbody tr').evaluateAll((l) => l.map((r) => ({
    change: r.dataset.change, cells: [...r.cells].map((c) => c.textContent) })));
  check('requests: one pair, changed', req.length === 1 && req[0].change === 'changed', JSON.stringify(req));
  if (req.length === 1) {
    const [what, pass, fail, change] = req[0].cells;
    check('requests: the order', what === 'POST /api/orders?n', what);
    check('requests: held by keynode on the passing side, matching order', pass.startsWith('held by keynode') &&
      pass.includes('matched order') && pass.includes('qty=2') && pass.includes('card=[redacted]'), pass);
    check('requests: sent on the failing side, no key node matched', fail.startsWith('sent') &&
      fail.includes('no key node matched') && fail.includes('qty=3'), fail);
    check('requests: what changed', change === 'changed (held, matched, fields: qty)', change);
  }
  check('no injected script ran', await page.evaluate(() => window.__pwned) === undefined, 'pwned');
  await page.locator('#view').screenshot({ path: path.join(outDir, 'drift-diff.png') });
  check(`screenshot written to ${outDir}/drift-diff.png`, true);

  await page.goto(`${base}/#/tasks/${encodeURIComponent(ref)}`);
  await ready(page, 'task');
  const link = await page.locator('#task-drift-link').getAttribute('href');
  check('the task page links the drift diff', link === href, link);
  await page.goto(`${base}/#/alerts`);
  await ready(page, 'alerts');
  const alertLinks = await page.locator('a.drift-link').evaluateAll((l) => l.map((a) => a.getAttribute('href')));
  check('the flaky alert links the drift diff', alertLinks.includes(href), JSON.stringify(alertLinks));
  await page.locator('a.drift-link').first().click();
  await ready(page, 'drift');
  check('following the alert opens the drift page', true);
  check('no console errors', errors.length === 0, errors.join(' | '));
  await page.close();
} catch (e) {
  check('drift page', false, e.stack || e.message);
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails ? 1 : 0);
