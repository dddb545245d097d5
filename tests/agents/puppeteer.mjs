// puppeteer.mjs — an agent for `keynode run` written against Puppeteer (puppeteer-core): attaches
// with puppeteer.connect({browserWSEndpoint: KEYNODE_CDP_WS}), takes the tab showing
// KEYNODE_START_URL and solves two tasks of tests/sites/tasks.yaml by script:
//   shop-red-runner-cart  search, open the Red Runner, size 9, add to cart
//   forum-new-post        New post, title and body, category Gear, Publish
// It ends with browser.disconnect() (close() would close keynode's browser). Any other task: exit 4.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const puppeteer = require('puppeteer-core');
const env = process.env;

async function clickAndWait(page, selector) {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

async function shopCart(page) {
  await page.type('#q', 'red running shoes');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  await clickAndWait(page, 'a[href$="item.html?id=3"]');
  await page.select('#size', '9');
  await page.click('#add-to-cart');
  await page.waitForSelector('#added', { visible: true });
}

async function forumPost(page) {
  await clickAndWait(page, '#new-post-link');
  await page.type('#title', 'Best water filter for long hikes?');
  await page.type('#body', 'Five days with few huts. Which water filter do you trust?');
  await page.select('#category', 'gear');
  await clickAndWait(page, '#submit-post');
}

const solvers = { 'shop-red-runner-cart': shopCart, 'forum-new-post': forumPost };
const solve = solvers[env.KEYNODE_TASK_ID];
if (!solve) {
  console.log(`no plan for ${env.KEYNODE_TASK_ID}`);
  process.exit(4);
}
try {
  const browser = await puppeteer.connect({ browserWSEndpoint: env.KEYNODE_CDP_WS, defaultViewport: null });
  const pages = await browser.pages();
  const page = pages.find((p) => p.url() === env.KEYNODE_START_URL) || pages[0];
  console.log(`task ${env.KEYNODE_TASK_ID} on ${page.url()}`);
  await solve(page);
  await browser.disconnect();
  console.log('done');
  process.exit(0);
} catch (e) {
  console.log(`failed: ${String((e && e.message) || e).split('\n')[0]}`);
  process.exit(1);
}
