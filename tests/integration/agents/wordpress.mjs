// wordpress.mjs — an agent on the real WordPress of tests/realapps (realapps.sh): opens the blog and clicks
// the post "Pitching a tent in the rain" in the list of latest posts (task wordpress-tent-post).
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto the blog');
  await page.goto(`${base}/`);
  await think();
  say('open the tent post');
  await page.getByRole('link', { name: 'Pitching a tent in the rain' }).click();
  await page.waitForURL(/[?&]p=5$/);
  mark('last');
});
