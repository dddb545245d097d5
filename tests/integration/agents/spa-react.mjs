// spa-react.mjs — Orchard (tests/sites/spa-react, a React single-page shop; task spa-react-banana),
// driven the way a Playwright agent drives such a site, by test id, role and label:
//   goto /spa-react/ · click "Browse items" (test id) · wheel down the virtualized list · click the
//   "Item 42" link (the router scrolls back to the top ~50 ms later; the page fetches the item's data
//   and shows it under the heading "Item 42") · click "Add to list" (a backdrop
//   shows for 400 ms when the pointer comes: Playwright's first click is stopped and retried) · click
//   the "Open search" button · fill the Fruit autocomplete with "ban" · click the "Banana" option
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /spa-react/');
  await page.goto(`${base}/spa-react/`);
  await think();
  say('click Browse items');
  await page.getByTestId('nav-items').click();
  await page.waitForURL(/\/spa-react\/items$/);
  await think();
  say('wheel down the list');
  await page.mouse.move(400, 300);
  for (let i = 0; i < 4; i++) {
    await page.mouse.wheel(0, 400);
    await think(80);
  }
  await think(600);
  say('click Item 42');
  await page.getByRole('link', { name: 'Item 42', exact: true }).click();
  await page.waitForURL(/\/items\/42$/);
  await page.getByRole('heading', { name: 'Item 42', exact: true }).waitFor();
  // longer than the second after a step at which `keynode record` asks the page what it shows: the
  // step gets its baseline (no error page, no failed data request)
  await think(1500);
  say('click Add to list');
  await page.getByTestId('add-to-list').click();
  await page.getByRole('status').waitFor();
  await think();
  say('click Open search');
  await page.getByLabel('Open search').click();
  await page.waitForURL(/\/search$/);
  await think();
  say('fill Fruit');
  await page.getByLabel('Fruit').fill('ban');
  await think();
  say('click Banana');
  await page.getByRole('option', { name: 'Banana' }).click();
  await page.getByTestId('picked').waitFor();
  mark('last');
});
