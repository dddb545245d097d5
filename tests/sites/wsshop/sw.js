// sw.js — the service worker of tests/sites/wsshop: it sends the order the page passes it over its own
// socket (/live-sw) and answers "sent ACTION". keynode cannot put its hook into a service worker: this
// message is watched on the network only, never held (services/monitor/README.md).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => {
  const ws = new WebSocket(`ws://${self.location.host}/live-sw`);
  e.waitUntil(new Promise((resolve) => {
    ws.onopen = () => {
      ws.send(JSON.stringify(e.data));
      e.source.postMessage(`sent ${e.data.action}`);
      setTimeout(() => { ws.close(); resolve(); }, 200);
    };
    ws.onerror = () => { e.source.postMessage('threw: error'); resolve(); };
  }));
});
