// bench_replay_pw.mjs — the bare-script side of bench_replay.sh and bench_falsealarm.sh: a task done as a
// person writes it with Playwright (playwright-core over CDP, Debian's Chromium: no browser download), in a
// fresh browser context at keynode's default viewport (1280x800), each step followed by a wait for the
// outcome keynode's replay checks — the URL the step leads to, or the element it produces — so the two
// sides do the same work.
//   (no TASK)  the tests/sites task shop-red-runner-cart: goto the shop, type "red running shoes" + Enter
//              (→ search.html?q=…), click the second result (→ item.html?id=3), select size 9, click "Add to
//              cart" (→ the "Added to your cart" notice); then checks the cart (localStorage) holds the item
//   TASK       a task of the false-alarm corpus (tests/sites/async), steps and waits from
//              tests/integration/agents/async-tasks.mjs; BASE is the corpus root
// One run: connect, new context, new page, the steps, context closed, disconnected; prints
//   {"ms": WALL_MS_OF_THE_RUN}
// (from before connectOverCDP to after the disconnect; node's own start-up is not in it). Exit 1 when a step
// or its outcome failed (30 s per wait at most).
//   node tests/bench/bench_replay_pw.mjs CDP_HTTP_ENDPOINT SITES_BASE_URL [TASK]
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const { tasks } = await import(pathToFileURL(path.join(REPO, 'tests', 'integration', 'agents', 'async-tasks.mjs')).href);

const [cdp, base, task] = process.argv.slice(2);
if (!cdp || !base || (task && !tasks[task])) {
  console.error('usage: node bench_replay_pw.mjs CDP_HTTP_ENDPOINT SITES_BASE_URL [TASK of tests/sites/async]');
  process.exit(2);
}

async function shopRedRunnerCart(page) {
  await page.goto(`${base}/shop/`);
  await page.fill('#q', 'red running shoes');
  await page.press('#q', 'Enter');
  await page.waitForURL(/\/shop\/search\.html\?q=/);
  await page.click('.results li:nth-child(2) a');
  await page.waitForURL(/\/shop\/item\.html\?id=3$/);
  await page.selectOption('#size', '9');
  await page.click('#add-to-cart');
  await page.locator('#added').waitFor({ state: 'visible' });
  // the work was done: the cart (localStorage) holds the Red Runner in size 9
  const cart = await page.evaluate(() => Object.values(localStorage).join(' '));
  if (!/"id":3,"size":"9"/.test(cart)) throw new Error(`the cart does not hold size 9: ${cart.slice(0, 200)}`);
}

const t0 = performance.now();
const browser = await chromium.connectOverCDP(cdp);
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
context.setDefaultTimeout(30000);
const page = await context.newPage();
let failed = null;
try {
  if (task) await tasks[task](page, base, async () => {});
  else await shopRedRunnerCart(page);
} catch (e) {
  failed = String((e && e.message) || e).split('\n')[0];
}
await context.close();
await browser.close(); // over connectOverCDP: disconnects, the browser stays
const ms = performance.now() - t0;
if (failed) {
  console.error(`${task || 'shop-red-runner-cart'}: ${failed}`);
  process.exit(1);
}
console.log(JSON.stringify({ ms: Math.round(ms) }));
