// bench_trace.mjs — the agent of bench_trace.sh: one Playwright agent driving two browsers side by side,
// one watched by `keynode watch --trace on`, the other by `keynode watch --trace off`, timing every action
// as the agent sees it (the time its await takes). Rounds alternate which browser goes first. Per round on
// each browser: selectOption #size, fill #q, click #add-to-cart (no navigation), and every 5th round a goto
// of the item page (a navigation, so screenshots lost to it are retaken after load).
// Prints one JSON object: {on: {select: [ms…], fill: […], click: […], goto: […]}, off: {…}}.
//   node bench_trace.mjs CDP_ON CDP_OFF BASE ROUNDS
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const { chromium } = require('playwright-core');
const [cdpOn, cdpOff, base, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 40);
const sides = {};
for (const [name, cdp] of [['on', cdpOn], ['off', cdpOff]]) {
  const b = await chromium.connectOverCDP(cdp);
  const page = b.contexts()[0].pages()[0];
  await page.goto(`${base}/shop/item.html?id=3`);
  sides[name] = { b, page, t: { select: [], fill: [], click: [], goto: [] } };
}
const timed = async (side, kind, fn) => {
  const t0 = performance.now();
  await fn();
  side.t[kind].push(performance.now() - t0);
};
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? ['off', 'on'] : ['on', 'off'];
  for (const name of order) {
    const s = sides[name], p = s.page;
    await timed(s, 'select', () => p.selectOption('#size', r % 2 ? '10' : '9'));
    await timed(s, 'fill', () => p.fill('#q', `round ${r}`));
    await timed(s, 'click', () => p.click('#add-to-cart'));
    if (r % 5 === 4) await timed(s, 'goto', () => p.goto(`${base}/shop/item.html?id=3`));
  }
}
console.log(JSON.stringify({ on: sides.on.t, off: sides.off.t }));
for (const s of Object.values(sides)) await s.b.close().catch(() => {});
