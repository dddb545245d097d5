// dashboard-pages.mjs — the run page follows the pages of a large run's events (dashboard.sh): opens
// BASE/#/runs/RUN in the Chromium at CDP (playwright-core), expects the first 1000 events and a
// "load more" button, clicks it until it is gone, and expects TOTAL events in the log, in seq order
// (each event's url ends with ?p=SEQ as dashboard.sh posted them). Prints ok/FAIL lines; exit 0 when
// all passed, 1 otherwise.
//   node dashboard-pages.mjs CDP_HTTP_URL BASE RUN TOTAL
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');

const [cdp, base, run, totalS] = process.argv.slice(2);
const total = Number(totalS);
let fails = 0;
const check = (name, ok, got) => {
  console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${got}`);
  if (!ok) fails++;
};
const browser = await chromium.connectOverCDP(cdp);
try {
  const ctx = browser.contexts()[0] || await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
  const items = page.locator('#run-log li');
  const more = page.locator('#run-more');
  await more.waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
  const first = await items.count();
  check('run page: the first page of 1000 events', first === 1000, first);
  check('run page: a "load more" button saying how many are shown',
    await more.isVisible() && /1000 of \d+/.test(await more.textContent()), await more.textContent().catch(() => '?'));
  for (let i = 0; i < 20 && await more.isVisible(); i++) {
    const n = await items.count();
    await more.click();
    await page.waitForFunction((m) => document.querySelectorAll('#run-log li').length > m ||
      document.getElementById('run-more').hidden, n, { timeout: 15000 });
  }
  const all = await items.count();
  check(`run page: all ${total} events after "load more"`, all === total, all);
  check('run page: no "load more" once every page is read', !(await more.isVisible()), 'still visible');
  const seqs = await page.$$eval('#run-log li .ev-what', (l) => l.map((x) => Number(/p=(\d+)/.exec(x.textContent)?.[1])));
  check('run page: events in seq order', seqs.every((s, i) => s === i + 1), seqs.slice(995, 1005).join(','));
  await page.close();
} catch (e) {
  check('run page paging', false, e.message);
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails ? 1 : 0);
