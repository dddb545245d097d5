// lib.mjs — what the scripted agents of watch.sh share. An agent here is written the way agents in
// the wild are: Playwright (playwright-core, pinned in ../node) attached to an already running browser
// with chromium.connectOverCDP, driving the browser's existing tab with goto / fill / press / click /
// selectOption / check / goBack, and following popups with context.waitForEvent('page').
//
// Every agent takes: CDP_URL BASE_URL MARK_FILE [MODE]
//   CDP_URL    http://127.0.0.1:PORT of the browser keynode watches
//   BASE_URL   http://127.0.0.1:PORT of the site (no trailing slash)
//   MARK_FILE  the agent appends "NAME EPOCH_MS" lines here (watch.sh waits on them and times against them)
// Env KN_AGENT_GO=FILE: after attaching, wait until FILE exists before the first action.
// It prints one line per action on stdout. Exit: 0 done, 1 an action failed (some modes fail on purpose).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'node', 'package.json'));
export const { chromium } = require('playwright-core');

export const [cdpUrl, base, markFile, mode = 'full'] = process.argv.slice(2);
if (!cdpUrl || !base || !markFile) {
  console.error('usage: node AGENT.mjs CDP_URL BASE_URL MARK_FILE [MODE]');
  process.exit(2);
}

/** Appends "name epoch_ms" to the mark file: watch.sh reads these. */
export function mark(name) {
  fs.appendFileSync(markFile, `${name} ${Date.now()}\n`);
}

export function say(text) {
  console.log(`agent: ${text}`);
}

/** A short pause between actions, as a model's think time would make (kept small). */
export const think = (ms = 250) => new Promise((r) => setTimeout(r, ms));

/** Attaches to the running browser and takes its existing tab (the one keynode watch saw first). */
export async function connect() {
  mark('start');
  const browser = await chromium.connectOverCDP(cdpUrl);
  const context = browser.contexts()[0];
  const page = context.pages()[0] || (await context.newPage());
  mark('connected');
  // KN_AGENT_GO=FILE: attached, now wait until FILE exists before acting (watch.sh starts keynode watch
  // in between, so that a slow node start does not count as the agent's idle time)
  const go = process.env.KN_AGENT_GO;
  if (go) {
    for (let i = 0; !fs.existsSync(go); i++) {
      if (i > 1200) throw new Error(`no ${go} after 60 s`);
      await think(50);
    }
  }
  return { browser, context, page };
}

/** Runs an agent body; failures print "agent: failed: …" and exit 1. The browser is never closed:
 *  the agent just goes away, as a crashed or finished agent process does. */
export async function run(body) {
  try {
    await body();
    mark('done');
    say('done');
    process.exit(0);
  } catch (e) {
    mark('failed');
    say(`failed: ${String(e && e.message || e).split('\n')[0]}`);
    process.exit(1);
  }
}
