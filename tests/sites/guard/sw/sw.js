/* The service worker of sw.html: a POST to /sw/send never leaves the page; the worker
 * sends the gift card itself, as its own fetch to /api/giftcards, and answers the page with what it
 * got. Everything else passes through. */
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener('fetch', function (e) {
  var url = new URL(e.request.url);
  if (e.request.method !== 'POST' || url.pathname !== '/sw/send')
    return;
  e.respondWith(e.request.text().then(function (body) {
    return fetch('/api/giftcards', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body });
  }).then(function (r) {
    return r.text().then(function (t) { return new Response('worker: ' + r.status + ' ' + t); });
  }, function (err) {
    return new Response('worker: failed: ' + err, { status: 502 });
  }));
});
