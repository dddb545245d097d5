// run-requests.mjs — the dashboard's run page of a guarded run in headless Chromium (driven by
// trace-dashboard.sh): opens BASE/#/runs/RUN and checks the Requests card — the order held by
// keynode (its badge, the key node it matched, the card number shown redacted), the beacon sent (its key
// node) — and the held badge in the event log; no console error. A screenshot of the card goes to OUT_DIR.
//   node run-requests.mjs CDP_HTTP_URL BASE RUN OUT_DIR
import path from 'node:path';

import { drivePage } from './dashboard-page.mjs';

const [cdp, base, run, outDir] = process.argv.slice(2);
await drivePage(cdp, 'run page of a guarded run', async (page, check) => {
  await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
  await page.waitForSelector('#view[data-page="run"][data-state="ready"]', { timeout: 30000 });
  check('run page ready', true);
  const card = page.locator('#run-requests-card');
  check('the Requests card is shown', await card.isVisible(), 'hidden');
  const rows = await page.locator('#run-requests li.req').evaluateAll((l) => l.map((li) => ({
    held: li.dataset.held,
    badge: li.querySelector('.badge').textContent,
    method: li.querySelector('.req-method').textContent,
    url: li.querySelector('.req-url').textContent,
    matched: li.querySelector('.req-matched').textContent,
    fields: li.querySelector('.req-fields') ? li.querySelector('.req-fields').textContent : '',
  })));
  const order = rows.find((r) => r.url.endsWith('/api/orders'));
  const beacon = rows.find((r) => r.url.endsWith('/api/beacon'));
  check('the order: held by keynode', order && order.held === 'true' && order.badge === 'held by keynode' && order.method === 'POST',
    JSON.stringify(order));
  check('the order: the key node it matched', order && order.matched === 'matched order', JSON.stringify(order));
  check('the order: the card number shown redacted', order && order.fields.includes('card.number=[redacted]') &&
    !order.fields.includes('4111'), JSON.stringify(order));
  check('the beacon: sent, matched beacon', beacon && beacon.held === 'false' && beacon.badge === 'sent' &&
    beacon.matched === 'matched beacon', JSON.stringify(beacon));
  const logHeld = await page.locator('#run-log li.ev[data-type="request"] .req-held').count();
  check('the event log marks the held request', logHeld === 1, logHeld);
  await card.screenshot({ path: path.join(outDir, 'run-requests.png') });
  check(`screenshot written to ${outDir}/run-requests.png`, true);
}, { viewport: { width: 1360, height: 900 } });
