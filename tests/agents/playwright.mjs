// playwright.mjs — an agent for `keynode run` written against Playwright for Node (playwright-core),
// the way an agent author would: everything comes from the KEYNODE_* environment (README, "Evaluate
// your agent on Mind2Web-Live"). It attaches with connectOverCDP(KEYNODE_CDP_URL), takes the tab that
// already shows KEYNODE_START_URL (in whichever context: with --browser each attempt has its own) and solves two tasks of tests/sites/tasks.yaml by script:
//   shop-red-runner-cart  search, open the Red Runner, size 9, add to cart
//   shop-checkout         navy M fleece, cart, checkout form, express, place order; the order total
//                         is appended to KEYNODE_ANSWER_FILE
// Any other task: exit 4 (the run records what the agent did: nothing). Exit 1 when an action fails.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const env = process.env;

async function shopCart(page) {
  await page.fill('#q', 'red running shoes');
  await page.press('#q', 'Enter');
  await page.waitForURL(/search\.html/);
  await page.getByRole('link', { name: 'Red Runner' }).click();
  await page.waitForURL(/item\.html\?id=3$/);
  await page.selectOption('#size', '9');
  await page.click('#add-to-cart');
  await page.locator('#added').waitFor({ state: 'visible' });
}

async function shopCheckout(page) {
  await page.selectOption('#size', 'M');
  await page.click('#colour-navy');
  await page.click('#add-to-cart');
  await page.click('#cart-link');
  await page.waitForURL(/cart\.html$/);
  await page.click('#checkout-link');
  await page.waitForURL(/checkout\.html/);
  await page.fill('#name', 'Ada Lovelace');
  await page.fill('#email', 'ada@example.com');
  await page.fill('#address', '12 Analytical Row');
  await page.fill('#city', 'London');
  await page.fill('#zip', 'N1 9GU');
  await page.selectOption('#shipping', 'express');
  await page.click('#place-order');
  await page.waitForURL(/confirmation\.html/);
  await page.locator('#confirm-total', { hasText: /\d/ }).waitFor();
  fs.appendFileSync(env.KEYNODE_ANSWER_FILE, `${(await page.textContent('#confirm-total')).trim()}\n`);
}

const solvers = { 'shop-red-runner-cart': shopCart, 'shop-checkout': shopCheckout };
const solve = solvers[env.KEYNODE_TASK_ID];
if (!solve) {
  console.log(`no plan for ${env.KEYNODE_TASK_ID}`);
  process.exit(4);
}
try {
  const browser = await chromium.connectOverCDP(env.KEYNODE_CDP_URL);
  // its own tab: the one showing the start page (with --browser, in a context of its own)
  const pages = browser.contexts().flatMap((c) => c.pages());
  const page = pages.find((p) => p.url() === env.KEYNODE_START_URL) || pages[0];
  console.log(`task ${env.KEYNODE_TASK_ID} on ${page.url()}: ${env.KEYNODE_TASK_INTENT}`);
  await solve(page);
  console.log('done');
  process.exit(0);
} catch (e) {
  console.log(`failed: ${String((e && e.message) || e).split('\n')[0]}`);
  process.exit(1);
}
