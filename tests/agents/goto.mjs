// goto.mjs — an agent for `keynode run` that only navigates: with Playwright for Node
// (connectOverCDP(KEYNODE_CDP_URL)) its tab on KEYNODE_START_URL goes to each URL given, in turn; a
// navigation that fails (refused, DNS, TLS…) is printed and the agent goes on, as an agent that
// retries elsewhere would. Then it waits GOTO_WAIT_S seconds (default 1) and exits 0. Used by
// tests/integration/run.sh ("unreachable": a site that does not answer, on the task's own site or on
// another).
//   [GOTO_WAIT_S=S] node tests/agents/goto.mjs URL…
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
for (const url of process.argv.slice(2)) {
  try {
    await page.goto(url);
    console.log(`loaded ${url}`);
  } catch (e) {
    console.log(`failed ${url}: ${String((e && e.message) || e).split('\n')[0]}`);
  }
}
await new Promise((r) => setTimeout(r, 1000 * Number(env.GOTO_WAIT_S || 1)));
process.exit(0);
