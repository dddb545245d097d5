// dokuwiki-admin.mjs — a wiki editor making real changes through DokuWiki's own editor (for
// realapps_record.sh: the breaking changes a recorded workflow must be judged against). MODE:
//   delete      empty trailhead:tent_care in the editor and save (DokuWiki deletes an emptied page)
//   rename      create trailhead:tent_maintenance with Tent care's text under a new title, then delete
//               trailhead:tent_care (DokuWiki has no rename without a plugin: this is how editors do it)
//   restore     write trailhead:tent_care back and delete trailhead:tent_maintenance
// Each save waits for DokuWiki to show the saved page (or the "does not exist" page after a delete).
import { connect, run, say, think, base, mode } from './lib.mjs';

const TENT = '====== Tent care ======\nDry every tent before it goes back on the shelf. Seam sealer is in the back room.\n';
const MAINT = '====== Tent maintenance ======\nDry every tent before it goes back on the shelf. Seam sealer is in the back room.\n';

run(async () => {
  const { page } = await connect();
  const save = async (id, text) => {
    say(`edit ${id}`);
    await page.goto(`${base}/doku.php?id=${id}&do=edit`);
    const area = page.locator('#wiki__text');
    await area.waitFor({ timeout: 30000 });
    await area.fill(text);
    await think(100);
    say(`save ${id}${text ? '' : ' (empty: delete)'}`);
    await page.click('#edbtn__save');
    await page.waitForURL((u) => !/do=edit/.test(u.search) && u.searchParams.get('do') !== 'save', { timeout: 30000 });
    await page.waitForLoadState('load');
  };
  if (mode === 'delete') {
    await save('trailhead:tent_care', '');
  } else if (mode === 'rename') {
    await save('trailhead:tent_maintenance', MAINT);
    await save('trailhead:tent_care', '');
  } else if (mode === 'restore') {
    await save('trailhead:tent_care', TENT);
    await save('trailhead:tent_maintenance', '');
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
});
