// market.mjs — the agent of purchase.sh on Ridgeline Market (tests/sites/market): MODE is
// "ID:COLOR:SIZE:buy", "ID:COLOR:SIZE:leave" or "ID:COLOR:SIZE:look" — goto the product page, pick
// the colour radio and the size (COLOR or SIZE "-": leave it as the page set it), then click #buy
// (leave: then go back to the index; look: leave without buying).
import { connect, mark, run, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  const [id, color, size, act] = mode.split(':');
  await page.goto(`${base}/market/`);
  await think();
  await page.click(`#product-${id}`);
  await page.waitForURL(/product\.html\?id=\d+$/);
  if (color !== '-') await page.click(`#color-${color}`); // a click even when already checked: a step
  if (size !== '-') await page.selectOption('#size', size);
  await think();
  if (act === 'buy' || act === 'leave') {
    await page.click('#buy');
    await page.waitForSelector('#bought:not([hidden])');
  }
  if (act === 'leave') { // what was bought must have been read at the click, not at the end
    await think();
    await page.click('#home');
    await page.waitForURL(/\/market\/index\.html$/);
  }
  mark('last');
});
