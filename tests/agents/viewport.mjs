// viewport.mjs — prints the window size of its tab as "viewport WxH" (Puppeteer), for run.sh's --viewport
// check: the tab showing KEYNODE_START_URL must have the size keynode run was asked for.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const puppeteer = require('puppeteer-core');

const browser = await puppeteer.connect({ browserWSEndpoint: process.env.KEYNODE_CDP_WS, defaultViewport: null });
const page = (await browser.pages()).find((p) => p.url() === process.env.KEYNODE_START_URL);
console.log(`viewport ${await page.evaluate(() => `${window.outerWidth}x${window.outerHeight}`)}`);
await browser.disconnect();
