/* worker.js — the dedicated and shared worker of the guard matrix (shapes.mjs): told {url, method, body,
 * kind}, it sends that request itself (fetch, or XHR in a dedicated worker) and answers with the status. */
function handle(msg, reply) {
  var d = msg.data;
  var init = { method: d.method };
  if (d.method !== 'GET') {
    init.body = d.body;
    init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
  }
  if (d.kind === 'xhr') {
    var x = new XMLHttpRequest();
    x.open(d.method, d.url);
    x.onloadend = function () { reply(x.status); };
    x.send(init.body || null);
    return;
  }
  fetch(d.url, init).then(function (r) { reply(r.status); }, function (e) { reply('failed: ' + e); });
}
self.onmessage = function (m) { handle(m, function (s) { self.postMessage(s); }); };
self.onconnect = function (c) {
  var port = c.ports[0];
  port.onmessage = function (m) { handle(m, function (s) { port.postMessage(s); }); };
};
