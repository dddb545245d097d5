// batch-page.mjs — the dashboard's agent batch view (agentjobs.sh): opens BASE/#/agent-runs/BATCH in the
// Chromium at CDP (playwright-core), with the API token in localStorage as the dashboard keeps it, waits
// for the page to be ready — reached from the list of batches (#/agent-runs: the batch's row with its
// progress and success rate, its link followed) — and expects the progress "DONE of JOBS", one row per task with its success
// rate, its site (127.0.0.1, the tests/sites tasks' start URL host) and one cell per attempt showing
// "success"; the uncertainty (task success 100 % in [100 %, 100 %], pass@2 and pass^2 100 %); the site
// filter. With OTHER (a batch of agent "other" that failed tasks:shop-checkout once), the comparison
// page #/agent-runs/compare/OTHER/BATCH reached through the batches page's form: B won shop-checkout,
// shop-red-runner-cart only in B, no significant difference on one task. With M2W_TASK (a task without a
// start URL whose first URL key node names M2W_SITE), the overview shows and filters that site.
// Prints ok/FAIL lines; exit 0 when all passed.
//   node batch-page.mjs CDP_HTTP_URL BASE TOKEN BATCH JOBS TASKS [OTHER M2W_TASK M2W_SITE]
// The start (connect, open the page, fail on a console error or uncaught exception): dashboard-page.mjs.
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, token, batch, jobsS, tasksS, other, m2wTask, m2wSite] = process.argv.slice(2);
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
  const rates = await page.locator('#batch-tasks tbody tr td:nth-child(3)').allTextContents();
  check('batch page: every task at 100 %', rates.length > 0 && rates.every((r) => r === '100 %'), rates.join(','));
  const cells = await page.locator('#batch-tasks .attempt[data-state="success"]').count();
  check('batch page: every attempt a success', cells === Number(jobsS), cells);
  const rate = await page.textContent('#batch-metrics');
  check('batch page: the metrics', rate.includes('100 %'), rate);
  // the site column and filter: the rule of summary.json's per_site (kn_task_site)
  const sites = await page.locator('#batch-tasks tbody tr td.task-site').allTextContents();
  check('batch page: every task\'s site', sites.length === Number(tasksS) && sites.every((x) => x === '127.0.0.1'), sites.join(','));
  const opts = await page.locator('#batch-filter-site option').allTextContents();
  check('batch page: the site filter', opts.join(',') === 'all sites,127.0.0.1', opts.join(','));
  await page.selectOption('#batch-filter-site', '127.0.0.1');
  const shown = await page.textContent('#batch-task-count');
  check('batch page: the site filter keeps the site\'s tasks', shown === `${tasksS} of ${tasksS} tasks`, shown);
  // the uncertainty: keynode run's numbers for the batch
  const tsr = page.locator('#batch-rates tr[data-rate="task_success_rate"]');
  const tsrText = `${await tsr.locator('.rate-value').textContent().catch((e) => e.message)} ${await tsr.locator('.rate-ci').textContent().catch((e) => e.message)}`;
  check('batch page: task success with its 95 % interval', tsrText === '100 % [100 %, 100 %]', tsrText);
  const k2 = page.locator('#batch-pass-k tr[data-k="2"]');
  const k2Text = `${await k2.locator('.pass-at-k').textContent().catch((e) => e.message)} ${await k2.locator('.pass-all-k').textContent().catch((e) => e.message)}`;
  check('batch page: pass@2 and pass^2', k2Text === '100 % 100 %', k2Text);
  if (other) {
    await page.goto(`${base}/#/agent-runs`);
    await page.waitForSelector('#view[data-page="batches"][data-state="ready"]', { timeout: 30000 });
    await page.fill('#compare-a', other);
    await page.fill('#compare-b', batch);
    await page.click('#compare-go');
    await page.waitForSelector('#view[data-page="compare"][data-state="ready"]', { timeout: 30000 });
    const v = page.locator('#compare-verdict');
    const vt = `${await v.getAttribute('data-significant')} ${await v.getAttribute('data-won')} ${await v.getAttribute('data-lost')}`;
    check('compare page: B won 1, lost 0, not significant', vt === 'false 1 0', vt);
    const per = await page.locator('#compare-tasks tbody tr').evaluateAll((rs) => rs.map((r) => `${r.dataset.task}:${r.dataset.outcome}`));
    check('compare page: the per-task difference', per.join(' ') === 'tasks:shop-checkout:won', per.join(' '));
    const diff = await page.locator('#compare-rates tr[data-rate="task_success_rate"] .rate-diff').textContent().catch((e) => e.message);
    check('compare page: task success B − A', diff === '+100.0 pp', diff);
    const onlyB = await page.locator('#compare-only-b li').allTextContents();
    check('compare page: the task only B ran', onlyB.join(',') === 'tasks:shop-red-runner-cart', onlyB.join(','));
  }
  if (m2wTask) {
    await page.goto(`${base}/#/`);
    await page.waitForSelector('#view[data-page="overview"][data-state="ready"]', { timeout: 30000 });
    const row = page.locator(`#task-table tbody tr[data-task="${m2wTask}"]`);
    const got = `${await row.getAttribute('data-site').catch((e) => e.message)} ${await row.locator('td:nth-child(3)').textContent().catch((e) => e.message)}`;
    check('overview: a task without a start URL shows its URL key node\'s site', got === `${m2wSite} ${m2wSite}`, got);
    await page.selectOption('#filter-site', m2wSite);
    const ids = await page.locator('#task-table tbody tr[data-task]').evaluateAll((rs) => rs.map((r) => r.dataset.task));
    check('overview: the site filter', ids.includes(m2wTask) && ids.every((i) => i === m2wTask || i.startsWith('m2w-')), ids.join(','));
  }
});
