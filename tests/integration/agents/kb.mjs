// kb.mjs — the Help Centre (history.pushState routing; task kb-refund-search of
// watch-fixtures/tasks.yaml, which is spa-kb-damaged-refund without its answer node):
//   goto /spa/kb.html · fill #kb-search · press Enter (the page intercepts the submit and pushes
//   ?q=…) · click the "Refunds for damaged or faulty items" result (pushes ?view=article&id=12)
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /spa/kb.html');
  await page.goto(`${base}/spa/kb.html`);
  await think();
  say('fill #kb-search');
  await page.fill('#kb-search', 'refund damaged');
  await think();
  say('press Enter');
  await page.press('#kb-search', 'Enter');
  await page.waitForURL(/kb\.html\?q=refund/);
  await think();
  say('click the article link');
  await page.getByRole('link', { name: 'Refunds for damaged or faulty items' }).click();
  await page.waitForURL(/view=article&id=12$/);
  mark('last');
});
