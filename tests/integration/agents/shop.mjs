// shop.mjs — buys the Red Runner in US 9 (task shop-red-runner-cart of tests/sites/tasks.yaml):
//   goto /shop/ · fill #q · press Enter (a GET form submit) · click the "Red Runner" result link ·
//   selectOption #size 9 · click "Add to cart" on the <span> inside the button
// MODE
//   full   every step, then done
//   extra  every step, then (after 2 s) one more click (#view-cart): a run watched with
//          --until finished must already have ended before it
//   pause  like extra, with 1.5 s before the "Add to cart" click (for --until steps:N)
//   fail   the first four steps, then waits for a "Buy now" button the page does not have (1.5 s)
//          and fails: exit 1
//   hang   the first four steps, mark "ready", then stays attached (watch.sh kills the browser)
//   leave  goto /shop/, fill #q, then goto /forum/: the typing is flushed when the page goes away
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /shop/');
  await page.goto(`${base}/shop/`);
  await think();
  if (mode === 'leave') {
    say('fill #q, then goto /forum/ without pressing anything');
    await page.fill('#q', 'red running shoes');
    await think();
    await page.goto(`${base}/forum/`);
    mark('last');
    return;
  }
  say('fill #q');
  await page.fill('#q', 'red running shoes');
  await think();
  say('press Enter');
  await page.press('#q', 'Enter');
  await page.waitForURL(/\/shop\/search\.html\?q=/);
  await page.waitForLoadState('load');
  await think();
  say('click Red Runner');
  mark('click4'); // the last event of a failing run (the link's navigation) comes after this...
  await page.getByRole('link', { name: 'Red Runner' }).click();
  await page.waitForURL(/\/shop\/item\.html\?id=3$/);
  await page.waitForLoadState('load');
  mark('step4'); // ...and before this
  if (mode === 'hang') {
    await think(300);
    mark('ready');
    say('ready; staying attached');
    await new Promise(() => {});
  }
  if (mode === 'fail') {
    await think();
    say('click #buy-now (there is none)');
    await page.click('#buy-now', { timeout: 1500 });
    return;
  }
  await think();
  say('selectOption #size 9');
  await page.selectOption('#size', '9');
  mark('step5');
  await think(mode === 'pause' ? 1500 : 250);
  say('click the label span inside #add-to-cart');
  await page.click('#add-to-cart .label');
  await page.locator('#added').waitFor({ state: 'visible' });
  mark('last');
  if (mode === 'extra' || mode === 'pause') {
    await think(2000);
    say('click #view-cart (after the task is finished)');
    await page.click('#view-cart');
    await page.waitForURL(/\/shop\/cart\.html$/);
    mark('extra');
  }
});
