// bench_guard.mjs — the agent of bench_guard.sh: one Playwright agent driving four headless Chromiums side by
// side (none: no keynode; watch: `keynode watch` without interception; intercept: watched with a request key
// node and a guard rule that matches nothing, so Fetch interception is on and every request is continued;
// held: watched with a guard rule holding the bench's POSTs, answered by keynode). Rounds alternate which
// browser goes first. Per round on each browser:
//   - the page's own timing (performance.now() in the page) of N fetch POSTs and N XHR POSTs, one after the
//     other (each a JSON body to /bench/api, which `keynode sites` answers 303 to a GET of ok.json);
//   - a form POST navigation (/bench/submit, 303 to done.html; held: keynode's "held" page): the next
//     document's navigation timing, responseEnd (from the submit's navigation start to the last byte);
//   - five agent steps: a click on a link to the next page, timed by the agent until that page's load event.
// Prints one JSON object: {MODE: {fetch: [ms…], xhr: […], form: […], step: […]}, …}.
//   node bench_guard.mjs BASE N ROUNDS none=CDP watch=CDP intercept=CDP held=CDP
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const [base, nArg, roundsArg, ...sideArgs] = process.argv.slice(2);
const n = Number(nArg || 50), rounds = Number(roundsArg || 6);
const sides = {};
for (const a of sideArgs) {
  const [name, cdp] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
  const b = await chromium.connectOverCDP(cdp);
  const page = b.contexts()[0].pages()[0];
  await page.goto(`${base}/bench/index.html`);
  sides[name] = { b, page, t: { fetch: [], xhr: [], form: [], step: [] } };
}
const names = Object.keys(sides);
for (let r = 0; r < rounds; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const name of order) {
    const s = sides[name], p = s.page;
    await p.goto(`${base}/bench/index.html`);
    const times = await p.evaluate((k) => window.benchRequests(k), n);
    s.t.fetch.push(...times.fetch);
    s.t.xhr.push(...times.xhr);
    // the form POST: its next document's navigation timing (the held page's too)
    await Promise.all([p.waitForEvent('load'), p.click('#submit')]);
    s.t.form.push(await p.evaluate(() => performance.getEntriesByType('navigation')[0].responseEnd));
    // agent steps: click → the next page loaded (index.html and next.html link to each other)
    await p.goto(`${base}/bench/index.html`);
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      await Promise.all([p.waitForEvent('load'), p.click('#next')]);
      s.t.step.push(performance.now() - t0);
    }
  }
}
const out = {};
for (const name of names) out[name] = sides[name].t;
console.log(JSON.stringify(out));
for (const s of Object.values(sides)) await s.b.close().catch(() => {});
