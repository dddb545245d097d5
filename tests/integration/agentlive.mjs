// agentlive.mjs — the dashboard's live view of a worker's agent attempt in headless Chromium (driven by
// agentlive.sh): opens BASE/#/live with the token, waits for RUN (the attempt) in the list,
// opens it, waits for its frames and for the page to say the site blocks the agent (Take over shown),
// takes it over (the agent is paused), clicks Accept all on the frame (the consent wall goes), hands it
// back and waits for the attempt to end. Screenshots of the blocked attempt and of the takeover go to
// OUT_DIR.
//   node agentlive.mjs CDP_HTTP_URL BASE TOKEN RUN OUT_DIR
import fs from 'node:fs';
import path from 'node:path';
import { blue, check, chromium, clickFrame, dashboard, data, fails, ready, waitPixel } from './live-page.mjs';

const [cdp, base, token, run, outDir] = process.argv.slice(2);

// the states (/proc/PID/stat: R, S, T…) of the agent's processes (tests/agents/wall.mjs), this machine's
const agentStates = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
  try {
    if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('tests/agents/wall.mjs')) return [];
    return [fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0]];
  } catch { return []; }
});
async function waitStates(want, ms = 20000) {
  const end = Date.now() + ms;
  let got = agentStates();
  while (Date.now() < end && !(got.length && got.every(want))) {
    await new Promise((r) => setTimeout(r, 200));
    got = agentStates();
  }
  return got;
}

const browser = await chromium.connectOverCDP(cdp);
try {
  const { ctx, page, errors } = await dashboard(browser, base, token);
  await page.goto(`${base}/#/live`);
  await ready(page, 'live');
  const row = page.locator(`#live-runs tr[data-run="${run}"] a`);
  await row.waitFor({ timeout: 120000 });
  check('the running agent attempt is listed under Live', true);
  await row.click();
  await ready(page, 'live');
  await page.waitForFunction(() => Number(document.getElementById('view').dataset.frames) >= 1, null, { timeout: 60000 });
  check("frames of the worker's agent attempt arrive while it runs", true);
  await waitPixel(page, 0.25, 0.75, blue);
  check('the frame shows the consent wall', true);
  await page.waitForSelector('#view[data-blocked="true"][data-takeable="true"]', { timeout: 60000 });
  check('the page says the site blocks the agent: it can be taken over',
    /blocks the agent/.test(await page.locator('#live-state').textContent()) && await page.locator('#live-take').isVisible(), 'state');
  await page.screenshot({ path: path.join(outDir, 'live-attempt-blocked.png') });
  await page.click('#live-take');
  await page.waitForSelector('#view[data-taken="true"]', { timeout: 20000 });
  await page.waitForSelector('#view[data-live-state="held"]', { timeout: 30000 });
  check('Take over: the agent is paused', /the agent is paused/.test(await page.locator('#live-state').textContent()), 'state');
  const paused = await waitStates((st) => st === 'T');
  check('the agent\'s processes are stopped (SIGSTOP) while taken over', paused.length > 0 && paused.every((st) => st === 'T'), paused.join(''));
  await clickFrame(page, 0.75, 0.25);
  await waitPixel(page, 0.25, 0.75, (c) => !blue(c));
  check('a click on Accept all in the frame dismisses the consent wall', true);
  await page.screenshot({ path: path.join(outDir, 'live-attempt-takeover.png') });
  await page.click('#live-release');
  await page.waitForSelector('#view[data-taken="false"]', { timeout: 20000 });
  check('Hand back', true);
  const resumed = await waitStates((st) => st !== 'T');
  check('the agent runs again after the hand back (SIGCONT)', resumed.every((st) => st !== 'T'), resumed.join(''));
  await page.waitForSelector('#view[data-live-state="ended"]', { timeout: 120000 });
  check('the attempt went on and ended', /the attempt ended/.test(await page.locator('#live-state').textContent()), await data(page, 'liveState'));
  // the run page, once the attempt is stored: the person's event badged human, the takeover listed
  let human = 0; let steps = 0;
  for (let i = 0; i < 60 && !(human && steps); i++) {
    if (i === 0) await page.goto(`${base}/#/runs/${encodeURIComponent(run)}`);
    else await page.reload(); // the same URL again would not render the page again
    await page.waitForSelector('#view[data-page="run"][data-state="ready"], #view[data-page="run"][data-state="error"]', { timeout: 30000 });
    human = await page.locator('.badge.human-event').count();
    steps = await page.locator('#run-takeovers li.human-step').count();
    if (!(human && steps)) await page.waitForTimeout(1000);
  }
  check('the run page badges the person\'s events "human" and lists the takeover', human >= 1 && steps >= 1, `${human} ${steps}`);
  check('no page errors', errors.length === 0, errors.join(' | '));
  await ctx.close();
} catch (e) {
  check('agent live view', false, e.stack || String(e));
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails() ? 1 : 0);
