// forum.mjs — compares two forum posts (task forum-visits of watch-fixtures/tasks.yaml, which is
// forum-compare-replies without its answer node):
//   goto /forum/ · click post 3's title · goBack · click post 5's title
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /forum/');
  await page.goto(`${base}/forum/`);
  await page.locator('#post-3 a.post-title').waitFor();
  await think();
  say('click post 3');
  await page.click('#post-3 a.post-title');
  await page.waitForURL(/post\.html\?id=3$/);
  await page.waitForLoadState('load');
  await think();
  say('goBack');
  await page.goBack({ waitUntil: 'commit' }); // a back/forward cache restore fires no load (see web.mjs)
  await page.locator('#post-5 a.post-title').waitFor();
  await think();
  say('click post 5');
  await page.click('#post-5 a.post-title');
  await page.waitForURL(/post\.html\?id=5$/);
  mark('last');
});
