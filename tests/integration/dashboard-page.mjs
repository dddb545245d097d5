// dashboard-page.mjs — the start every Playwright driver of a dashboard page shares (batch-page.mjs,
// trace-dashboard.mjs, dashboard-pages.mjs, dashboard-reward.mjs): connect to the Chromium at CDP
// (playwright-core), open one page, collect its console errors and uncaught exceptions, run the
// driver's checks, then fail when the page logged any error; print ok/FAIL lines and exit 0 when
// every check passed, 1 otherwise.
//   await drivePage(CDP_HTTP_URL, 'label', async (page, check) => { … }, { viewport })
// check(name, ok, got) prints "ok   name" or "FAIL name: got".
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');

export async function drivePage(cdp, label, body, { viewport } = {}) {
  let fails = 0;
  const check = (name, ok, got) => {
    console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${got}`);
    if (!ok) fails++;
  };
  const browser = await chromium.connectOverCDP(cdp);
  try {
    const ctx = browser.contexts()[0] || await browser.newContext();
    const page = await ctx.newPage();
    if (viewport) await page.setViewportSize(viewport);
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await body(page, check);
    check(`${label}: no console error or uncaught exception`, errors.length === 0, errors.join(' | '));
    await page.close();
  } catch (e) {
    check(label, false, e.stack || e.message);
  } finally {
    await browser.close().catch(() => {});
  }
  process.exit(fails ? 1 : 0);
}
