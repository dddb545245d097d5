// dokuwiki-editor.mjs — an editor on the real DokuWiki of tests/realapps (realapps_record.sh with its ACL on:
// dokuwiki.sh acl, visitors may edit; realapps_guard.sh under guard): opens the Returns page, opens the
// editor from the page tools, adds a line and saves; then marks what the browser shows — the saved page or
// keynode's "Held by keynode" page ("edit-saved" or "edit-held").
//   goto the Returns page · Edit this page · type · Save
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  page.setDefaultTimeout(90000); // generous bounds: PHP's one-process server on a loaded machine
  page.setDefaultNavigationTimeout(90000);
  say('goto the Returns page');
  await page.goto(`${base}/doku.php?id=trailhead:returns`);
  await think();
  say('edit the page');
  await page.click('#dokuwiki__pagetools li.edit a');
  await page.waitForURL(/do=edit/);
  const area = page.locator('#wiki__text');
  await area.waitFor();
  await area.fill('====== Returns ======\nUnused gear within 30 days, with the receipt.\nGift cards are final sale.\n');
  await think();
  say('save');
  await Promise.all([page.waitForNavigation(), page.click('#edbtn__save')]); // the saved page, or the held one
  mark(`edit-${(await page.$('#keynode-held')) ? 'held' : 'saved'}`);
  mark('last');
});
