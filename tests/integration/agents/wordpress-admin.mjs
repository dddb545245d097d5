// wordpress-admin.mjs — the blog's administrator making a real change through WordPress's own admin
// screens (wp-admin), for realapps_record.sh: logs in (admin / admin-password, as tests/realapps/wordpress.sh
// installs it) and moves the post "Pitching a tent in the rain" to the trash from Posts → All Posts (the
// row's "Trash" link), then waits for WordPress's notice that it was moved. MODE: trash (the only one).
import { connect, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  if (mode !== 'trash') throw new Error(`unknown mode ${mode}`);
  const { page } = await connect();
  // wp-admin's screens are heavy for PHP's one-process server on a loaded machine: generous bounds,
  // and redirects waited for when they commit, then for what is needed on the page
  page.setDefaultTimeout(120000);
  page.setDefaultNavigationTimeout(120000);
  say('log in to wp-admin');
  await page.goto(`${base}/wp-login.php`);
  await page.fill('#user_login', 'admin');
  await page.fill('#user_pass', 'admin-password');
  await think(100);
  await page.click('#wp-submit');
  await page.waitForURL(/\/wp-admin\//, { waitUntil: 'commit' });
  say('Posts → All Posts');
  await page.goto(`${base}/wp-admin/edit.php`);
  const row = page.locator('#the-list tr', { has: page.locator('a.row-title', { hasText: 'Pitching a tent in the rain' }) });
  await row.waitFor();
  await row.hover();
  say('Trash');
  await row.locator('a.submitdelete').click();
  // the notice, not the URL: wp-admin strips ?trashed=1 from the address bar (history.replaceState)
  await page.locator('#message', { hasText: 'moved to the Trash' }).waitFor();
});
