// softpage.mjs — performs the Ridgeline Lists task (tests/sites/softpage/tasks.yaml, softpage-item) for
// softpage.sh, which records it with `keynode record`: goto /softpage/ · click "Ridge tent 2P", then stays on
// the item page until it rendered what its data request brought.
import { connect, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /softpage/index.html');
  await page.goto(`${base}/softpage/index.html`);
  await page.locator('#item-7').waitFor();
  await think(1500);
  say('click Ridge tent 2P');
  await page.click('#item-7');
  await page.waitForURL(/item\.html\?id=7$/);
  await page.locator('h1').waitFor();
  await think(1500);
});
