// record-extra.mjs — the two tasks of tests/sites/tasks.yaml no other agent performs, for record.sh
// (`keynode record` records their reference workflows from this demonstration). MODE:
//   checkout  shop-checkout: goto item 7 · select size M · pick navy · Add to cart · Cart · Proceed to
//             checkout · fill name, email, address, city, zip · select express · Place order
//   gear      forum-gear-category: goto /forum/ · click the "Gear & equipment" tab
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  if (mode === 'gear') {
    say('goto /forum/');
    await page.goto(`${base}/forum/`);
    await think();
    say('click Gear & equipment');
    await page.click('#category-tabs a[data-category="gear"]');
    await page.waitForURL(/category=gear/);
    mark('last');
    return;
  }
  say('goto item 7');
  await page.goto(`${base}/shop/item.html?id=7`);
  await page.waitForLoadState('load');
  await think();
  await page.selectOption('#size', 'M');
  await think();
  await page.click('#colour-navy');
  await think();
  await page.click('#add-to-cart');
  await think();
  say('cart');
  await page.click('#cart-link');
  await page.waitForURL(/cart\.html/);
  await page.waitForLoadState('load');
  await think();
  say('checkout');
  await page.click('#checkout-link');
  await page.waitForURL(/checkout\.html/);
  await page.waitForLoadState('load');
  await think();
  for (const [sel, v] of [['#name', 'Ada Lovelace'], ['#email', 'ada@example.com'], ['#address', '12 Analytical Row'],
                          ['#city', 'London'], ['#zip', 'N1 9GU']]) {
    await page.fill(sel, v);
    await think(150);
  }
  await page.selectOption('#shipping', 'express');
  await think();
  say('place order');
  await page.click('#place-order');
  await page.waitForURL(/confirmation\.html/);
  mark('last');
});
