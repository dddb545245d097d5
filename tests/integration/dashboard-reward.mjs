// dashboard-reward.mjs — the run page shows a purchase run's reward (dashboard.sh): opens
// BASE/#/runs/RUN in the Chromium at CDP (playwright-core) and expects the "purchase reward" stat
// to read REWARD and the parts list to hold `purchased` = PURCHASED (text, as the API gave them);
// then BASE/#/runs/PLAIN (a run without a purchase) must show neither. Prints ok/FAIL lines; exit 0
// when all passed, 1 otherwise.
//   node dashboard-reward.mjs CDP_HTTP_URL BASE RUN REWARD PURCHASED PLAIN
// The start (connect, open the page, fail on a console error or uncaught exception): dashboard-page.mjs.
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, run, reward, purchased, plain] = process.argv.slice(2);
await drivePage(cdp, 'run page with a reward', async (page, check) => {
  await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
  const stat = page.locator('#run-reward-stat');
  await stat.waitFor({ state: 'visible', timeout: 15000 }).catch(() => {});
  check('run page: the purchase reward is shown', await stat.isVisible(), 'hidden');
  const got = await page.locator('#run-reward').textContent().catch(() => '?');
  check(`run page: reward ${reward}`, got === reward, got);
  const part = await page.locator('#run-reward-parts dd[data-part="purchased"]').textContent().catch(() => '?');
  check(`run page: reward part purchased = ${purchased}`, part === purchased, part);
  const n = await page.locator('#run-reward-parts dt').count();
  check('run page: the reward parts are listed', n >= 4, n);
  await page.goto(`${base}/#/runs/${encodeURIComponent(plain)}`);
  await page.locator('#run-score').waitFor({ timeout: 15000 }).catch(() => {});
  await page.waitForFunction(() => document.getElementById('run-score')?.textContent !== '', null,
    { timeout: 15000 }).catch(() => {});
  check('run page: no reward for a run without a purchase',
    await page.locator('#run-score').isVisible() && !(await page.locator('#run-reward-stat').isVisible()) &&
    !(await page.locator('#run-reward-parts').isVisible()), 'shown');
});
