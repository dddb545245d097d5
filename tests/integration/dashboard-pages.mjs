// dashboard-pages.mjs — the run page follows the pages of a large run's events (dashboard.sh): opens
// BASE/#/runs/RUN in the Chromium at CDP (playwright-core), expects the first 1000 events and a
// "load more" button, clicks it until it is gone, and expects TOTAL events in the log, in seq order
// (each event's url ends with ?p=SEQ as dashboard.sh posted them). Prints ok/FAIL lines; exit 0 when
// all passed, 1 otherwise.
//   node dashboard-pages.mjs CDP_HTTP_URL BASE RUN TOTAL
// The start (connect, open the page, fail on a console error or uncaught exception): dashboard-page.mjs.
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, run, totalS] = process.argv.slice(2);
const total = Number(totalS);
await drivePage(cdp, 'run page paging', async (page, check) => {
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
});
