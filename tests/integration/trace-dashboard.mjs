// trace-dashboard.mjs — the dashboard's run trace page in headless Chromium (driven by trace-dashboard.sh):
// opens BASE/#/runs/RUN/trace in the Chromium at CDP (playwright-core) and checks the film strip (one frame
// per step, screenshots loaded), the key-node evidence panel (the node paragraphs as the API gave them), the
// step details of the page whose title is markup (shown as text, no element made of it), the answer with
// markup (text), the download link, and that the page logged no console error and ran no injected script.
// Screenshots of the film strip and of the evidence panel go to OUT_DIR.
//   node trace-dashboard.mjs CDP_HTTP_URL BASE RUN STEPS XSS_TITLE XSS_ANSWER OUT_DIR
// The start (connect, open the page, fail on a console error or uncaught exception): dashboard-page.mjs.
import path from 'node:path';

import { drivePage } from './dashboard-page.mjs';

const [cdp, base, run, steps, xssTitle, xssAnswer, outDir] = process.argv.slice(2);
await drivePage(cdp, 'trace page', async (page, check) => {
  await page.goto(`${base}/#/runs/${encodeURIComponent(run)}/trace`);
  await page.waitForSelector('#view[data-page="trace"][data-state="ready"]', { timeout: 30000 });
  check('trace page ready', true);

  const frames = page.locator('#trace-filmstrip .filmstrip-frame');
  const n = await frames.count();
  check(`film strip: a frame per step (${steps} steps + the start)`, n === Number(steps) + 1, n);
  // every screenshot of the strip loads (naturalWidth > 0)
  await page.waitForFunction(() => [...document.querySelectorAll('#trace-filmstrip img')].every((i) => i.complete),
    null, { timeout: 20000 }).catch(() => {});
  const imgs = await page.$$eval('#trace-filmstrip img', (l) => l.map((i) => i.naturalWidth));
  check('film strip: screenshots load', imgs.length >= 3 && imgs.every((w) => w > 0), JSON.stringify(imgs));

  const ev = await page.locator('#trace-evidence li').allTextContents();
  check('evidence panel: one paragraph per key node', ev.length === 5, ev.length);
  const size = ev.find((t) => t.includes('size not reached'));
  check('evidence panel: why size was not reached', !!size && size.includes('the selector `#size` resolved to nothing'), size);
  check('evidence panel: query reached, with what the matcher saw', ev.some((t) => /query reached at step 3: .*red running shoes/.test(t)), ev.join(' | '));

  // the step on the hostile page: its title is text
  const titles = await frames.evaluateAll((l) => l.map((b) => b.getAttribute('title')));
  const i = titles.indexOf(xssTitle);
  check('film strip: the hostile page has a frame (its title as the tooltip, verbatim)', i >= 0, JSON.stringify(titles));
  if (i >= 0) {
    await frames.nth(i).click();
    const t = await page.locator('#trace-step-title').textContent();
    check('step details: the hostile title renders as text', t === xssTitle, t);
    const kids = await page.locator('#trace-step-title *').count();
    check('step details: no element made from the title', kids === 0, kids);
    const cons = await page.locator('#trace-step-console li').allTextContents();
    check('step details: the console error of that page', cons.some((c) => c.includes('trace fixture: <b>console error</b>')), cons.join(' | '));
    const net = await page.locator('#trace-step-network li').allTextContents();
    check('step details: the 404', net.some((c) => /HTTP 404 .*missing-image\.png/.test(c)), net.join(' | '));
  }
  const ans = await page.locator('#trace-answer').textContent();
  check('answer renders as text', ans === xssAnswer, ans);
  check('answer: no element made from it', await page.locator('#trace-answer *').count() === 0, 'elements');
  const pwned = await page.evaluate(() => window.__pwned);
  check('no injected script ran', pwned === undefined, pwned);
  const href = await page.locator('#trace-download').getAttribute('href');
  check('download link to the archive', href === `/api/runs/${encodeURIComponent(run)}/trace.tar`, href);

  // select a step with an element box for the film-strip picture
  const typeFrame = page.locator('#trace-filmstrip .filmstrip-frame', { hasText: 'type #q' });
  if (await typeFrame.count()) await typeFrame.first().click();
  await page.locator('#trace-filmstrip').locator('xpath=..').screenshot({ path: path.join(outDir, 'trace-filmstrip.png') });
  await page.locator('#trace-evidence').locator('xpath=..').screenshot({ path: path.join(outDir, 'trace-evidence.png') });
  await page.locator('#trace-step').screenshot({ path: path.join(outDir, 'trace-step.png') });
  check(`screenshots written to ${outDir}`, true);
}, { viewport: { width: 1360, height: 900 } });
