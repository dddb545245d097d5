// guardmatrix.mjs — the agent of guardmatrix.sh: tries every shape of tests/sites/guard-matrix/shapes.mjs
// in turn in the browser's tab (run.html?s=NAME on the shape's origin), the way its row says (click #go,
// press Enter, navigate away, close a tab of its own, go back to a page kept in the back/forward cache),
// waits for the page to settle (its title "done", the server's "arrived" page, keynode's "Held by
// keynode" page or idle.html a link led to; at most 4 s) and marks "row NAME TITLE". Extra tabs a shape opened are closed after it.
// Last it opens end.html#RUN (the task's one key node: the watch ends there).
// MODE: "B_ORIGIN H_ORIGIN RUN" (space-separated; BASE is origin A). Env KN_MATRIX_ONLY=REGEX: only the
// shapes whose name matches.
import { connect, mark, run, think, base, mode, say } from './lib.mjs';
import { SHAPES } from '../../sites/guard-matrix/shapes.mjs';

const [B, H, RUN] = mode.split(' ');
const origins = { A: base, B, H };
const only = process.env.KN_MATRIX_ONLY ? new RegExp(process.env.KN_MATRIX_ONLY) : null;
const runUrl = (s) => `${origins[s.origin]}/guard-matrix/run.html?s=${encodeURIComponent(s.name)}`
  + `&a=${encodeURIComponent(base)}&b=${encodeURIComponent(B)}&h=${encodeURIComponent(H)}`;

// The page's title once it settles (or what it is after ms).
async function settle(page, ms = 4000) {
  const t0 = Date.now();
  let title = '';
  while (Date.now() - t0 < ms) {
    try {
      title = await page.title();
      if (['done', 'arrived', 'Held by keynode', 'idle'].includes(title)) return title;
    } catch { /* navigating */ }
    await think(50);
  }
  return title;
}

// Closes a tab (runBeforeUnload: with its beforeunload handlers, not waited for). A tab asked to
// close as a navigation of its commits can stay open for good — Chromium drops the close (seen under
// load: popup-form's submission committing as the agent closed the popup) — and Playwright's close
// then waits forever: it is asked again over CDP, every second, until the tab is gone.
async function closeTab(cdp, context, p, runBeforeUnload = false) {
  if (runBeforeUnload) return p.close({ runBeforeUnload }).catch(() => {});
  let targetId = null;
  try {
    const s = await context.newCDPSession(p);
    targetId = (await s.send('Target.getTargetInfo')).targetInfo.targetId;
    await s.detach();
  } catch { /* closing already */ }
  const closed = p.close().catch(() => {});
  for (let i = 0; i < 20 && !p.isClosed(); i++) {
    await Promise.race([closed, think(1000)]);
    if (p.isClosed() || !targetId) break;
    say(`a tab still open after ${i + 1} s: asked again to close`);
    await cdp.send('Target.closeTarget', { targetId }).catch(() => {});
  }
}

async function armed(page) {
  await page.waitForFunction(() => window.__armed === true, null, { timeout: 10000 });
}

run(async () => {
  const { browser, context, page } = await connect();
  // the HTTP/2 origin's certificate is self-signed (made by the test)
  const cdp = await browser.newBrowserCDPSession();
  await cdp.send('Security.setIgnoreCertificateErrors', { ignore: true });
  for (const s of SHAPES) {
    if (only && !only.test(s.name)) continue;
    let result;
    if (s.how === 'close' || s.how === 'close-bu') {
      const tab = await context.newPage();
      await tab.goto(runUrl(s));
      await armed(tab);
      await closeTab(cdp, context, tab, s.how === 'close-bu');
      await think(300);
      result = 'closed';
    } else {
      await page.goto(runUrl(s));
      await armed(page);
      if (s.how === 'go') {
        await page.click('#go');
        result = await settle(page);
      } else if (s.how === 'enter') {
        await page.press('#field', 'Enter');
        result = await settle(page);
      } else if (s.how === 'leave') {
        await page.goto(`${base}/guard-matrix/idle.html`);
        result = 'left';
      } else if (s.how === 'back') {
        await page.goto(`${base}/guard-matrix/idle.html`);
        await page.goBack({ waitUntil: 'commit' }); // a page restored from the cache fires no load
        result = await settle(page, 2000);
      }
    }
    for (const p of context.pages()) if (p !== page) await closeTab(cdp, context, p);
    mark(`row ${s.name} ${result || 'none'}`);
    say(`${s.name}: ${result}`);
  }
  await think(1000); // the last shapes' requests are in before the run ends
  await page.goto(`${base}/guard-matrix/end.html#${RUN}`);
  mark('last');
});
