// shop.js — the page of tests/sites/wsshop: a shop whose every action is a WebSocket message. The order
// is {"action":"place_order",...}; #status says what send did ("sent N buffered B", or "threw: ...");
// #log lists what the server sent back (hello, ack). Reconnect closes the socket and opens a new one;
// the worker order goes through a dedicated worker (worker.js) with its own socket, the service-worker
// order through sw.js.
let ws = null;
let opens = 0;
let attempt = 0;
const $ = (id) => document.getElementById(id);

function open() {
  return new Promise((resolve) => {
    ws = new WebSocket(`ws://${location.host}/live`);
    ws.onopen = () => {
      opens++;
      $('opens').textContent = String(opens);
      $('conn').textContent = 'open';
      resolve();
    };
    ws.onclose = () => { $('conn').textContent = 'closed'; };
    ws.onmessage = (e) => {
      const li = document.createElement('li');
      li.textContent = e.data;
      $('log').appendChild(li);
    };
  });
}

function send(msg) {
  try {
    ws.send(JSON.stringify(msg));
    $('status').textContent = `sent ${msg.action} attempt ${msg.attempt || 0} buffered ${ws.bufferedAmount}`;
  } catch (e) {
    $('status').textContent = `threw: ${e.name}`;
  }
}

$('ping').addEventListener('click', () => send({ action: 'ping' }));
$('place-order').addEventListener('click', () => {
  attempt++;
  send({ action: 'place_order', item: $('item').value, qty: Number($('qty').value),
         card: { number: $('card').value }, attempt });
});
$('reconnect').addEventListener('click', async () => {
  ws.close();
  $('conn').textContent = 'reconnecting';
  await $('sw-order').addEventListener('click', async () => {
  const reg = await navigator.serviceWorker.register('sw.js');
  const sw = reg.active || (await navigator.serviceWorker.ready).active;
  navigator.serviceWorker.onmessage = (e) => { $('status').textContent = `sw ${e.data}`; };
  sw.postMessage({ action: 'place_order', item: $('item').value, qty: Number($('qty').value), from: 'sw' });
});
// a page that borrows the native send of a fresh about:blank frame, made and used in one task (a way a
// page could try to go around a hook of its own window's WebSocket)
$('frame-order').addEventListener('click', () => {
  const f = document.createElement('iframe');
  document.body.appendChild(f);
  try {
    f.contentWindow.WebSocket.prototype.send.call(ws, JSON.stringify({ action: 'place_order', item: $('item').value,
      qty: Number($('qty').value), from: 'frame' }));
    $('status').textContent = `frame sent place_order buffered ${ws.bufferedAmount}`;
  } catch (e) {
    $('status').textContent = `threw: ${e.name}`;
  }
});
open();
});
let worker = null;
$('worker-order').addEventListener('click', () => {
  if (!worker) {
    worker = new Worker('worker.js');
    worker.onmessage = (e) => { $('status').textContent = `worker ${e.data}`; };
  }
  worker.postMessage({ action: 'place_order', item: $('item').value, qty: Number($('qty').value), from: 'worker' });
});
$('sw-order').addEventListener('click', async () => {
  const reg = await navigator.serviceWorker.register('sw.js');
  const sw = reg.active || (await navigator.serviceWorker.ready).active;
  navigator.serviceWorker.onmessage = (e) => { $('status').textContent = `sw ${e.data}`; };
  sw.postMessage({ action: 'place_order', item: $('item').value, qty: Number($('qty').value), from: 'sw' });
});
// a page that borrows the native send of a fresh about:blank frame, made and used in one task (a way a
// page could try to go around a hook of its own window's WebSocket)
$('frame-order').addEventListener('click', () => {
  const f = document.createElement('iframe');
  document.body.appendChild(f);
  try {
    f.contentWindow.WebSocket.prototype.send.call(ws, JSON.stringify({ action: 'place_order', item: $('item').value,
      qty: Number($('qty').value), from: 'frame' }));
    $('status').textContent = `frame sent place_order buffered ${ws.bufferedAmount}`;
  } catch (e) {
    $('status').textContent = `threw: ${e.name}`;
  }
});
open();
