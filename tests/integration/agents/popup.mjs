// popup.mjs — subscribes in the Journal's sign-up window (task popup-newsletter of tests/sites/tasks.yaml):
//   goto /popup/ · click #subscribe-btn (window.open: a popup) · in the popup: fill #sub-email ·
//   selectOption #sub-frequency monthly · check #sub-terms · click #sub-submit (a GET form)
// MODE newtab instead follows a target=_blank link (task deals-reveal of watch-fixtures/tasks.yaml):
//   goto /popup/ · click #open-deals (a new tab) · in the new tab: click #reveal-code
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { context, page } = await connect();
  say('goto /popup/');
  await page.goto(`${base}/popup/`);
  await think();
  if (mode === 'newtab') {
    say('click #open-deals (target=_blank)');
    const [tab] = await Promise.all([context.waitForEvent('page'), page.click('#open-deals')]);
    await tab.waitForLoadState('load');
    await think();
    say('click #reveal-code in the new tab');
    await tab.click('#reveal-code');
    await tab.locator('#deal-code').waitFor({ state: 'visible' });
    mark('last');
    return;
  }
  say('click #subscribe-btn (window.open)');
  const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#subscribe-btn')]);
  await popup.waitForLoadState('load');
  await think();
  say('fill #sub-email in the popup');
  await popup.fill('#sub-email', 'hiker@example.com');
  await think();
  say('selectOption #sub-frequency monthly');
  await popup.selectOption('#sub-frequency', 'monthly');
  await think();
  say('check #sub-terms');
  await popup.check('#sub-terms');
  await think();
  say('click #sub-submit');
  await popup.click('#sub-submit');
  await popup.waitForURL(/\/popup\/thanks\.html\?/);
  mark('last');
});
