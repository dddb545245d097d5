// worker.js — the dedicated worker of tests/sites/wsshop: it opens its own socket (/live-worker) and
// sends the order the page passes it, then tells the page "sent N buffered B" or "threw: NAME".
let ws = null;
const ready = new Promise((resolve) => {
  ws = new WebSocket(`ws://${self.location.host}/live-worker`);
  ws.onopen = resolve;
});
self.onmessage = async (e) => {
  await ready;
  try {
    ws.send(JSON.stringify(e.data));
    self.postMessage(`sent ${e.data.action} buffered ${ws.bufferedAmount}`);
  } catch (err) {
    self.postMessage(`threw: ${err.name}`);
  }
};
