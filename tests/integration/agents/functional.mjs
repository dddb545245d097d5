// functional.mjs — agents for functional.sh (WebArena-style end-state checks), one per MODE:
//   forum   goto /forum/ · New post · fill title and body · select Gear · Publish (the post is created)
//   shop    goto /shop/ · type "red running shoes" into the search box · Enter
//   na      goto /forum/ · report "N/A" (appends it to the answer file given as $KN_ANSWER_FILE)
//   wrong   goto /forum/ · report "555-0100"
import fs from 'node:fs';
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  const answer = (text) => {
    say(`answer ${text}`);
    fs.appendFileSync(process.env.KN_ANSWER_FILE, `${text}\n`);
  };
  if (mode === 'forum') {
    await page.goto(`${base}/forum/`);
    await think();
    await page.click('#new-post-link');
    await page.waitForURL(/\/forum\/new\.html$/);
    await page.fill('#title', 'Best water filter for long hikes?');
    await page.fill('#body', 'Five days with few huts: which water filter do you trust?');
    await page.selectOption('#category', 'gear');
    await think();
    await page.click('#submit-post');
    await page.waitForURL(/post\.html\?id=\d+$/);
    await page.waitForLoadState('load');
  } else if (mode === 'shop') {
    await page.goto(`${base}/shop/`);
    await think();
    await page.fill('#q', 'red running shoes');
    await page.press('#q', 'Enter');
    await page.waitForURL(/search\.html\?/);
  } else {
    await page.goto(`${base}/forum/`);
    await think();
    answer(mode === 'na' ? 'N/A' : '555-0100');
  }
  mark('last');
});
