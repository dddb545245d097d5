// forge.mjs — the agent of the forgery scenario (task forge-real of watch-fixtures/tasks.yaml): goto
// forge.html, wait while the page forges events and navigates itself (#status.done), then fill
// #real-name and click #real: the only things in that trajectory that may be trusted. Prints what globals
// the page could find ("found: [...]"); keynode's binding and flush function must not be among them.
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /forge.html');
  await page.goto(`${base}/forge.html`);
  await page.waitForURL(/round=2/);
  await page.locator('#status.done').waitFor();
  say(`found: ${await page.textContent('#found')}`);
  await think(700); // past the recorder's scroll debounce: the page's last scroll burst is out
  say('fill #real-name');
  await page.fill('#real-name', 'Ada Lovelace');
  await think();
  say('click #real');
  await page.click('#real');
  mark('last');
  await think(500);
});
