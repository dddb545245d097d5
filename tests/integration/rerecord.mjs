// rerecord.mjs — a workflow re-recorded through the dashboard in headless Chromium (driven by
// rerecord.sh). Without the token the task page hides "Record a new workflow" and the API refuses it
// (401). With it: the button opens #/recordings/<id>; once the recording's tab shows tests/sites/rerecord
// (a field at the top left, a green Search button at the bottom right) and it is taken over, a click on
// the field, "hello" typed through the text box, a click on Search — on the frame, so through the
// takeover input path — then Finish; the page then says the workflow was stored and the task page lists
// the recording and the changelog row. Screenshots go to OUT_DIR.
//   node rerecord.mjs CDP_HTTP_URL BASE TOKEN TASK OUT_DIR
import path from 'node:path';
import { check, chromium, clickFrame, dashboard, fails, green, ready, waitPixel } from './live-page.mjs';

const [cdp, base, token, task, outDir] = process.argv.slice(2);

const browser = await chromium.connectOverCDP(cdp);
try {
  // without the token
  const anon = await browser.newContext();
  const p0 = await anon.newPage();
  await p0.goto(`${base}/#/tasks/${encodeURIComponent(task)}`);
  await ready(p0, 'task');
  check('without the token the task page hides "Record a new workflow"', await p0.locator('#record-new').isHidden(), 'visible');
  const refused = await p0.evaluate(async (t) => (await fetch(`/api/tasks/${encodeURIComponent(t)}/recordings`, { method: 'POST' })).status, task);
  check('without the token the page cannot start a recording (401)', refused === 401, refused);
  await anon.close();

  const { ctx, page, errors } = await dashboard(browser, base, token);
  await page.goto(`${base}/#/tasks/${encodeURIComponent(task)}`);
  await ready(page, 'task');
  await page.click('#record-new');
  await ready(page, 'recording');
  check('"Record a new workflow" opens the recording', /#\/recordings\/\d+$/.test(page.url()), page.url());
  await page.waitForSelector('#view[data-recording="recording"]', { timeout: 120000 });
  await page.waitForFunction(() => Number(document.getElementById('rec-live')?.dataset.frames) >= 1, null, { timeout: 90000 });
  await waitPixel(page, 0.6, 0.65, green, 90000);
  check('the recording tab shows the task\'s start page', true);
  await page.waitForSelector('#rec-live[data-taken="true"]', { timeout: 30000 });
  check('it is taken over from the start', true);
  await clickFrame(page, 0.25, 0.25);
  await page.waitForTimeout(500);
  await page.fill('#live-text', 'hello');
  await page.press('#live-text', 'Enter');
  await page.waitForTimeout(1000);
  await page.screenshot({ path: path.join(outDir, 'rerecord-typing.png') });
  await clickFrame(page, 0.75, 0.75);
  await waitPixel(page, 0.6, 0.65, (c) => !green(c), 90000);
  check('the clicks and the typing went into the page (Search left the form)', true);
  await page.click('#rec-finish');
  await page.waitForSelector('#view[data-recording="stored"], #view[data-recording="failed"], #view[data-recording="cancelled"]', { timeout: 240000 });
  const state = await page.locator('#rec-state').textContent();
  check('Finish: validated by a replay and stored as a new workflow version', /^stored/.test(state) && /workflow version 2/.test(state), state);
  await page.screenshot({ path: path.join(outDir, 'rerecord-stored.png') });
  await page.goto(`${base}/#/tasks/${encodeURIComponent(task)}`);
  await ready(page, 'task');
  const row = await page.locator('#task-recordings tr[data-state="stored"]').count();
  check('the task page lists the recording as stored', row === 1, row);
  const log = await page.locator('body').textContent();
  check('the task page\'s changelog shows the recorded workflow', /recorded in the dashboard/.test(log), 'no changelog row');
  check('no page errors', errors.length === 0, errors.join(' | '));
  await ctx.close();
} catch (e) {
  check('re-recording', false, e.stack || String(e));
  // what the browser holds (the recording's tab among them), to say where it stopped
  for (const c of browser.contexts()) for (const p of c.pages()) console.error(`page: ${p.url()}`);
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails() ? 1 : 0);
