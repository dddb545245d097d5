// bench_websocket.mjs — the agent of bench_websocket.sh: attached over CDP to a browser (watched by keynode
// or not), it opens the bench page, then ROUNDS times (a) sends N WebSocket messages one after the other,
// each waiting for the server's answer (the page times the whole burst with performance.now()), and
// (b) loads the page LOADS times (the navigation's loadEventEnd). Prints one JSON line: {perMessage: [µs per
// message, one per round], sendCall: [µs per send() call], load: [ms, one per load]}.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const [cdpUrl, base, n = '200', rounds = '5', loads = '10'] = process.argv.slice(2);

const browser = await chromium.connectOverCDP(cdpUrl);
const page = browser.contexts()[0].pages()[0];
const out = { perMessage: [], sendCall: [], load: [] };
await page.goto(`${base}/bench.html`);
await page.waitForFunction(() => window.benchReady === true);
for (let r = 0; r < Number(rounds); r++) {
  const t = await page.evaluate((k) => window.benchBurst(k), Number(n));
  out.perMessage.push((t.total * 1000) / Number(n));
  out.sendCall.push((t.send * 1000) / Number(n));
  for (let i = 0; i < Number(loads) / Number(rounds); i++) {
    await page.goto(`${base}/bench.html?${r}-${i}`);
    out.load.push(await page.evaluate(() => {
      const e = performance.getEntriesByType('navigation')[0];
      return e.loadEventEnd > 0 ? e.loadEventEnd - e.startTime : e.domContentLoadedEventEnd - e.startTime;
    }));
    await page.waitForFunction(() => window.benchReady === true);
  }
}
console.log(JSON.stringify(out));
process.exit(0);
