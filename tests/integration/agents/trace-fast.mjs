// trace-fast.mjs — the fast agent of trace.sh: eight steps on the shop as fast as Playwright can do them (no
// think time, no waiting beyond what each action itself waits for): a type and a press 10 ms apart, clicks
// that navigate, and three page changes in a row that do not navigate:
//   goto /shop/ · fill #q · press Enter (navigates) · click "Red Runner" (navigates) · selectOption #size 9
//   · click #colour-white · click #add-to-cart (#added shows) · click #cart-link (navigates)
// Takes CDP_URL BASE_URL MARK_FILE.
import { connect, mark, run, say, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /shop/');
  await page.goto(`${base}/shop/`);
  say('fill #q');
  await page.fill('#q', 'red running shoes');
  say('press Enter');
  await page.press('#q', 'Enter');
  say('click Red Runner');
  await page.getByRole('link', { name: 'Red Runner' }).click();
  say('selectOption #size 9');
  await page.selectOption('#size', '9');
  say('click #colour-white');
  await page.click('#colour-white');
  say('click #add-to-cart');
  await page.click('#add-to-cart');
  say('click #cart-link');
  await page.click('#cart-link');
  await page.waitForURL(/\/shop\/cart\.html$/);
  mark('last');
});
