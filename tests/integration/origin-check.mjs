// origin-check.mjs — origin.sh's browser side (Playwright attached to a private headless Chromium over
// CDP): opens the hostile page (another origin) and then keynode's own dashboard on a run page, and
// prints one JSON object: {"evil": window.result of attack.js after 3 s, "dash": {"title", "hasRun",
// "errors": [console errors and page errors], "ws": what a same-origin WebSocket to /api/stream did}}.
//   node origin-check.mjs CDP_URL EVIL_URL DASH_URL RUN_ID
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');
const [cdp, evilUrl, dashUrl, runId] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await chromium.connectOverCDP(cdp);
const ctx = browser.contexts()[0];
const evil = await ctx.newPage();
await evil.goto(evilUrl);
await sleep(3000);
const evilResult = await evil.evaluate(() => window.result);
await evil.close();

const dash = await ctx.newPage();
const errors = [];
dash.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
dash.on('pageerror', (e) => errors.push(String(e)));
await dash.goto(`${dashUrl}/#/runs/${runId}`);
let hasRun = false;
for (let i = 0; i < 50 && !hasRun; i++) {
  hasRun = (await dash.evaluate(() => document.body.innerText)).includes(runId);
  if (!hasRun) await sleep(100);
}
await sleep(1000); // the run page's own websocket opens meanwhile
const ws = await dash.evaluate(() => new Promise((resolve) => {
  const s = new WebSocket(`ws://${location.host}/api/stream`);
  s.onopen = () => { s.close(); resolve('open'); };
  s.onclose = () => resolve('refused');
  setTimeout(() => resolve('timeout'), 3000);
}));
const title = await dash.title();
await dash.close();
console.log(JSON.stringify({ evil: evilResult, dash: { title, hasRun, errors, ws } }));
await browser.close();
