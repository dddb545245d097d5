// batch-page.mjs — the dashboard's agent batch view (agentjobs.sh): opens BASE/#/agent-runs/BATCH in the
// Chromium at CDP (playwright-core), with the API token in localStorage as the dashboard keeps it, waits
// for the page to be ready — reached from the list of batches (#/agent-runs: the batch's row with its
// progress and success rate, its link followed) — and expects the progress "DONE of JOBS", one row per task with its success
// rate and one cell per attempt showing "success". Prints ok/FAIL lines; exit 0 when all passed.
//   node batch-page.mjs CDP_HTTP_URL BASE TOKEN BATCH JOBS TASKS
// The start (connect, open the page, fail on a console error or uncaught exception): dashboard-page.mjs.
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, token, batch, jobsS, tasksS] = process.argv.slice(2);
await drivePage(cdp, 'batch page', async (page, check) => {
  await page.goto(`${base}/`);
  await page.evaluate((t) => localStorage.setItem('keynode.token', t), token);
  // the list of batches (#/agent-runs): the batch's row, its progress and rate; its link opens the batch
  await page.goto(`${base}/#/agent-runs`);
  await page.waitForSelector('#view[data-page="batches"][data-state="ready"]', { timeout: 30000 });
  const row = page.locator(`#batches-table tr[data-batch="${batch}"]`);
  check('batches page: the batch is listed', await row.count() === 1, await row.count());
  const first = await page.locator('#batches-table tbody tr').first().getAttribute('data-batch');
  check('batches page: newest first', Number(first) >= Number(batch), first);
  const done = await row.locator('.batch-done').textContent().catch((e) => e.message);
  check('batches page: the progress', done === `${jobsS}/${jobsS}`, done);
  const brate = await row.locator('.batch-rate').textContent().catch((e) => e.message);
  check('batches page: the success rate', brate === '100 %', brate);
  await row.locator('a.batch-link').click();
  await page.waitForSelector('#view[data-page="batch"][data-state="ready"]', { timeout: 30000 });
  check('batches page: the link opens the batch view', page.url().endsWith(`#/agent-runs/${batch}`), page.url());
  const progress = await page.textContent('#batch-progress');
  check('batch page: the progress', progress.includes(`${jobsS} of ${jobsS} attempts done`), progress);
  const rows = await page.locator('#batch-tasks tbody tr').count();
  check('batch page: one row per task', rows === Number(tasksS), rows);
  const rates = await page.locator('#batch-tasks tbody tr td:nth-child(2)').allTextContents();
  check('batch page: every task at 100 %', rates.length > 0 && rates.every((r) => r === '100 %'), rates.join(','));
  const cells = await page.locator('#batch-tasks .attempt[data-state="success"]').count();
  check('batch page: every attempt a success', cells === Number(jobsS), cells);
  const rate = await page.textContent('#batch-metrics');
  check('batch page: the metrics', rate.includes('100 %'), rate);
});
