// guard-sw.mjs — the agent of guard.sh's service-worker runs on tests/sites/guard/sw. MODE:
//   send  (default) open the gift-card page, wait until its service worker controls it (registered on
//         the first visit, started again for the page on later ones), click "Send gift card" and mark
//         what came back: "gift-thanks" (the site's answer, through the worker), "gift-held" (keynode's
//         held answer) or "gift-other"
//   stop  stop every service worker of the browser (ServiceWorker.stopAllWorkers: what Chromium does to
//         a worker idle for 30 s) and wait until none runs; marks "stopped"
//   load  open the gift-card page and wait until its worker controls it (a worker started outside any
//         watch); marks "loaded"
import { connect, mark, run, think, base, mode, say } from './lib.mjs';

const controlled = (page) =>
  page.waitForFunction(() => document.getElementById('worker').textContent === 'controlled', null,
    { timeout: 15000 });

run(async () => {
  const { browser, context, page } = await connect();
  if (mode === 'stop') {
    const s = await context.newCDPSession(page);
    await s.send('ServiceWorker.enable');
    await s.send('ServiceWorker.stopAllWorkers');
    await s.send('ServiceWorker.disable');
    await s.detach();
    const b = await browser.newBrowserCDPSession();
    for (let i = 0; ; i++) {
      const { targetInfos } = await b.send('Target.getTargets');
      if (!targetInfos.some((t) => t.type === 'service_worker')) break;
      if (i > 100) throw new Error('a service worker still runs after 5 s');
      await think(50);
    }
    await b.detach();
    return mark('stopped');
  }
  await page.goto(`${base}/sw/sw.html`);
  await controlled(page);
  if (mode === 'load') return mark('loaded');
  await think();
  await page.click('#send-gift');
  await page.waitForFunction(() => document.getElementById('answer').textContent !== '', null, { timeout: 15000 });
  const answer = await page.textContent('#answer');
  say(answer);
  mark(`gift-${answer.includes('held: gift card') ? 'held' : answer.includes('KN-1001') ? 'thanks' : 'other'}`);
  mark('last');
});
