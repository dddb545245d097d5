// shadow.mjs - a Playwright agent on tests/sites/shadow-coupon: goto /checkout.html, fill
// #coupon and click #apply. Both are inside open shadow roots (<coupon-box>, and <apply-button> nested
// in it); Playwright's CSS finds them by their plain selectors, as an agent written by hand would.
// MODE: fill (one insertText) or keys (pressSequentially, one input event per key).
import { connect, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say('goto /checkout.html');
  await page.goto(`${base}/checkout.html`);
  await page.locator('#coupon').waitFor();
  await think();
  say('type SPRING25 into #coupon');
  if (mode === 'keys') await page.locator('#coupon').pressSequentially('SPRING25');
  else await page.locator('#coupon').fill('SPRING25');
  await think();
  say('click #apply');
  await page.locator('#apply').click();
  await page.waitForURL(/\/applied\.html\?coupon=SPRING25$/);
  await page.locator('#applied', { hasText: 'SPRING25' }).waitFor();
});
