// rescore-page.mjs — the dashboard's batch page on another task-set snapshot and the comparison's
// reasons (rescore.sh): opens BASE/#/agent-runs/BATCH in the Chromium at CDP with the API
// token in localStorage, expects the batch's snapshot (1), picks "on snapshot 2" in #batch-scored-on
// and expects the page to show the batch's scores on snapshot 2 with alpha's attempt marked v1→v2 and
// half its key nodes; then the comparison page of BATCH and OTHER lists rs:alpha as left out because
// its key nodes differ.
//   node rescore-page.mjs CDP_HTTP_URL BASE TOKEN BATCH OTHER
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, token, batch, other] = process.argv.slice(2);
await drivePage(cdp, 'rescore pages', async (page, check) => {
  await page.goto(`${base}/`);
  await page.evaluate((t) => localStorage.setItem('keynode.token', t), token);
  await page.goto(`${base}/#/agent-runs/${batch}`);
  await page.waitForSelector('#view[data-page="batch"][data-state="ready"]', { timeout: 30000 });
  const line = page.locator('#batch-snapshot');
  check('batch page: the snapshot it pinned', await line.getAttribute('data-snapshot') === '1',
    await line.textContent());
  await page.selectOption('#batch-scored-on', '2');
  await page.waitForSelector('#batch-snapshot[data-scored-on="2"]', { timeout: 30000 });
  check('batch page: on snapshot 2 the route says so', page.url().endsWith(`#/agent-runs/${batch}/v/2`), page.url());
  const alpha = page.locator('#batch-tasks tr[data-task="alpha"]');
  const mark = await alpha.locator('.rescored').textContent().catch((e) => e.message);
  check('batch page: alpha\'s attempt shown with its rescore', mark.trim() === 'v1→v2', mark);
  const state = await alpha.locator('.attempt').getAttribute('data-state');
  check('batch page: on version 2 alpha is not solved', state === 'failed', state);
  await page.goto(`${base}/#/agent-runs/compare/${batch}/${other}`);
  await page.waitForSelector('#view[data-page="compare"][data-state="ready"]', { timeout: 30000 });
  const why = await page.locator('#compare-changed li').first().textContent().catch((e) => e.message);
  check('compare page: alpha left out and why', why === 'rs:alpha — key nodes differ: batch A ran version 1, batch B version 2', why);
});
