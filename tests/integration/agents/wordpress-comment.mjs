// wordpress-comment.mjs — an agent on the real WordPress of tests/realapps under guard
// (realapps_guard.sh): signs in as the administrator on wp-login.php (the password is typed,
// never printed), lands on the post "Pitching a tent in the rain" (?p=5), writes a comment and posts
// it. Then it waits for what the browser shows — WordPress's post with the comment, or keynode's
// "Held by keynode" page — and marks which ("comment-posted" or "comment-held").
//   goto wp-login.php · fill user, password · Log In · fill comment · Post Comment
import { connect, mark, run, say, think, base } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  page.setDefaultTimeout(60000); // PHP's one-process server on a loaded machine
  page.setDefaultNavigationTimeout(60000);
  say('goto the sign-in page');
  await page.goto(`${base}/wp-login.php?redirect_to=${encodeURIComponent(`${base}/?p=5`)}`);
  await page.fill('#user_login', 'admin');
  await page.fill('#user_pass', 'admin-password');
  await think();
  say('sign in');
  await page.click('#wp-submit');
  await page.waitForURL(/[?&]p=5$/);
  say('comment');
  await page.fill('#comment', 'Pack a spare groundsheet: the rain finds every gap.');
  await think();
  await Promise.all([page.waitForNavigation(), page.click('#commentform #submit')]);
  mark(`comment-${(await page.$('#keynode-held')) ? 'held' : 'posted'}`);
  mark('last');
});
