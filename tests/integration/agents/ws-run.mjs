// ws-run.mjs — the agent websocket.sh gives `keynode run`: it takes the attempt's page from the KEYNODE_*
// environment (KEYNODE_CDP_URL, KEYNODE_START_URL), checks the stock (a ping message on the page's
// WebSocket) and waits for the server's answer ("ack"), then exits.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'node', 'package.json'));
const { chromium } = require('playwright-core');

const browser = await chromium.connectOverCDP(process.env.KEYNODE_CDP_URL);
const pages = browser.contexts().flatMap((c) => c.pages());
const page = pages.find((p) => p.url().startsWith(process.env.KEYNODE_START_URL)) || pages[0];
await page.waitForFunction(() => document.getElementById('conn').textContent === 'open', null, { timeout: 15000 });
await page.click('#ping');
await page.waitForFunction(() => document.getElementById('log').textContent.includes('"ack"'), null, { timeout: 15000 });
await new Promise((r) => setTimeout(r, 300));
process.exit(0);
