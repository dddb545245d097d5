// dashboard-reward.mjs — the run page shows a purchase run's reward (dashboard.sh): opens
// BASE/#/runs/RUN in the Chromium at CDP (playwright-core) and expects the "purchase reward" stat
// to read REWARD and the parts list to hold `purchased` = PURCHASED (text, as the API gave them);
// then BASE/#/runs/PLAIN (a run without a purchase) must show neither. Prints ok/FAIL lines; exit 0
// when all passed, 1 otherwise.
//   node dashboard-reward.mjs CDP_HTTP_URL BASE RUN REWARD PURCHASED PLAIN
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');

const [cdp, base, run, reward, purchased, plain] = process.argv.slice(2);
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
  await page.close();
} catch (e) {
  check('run page with a reward', false, e.message);
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails ? 1 : 0);
