// liveview.mjs — the dashboard's live view in headless Chromium (driven by liveview.sh): opens
// BASE/#/live with the token, enqueues a replay of live-wall (POST /api/replays), opens it from the list,
// waits for its frames, takes it over, clicks Poke on the frame (the page turns red in later frames) and
// Accept all (the cookie wall goes), hands it back and waits for the replay to end; then without the
// token: BASE refuses to show it, PUBLIC (http.live_view_public) shows it and answers a takeover 401.
// The run page then shows the takeover with the person's clicks as human steps.
// Screenshots of the live view and the takeover go to OUT_DIR.
//   node liveview.mjs CDP_HTTP_URL BASE TOKEN PUBLIC_BASE OUT_DIR
import path from 'node:path';
import { blue, check, chromium, clickFrame, dashboard, fails, ready, red, waitPixel } from './live-page.mjs';

const [cdp, base, token, pub, outDir] = process.argv.slice(2);

const browser = await chromium.connectOverCDP(cdp);
try {
  const { ctx, page, errors } = await dashboard(browser, base, token);
  await page.goto(`${base}/#/live`);
  await ready(page, 'live');
  const res = await page.evaluate(async (t) => (await fetch('/api/replays', { method: 'POST',
    headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' }, body: '{"task": "live-wall"}' })).status, token);
  check('replay enqueued from the page', res === 202, res);
  const row = page.locator('#live-runs tr[data-run] a').first();
  await row.waitFor({ timeout: 90000 });
  const run = await row.textContent();
  check('the running replay is listed under Live', /^replay-live-wall-/.test(run), run);
  await row.click();
  await ready(page, 'live');
  await page.waitForFunction(() => Number(document.getElementById('view').dataset.frames) >= 1, null, { timeout: 60000 });
  check('frames of the worker replay arrive while it runs', true);
  await waitPixel(page, 0.25, 0.25, blue);
  check('the frame shows the cookie wall', true);
  await page.screenshot({ path: path.join(outDir, 'live-view.png') });
  await page.click('#live-take');
  await page.waitForSelector('#view[data-taken="true"]', { timeout: 20000 });
  await page.waitForSelector('#view[data-live-state="held"]', { timeout: 60000 });
  check('Take over: the replay waits before its next step', /the replay waits/.test(await page.locator('#live-state').textContent()), 'state');
  const before = await page.evaluate(() => Number(document.getElementById('view').dataset.frames));
  await clickFrame(page, 0.25, 0.75);
  await waitPixel(page, 0.25, 0.8, red);
  check('a click on the frame pokes the page: it turns red', true);
  const after = await page.evaluate(() => Number(document.getElementById('view').dataset.frames));
  check('new frames came after the click', after > before, `${before} → ${after}`);
  await clickFrame(page, 0.75, 0.25);
  await waitPixel(page, 0.25, 0.25, (c) => !blue(c));
  check('a click on Accept all dismisses the cookie wall', true);
  await page.screenshot({ path: path.join(outDir, 'live-takeover.png') });
  await page.click('#live-release');
  await page.waitForSelector('#view[data-taken="false"]', { timeout: 20000 });
  check('Hand back', true);
  await page.waitForSelector('#view[data-live-state="ended"]', { timeout: 120000 });
  const steps = await page.locator('#live-steps li').count();
  check('the steps ticked beside the frames', steps >= 2, steps);
  // the run page, once the replay is stored, shows the takeover and the person's clicks as human steps
  let shown = 0;
  for (let i = 0; i < 60 && !shown; i++) {
    if (i === 0) await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
    else await page.reload(); // the same URL again would not render the page again
    await page.waitForSelector('#view[data-page="run"][data-state="ready"], #view[data-page="run"][data-state="error"]', { timeout: 30000 });
    shown = await page.locator('#run-takeovers li.human-step').count();
    if (!shown) await page.waitForTimeout(1000);
  }
  check('the run page shows the takeover and its human steps', shown >= 2, shown);
  check('no page errors', errors.length === 0, errors.join(' | '));

  // without the token
  const anon = await browser.newContext();
  const p2 = await anon.newPage();
  await p2.goto(`${base}/#/live/${encodeURIComponent(run)}`);
  await ready(p2, 'live');
  await p2.waitForSelector('#view[data-live="closed"]', { timeout: 20000 });
  check('without the token the live view is refused', true);
  await p2.goto(`${pub}/#/live/${encodeURIComponent(run)}`);
  await ready(p2, 'live');
  await p2.waitForSelector('#view[data-live="open"]', { timeout: 20000 });
  check('http.live_view_public: watching needs no token', true);
  await p2.click('#live-take');
  await p2.waitForSelector('#view[data-error]', { timeout: 20000 });
  const status = await p2.evaluate(() => document.getElementById('view').dataset.error);
  check('a takeover without the token is refused 401', status === '401', status);
  check('still not taken over', await p2.evaluate(() => document.getElementById('view').dataset.taken) === 'false', 'taken');
  await p2.waitForSelector('#view[data-live="closed"]', { timeout: 90000 });
  check('a watching session ends after http.live_view_max_s', true);
  await anon.close();
  await ctx.close();
} catch (e) {
  check('live view', false, e.stack || String(e));
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails() ? 1 : 0);
