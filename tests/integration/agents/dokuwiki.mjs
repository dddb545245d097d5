// dokuwiki.mjs — an agent on the real DokuWiki of tests/realapps (realapps.sh): searches the staff wiki for
// "tent" with the search box and opens the Tent care page from the results (task dokuwiki-tent-care).
//   goto BASE/doku.php?id=start · fill the search box · Enter · click the Tent care result
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto the wiki start page');
  await page.goto(`${base}/doku.php?id=start`);
  await think();
  say('search for tent');
  await page.fill('input[name="q"]', 'tent');
  await page.press('input[name="q"]', 'Enter');
  await page.waitForURL(/do=search/);
  await think();
  say('open Tent care');
  await page.click('a[data-wiki-id="trailhead:tent_care"]');
  await page.waitForURL(/id=trailhead:tent_care/);
  mark('last');
});
