// bench_replay_pw.mjs — the bare-script side of bench_replay.sh: the five steps of the tests/sites task
// shop-red-runner-cart (goto the shop, type "red running shoes" + Enter, click the second result, select
// size 9, click "Add to cart") as a person would write them with Playwright (playwright-core over CDP,
// Debian's Chromium: no browser download), in a fresh browser context at keynode's default viewport.
// One run: connect to the browser, new context, new page, the five steps, context closed, disconnected;
// it checks the cart holds the item (the script must have done the work), then prints
//   {"ms": WALL_MS_OF_THE_RUN}
// (the time from before connectOverCDP to after the disconnect; node's own start-up is not in it).
//   node tests/bench/bench_replay_pw.mjs CDP_HTTP_ENDPOINT SITES_BASE_URL
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const require = createRequire(path.join(REPO, 'tests', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');

const [cdp, base] = process.argv.slice(2);
if (!cdp || !base) {
  console.error('usage: node bench_replay_pw.mjs CDP_HTTP_ENDPOINT SITES_BASE_URL');
  process.exit(2);
}

const t0 = performance.now();
const browser = await chromium.connectOverCDP(cdp);
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await page.goto(`${base}/shop/`);
await page.fill('#q', 'red running shoes');
await page.press('#q', 'Enter');
await page.click('.results li:nth-child(2) a');
await page.selectOption('#size', '9');
await page.click('#add-to-cart');
// the work was done: the cart (localStorage) holds the Red Runner in size 9
const cart = await page.evaluate(() => Object.values(localStorage).join(' '));
const held = /"id":3,"size":"9"/.test(cart);
await context.close();
await browser.close(); // over connectOverCDP: disconnects, the browser stays
const ms = performance.now() - t0;
if (!held) {
  console.error(`the cart does not hold size 9: ${cart.slice(0, 200)}`);
  process.exit(1);
}
console.log(JSON.stringify({ ms: Math.round(ms) }));
