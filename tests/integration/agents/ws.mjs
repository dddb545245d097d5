// ws.mjs — the agent of websocket.sh on tests/sites/wsshop, a shop whose order is one WebSocket
// message. MODE "order": checks the stock (a ping message), then orders two teas with a card; "worker":
// orders through the page's dedicated worker (its own socket), orders on the page's socket, reconnects
// and orders again; "received": checks the stock and waits for the server's answer; "sw": orders through the page's service worker; "frame": orders with
// the send of a fresh about:blank frame. After each message
// it marks what the page's send did: "NAME-sent-B" (B: bufferedAmount right after send) or
// "NAME-threw". Then "last".
import { connect, mark, run, think, base, mode, say } from './lib.mjs';

const status = async (page, want) => {
  await page.waitForFunction((w) => {
    const s = document.getElementById('status').textContent;
    return s.includes(w) || s.includes('threw');
  }, want, { timeout: 15000 });
  const s = await page.textContent('#status');
  say(s);
  return s;
};
const markSend = (name, s) => {
  const m = s.match(/buffered (\d+)/);
  mark(s.includes('threw') ? `${name}-threw` : `${name}-sent-${m ? m[1] : '?'}`);
};
const opened = (page, n) =>
  page.waitForFunction((k) => document.getElementById('opens').textContent === String(k) &&
    document.getElementById('conn').textContent === 'open', n, { timeout: 15000 });

run(async () => {
  const { page } = await connect();
  await page.goto(`${base}/index.html`);
  await opened(page, 1);
  if (mode === 'received') {
    await page.waitForFunction(() => document.getElementById('log').textContent.includes('hello'));
    await think();
    await page.click('#ping');
    markSend('ping', await status(page, 'sent ping'));
    await page.waitForFunction(() => document.getElementById('log').textContent.includes('"ack"'));
    return mark('last');
  }
  await page.selectOption('#item', 'tea');
  await page.fill('#qty', '2');
  await page.fill('#card', '4111 1111 1111 1111');
  await think();
  if (mode === 'frame') {
    await page.click('#frame-order');
    markSend('frame', await status(page, 'frame '));
    await think(500);
    return mark('last');
  }
  if (mode === 'sw') {
    await page.click('#sw-order');
    markSend('sw', await status(page, 'sw '));
    await think(500);
    return mark('last');
  }
  if (mode === 'worker') {
    await page.click('#worker-order');
    markSend('worker', await status(page, 'worker'));
    await think();
    await page.click('#place-order');
    markSend('order1', await status(page, 'attempt 1'));
    await think();
    await page.click('#reconnect');
    await opened(page, 2);
    await think();
    await page.click('#place-order');
    markSend('order2', await status(page, 'attempt 2'));
    await think(500);
    return mark('last');
  }
  await page.click('#ping');
  markSend('ping', await status(page, 'sent ping'));
  await think();
  await page.click('#place-order');
  markSend('order', await status(page, 'place_order'));
  await think(500);
  // the page still works after a held message: the socket is open and answers a ping
  const acks = await page.evaluate(() => document.querySelectorAll('#log li').length);
  await page.click('#ping');
  await page.waitForFunction((n) => document.querySelectorAll('#log li').length > n, acks, { timeout: 15000 });
  mark('still-open');
  mark('last');
});
