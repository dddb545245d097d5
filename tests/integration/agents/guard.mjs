// guard.mjs — the agent of guard.sh on tests/sites/guard: it orders two blue lamps with a
// card (a JSON fetch and a sendBeacon), books a table for four with an account password (a classic
// form POST answered 303), and posts a five-star review with a 10-byte photo (multipart). MODE
// "full" does all three; "checkout" only the order. After each submission it waits for what the page
// shows — the site's answer, or keynode's "Held by keynode" page — and marks which ("NAME-thanks" or
// "NAME-held"). MODE "full:PORT" then pays in a cross-origin frame (frame.html, the frame served on
// PORT). Secrets are typed, never printed.
import { connect, mark, run, think, base, mode, say } from './lib.mjs';

const shown = async (page, name) => {
  const el = await page.waitForSelector('#thanks, #keynode-held', { timeout: 15000 });
  const held = (await el.getAttribute('id')) === 'keynode-held';
  mark(`${name}-${held ? 'held' : 'thanks'}`);
};

run(async () => {
  const { page } = await connect();
  await page.goto(`${base}/checkout.html`);
  await page.selectOption('#color', 'blue');
  await page.fill('#qty', '2');
  await page.fill('#cc-number', '4111 1111 1111 1111');
  await page.fill('#cvc', '7391');
  await think();
  await page.click('#place-order');
  await page.waitForFunction(() => document.getElementById('status').textContent !== '');
  const status = await page.textContent('#status');
  mark(`order-${status.includes('held') ? 'held' : status.includes('KN-1001') ? 'thanks' : 'other'}`);
  say(status);
  if (mode.startsWith('checkout')) return mark('last');
  await think();
  await page.goto(`${base}/classic.html`);
  await page.fill('#name', 'Ann Lee');
  await page.fill('#date', '2026-12-24');
  await page.selectOption('#party', '4');
  await page.fill('#password', 'hunter2_SECRET_pw');
  await page.fill('#door', 'door_SECRET_77'); // a password input whose name says nothing of it
  await think();
  await page.click('#book');
  await shown(page, 'classic');
  await think();
  await page.goto(`${base}/upload.html`);
  await page.fill('#title', 'Bright lamp');
  await page.selectOption('#stars', '5');
  await page.setInputFiles('#photo', { name: 'lamp.txt', mimeType: 'text/plain', buffer: Buffer.from('0123456789') });
  await think();
  await page.click('#send');
  await shown(page, 'upload');
  // the payment form in a cross-origin frame (MODE full:PORT — the second server's port)
  const payPort = mode.split(':')[1];
  if (payPort) {
    await think();
    await page.goto(`${base}/frame.html?pay=${payPort}`);
    const frame = page.frameLocator('#pay-frame');
    await frame.locator('#amount').fill('25');
    await frame.locator('#card').fill('4111 1111 1111 1111');
    await think();
    await frame.locator('#pay').click();
    const el = await frame.locator('#thanks, #keynode-held').first().elementHandle({ timeout: 15000 });
    mark(`pay-${(await el.getAttribute('id')) === 'keynode-held' ? 'held' : 'thanks'}`);
  }
  mark('last');
});
