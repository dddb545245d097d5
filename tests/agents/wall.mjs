// wall.mjs — an agent for the live view's takeover test (tests/integration/agentlive.sh):
// with Playwright for Node (connectOverCDP(KEYNODE_CDP_URL)) on the start page (tests/sites/live/
// wall.html) it waits — at most WALL_WAIT_S seconds, default 180 — until the consent wall is gone
// (it never clicks it: a person does, from the dashboard), then clicks Next and exits 0 once
// done.html is loaded; 1 when the wall stayed.
//   [WALL_WAIT_S=S] node tests/agents/wall.mjs
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const env = process.env;

const browser = await chromium.connectOverCDP(env.KEYNODE_CDP_URL);
const pages = browser.contexts().flatMap((c) => c.pages());
const page = pages.find((p) => p.url() === env.KEYNODE_START_URL) || pages[0];
try {
  await page.waitForFunction(() => document.body.classList.contains('accepted'), null,
    { timeout: 1000 * Number(env.WALL_WAIT_S || 180), polling: 250 });
} catch (e) {
  console.log(`the wall stayed: ${String((e && e.message) || e).split('\n')[0]}`);
  process.exit(1);
}
console.log('the wall is gone');
await page.click('#next');
await page.waitForURL(/\/live\/done\.html/, { timeout: 30000 });
console.log(`at ${page.url()}`);
await new Promise((r) => setTimeout(r, 500));
process.exit(0);
