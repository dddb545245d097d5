/* worker.js — the dedicated and shared worker of the guard matrix (shapes.mjs): told {url, method, body,
 * kind}, it sends that request itself (fetch, or XHR in a dedicated worker) and answers with the status;
 * kind ws: it opens a WebSocket to url, sends body once it is open and answers "ack" when the server
 * acknowledges, else "no ack" after 1.5 s. */
function ws(url, body, reply) {
  var s = new WebSocket(url);
  var t = setTimeout(function () { s.close(); reply('no ack'); }, 1500);
  s.onopen = function () { s.send(body); };
  s.onmessage = function () { clearTimeout(t); s.close(); reply('ack'); };
  s.onerror = function () { clearTimeout(t); reply('error'); };
}
function handle(msg, reply) {
  var d = msg.data;
  if (d.kind === 'ws')
    return ws(d.url, d.body, reply);
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
