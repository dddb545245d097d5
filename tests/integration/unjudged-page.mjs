// unjudged-page.mjs — the dashboard's views of a judge outage (unjudged.sh): the batch page of BATCH
// (two unjudged attempts, one finished, one not) shows the unjudged tile, the attempts by whose they
// are and each unjudged attempt as such; the batch list its unjudged count; the run page of RUN (an
// external run unjudged by an HTTP 402) whose it is and the judge's words. Prints ok/FAIL lines; exit
// 0 when all passed.
//   node unjudged-page.mjs CDP_HTTP_URL BASE TOKEN BATCH RUN
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, token, batch, run] = process.argv.slice(2);
await drivePage(cdp, 'unjudged pages', async (page, check) => {
  await page.goto(`${base}/`);
  await page.evaluate((t) => localStorage.setItem('keynode.token', t), token);

  await page.goto(`${base}/#/agent-runs`);
  await page.waitForSelector('#view[data-page="batches"][data-state="ready"]', { timeout: 30000 });
  const row = await page.locator(`#batches-table tr[data-batch="${batch}"]`).textContent().catch((e) => e.message);
  check('batches page: the unjudged count', /2 unjudged/.test(row), row);

  await page.goto(`${base}/#/agent-runs/${batch}`);
  await page.waitForSelector('#batch-metrics', { timeout: 30000 });
  const tile = await page.locator('#batch-metrics .tile-unjudged .tile-count').textContent().catch((e) => e.message);
  check('batch page: the unjudged tile', tile === '2', tile);
  const faults = await page.locator('#batch-faults').textContent().catch((e) => e.message);
  check('batch page: not a success, by whose it is', /agent 1/.test(faults) && /judge 2/.test(faults) &&
        /site 0/.test(faults) && /infrastructure 0/.test(faults), faults);
  const cells = await page.locator('#batch-tasks .attempt[data-state="unjudged"]').count();
  check('batch page: both unjudged attempts shown as such', cells === 2, cells);

  await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
  await page.waitForSelector('#run-status .badge', { timeout: 30000 });
  const status = await page.locator('#run-status .badge').textContent().catch((e) => e.message);
  check('run page: status unjudged', status === 'unjudged', status);
  const fault = await page.locator('#run-fault').textContent().catch((e) => e.message);
  check('run page: whose it is', fault === 'judge', fault);
  const why = await page.locator('#run-unjudged').textContent().catch((e) => e.message);
  check('run page: the judge and its words', /llm:fake-judge/.test(why) && /answer: .*HTTP 402/.test(why), why);
});
