// shapes.mjs — the guard matrix's table: every way a page can send a request that
// tests/integration/guardmatrix.sh checks both ways (held under its rule, sent without it). One row is
// one shape:
//   name    unique; the shape sends to /act/NAME (a path no other shape's is a prefix of), so the fixture
//           server's log (guardmatrix-server.mjs) proves whether it arrived
//   method  the method it sends with (the server's log counts only that method: a CORS preflight is
//           not an arrival)
//   how     what the agent (agents/guardmatrix.mjs) does on run.html?s=NAME: go (click #go), enter
//           (press Enter in #field), leave (navigate away), close (close the tab), close-bu (close it
//           running beforeunload), back (navigate away and back: a back/forward-cache restore)
//   origin  where run.html is served: A (default), B (a second port, cross-origin) or H (HTTPS, HTTP/2)
//   body    optional: a body field matcher the rule adds (the rule is otherwise {method, url: regex})
//   setup(env)  run when run.html loads (listeners, elements); send(env) on #go; frame(env) in the
//           iframe / popup run.html?s=NAME&part=frame that send opened. env: url(origin?) the shape's
//           /act/ URL (this page's origin unless given), A/B/H the origins, page(part, origin?) a
//           run.html URL of this shape. send returns a promise; run.html marks the page done when it
//           settles.
// This module is loaded by the browser (run.mjs) and by node (the agent, the task and table writers).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The first of promise p and ms milliseconds: a shape waits for its request's answer, but never long.
const within = (p, ms = 5000) => Promise.race([p, sleep(ms)]);
// An element's load or error (its request answered, held or not).
const loaded = (el) => new Promise((r) => { el.addEventListener('load', r); el.addEventListener('error', r); });

// Body types a fetch/XHR can send, each a function returning {body, headers}.
const BODIES = {
  json: () => ({ body: JSON.stringify({ item: 'lamp', qty: 2 }), headers: { 'Content-Type': 'application/json' } }),
  urlencoded: () => ({ body: 'item=lamp&qty=2', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }),
  formdata: () => {
    const f = new FormData();
    f.append('item', 'lamp');
    f.append('photo', new Blob(['0123456789'], { type: 'text/plain' }), 'lamp.txt');
    return { body: f, headers: {} };
  },
  text: () => ({ body: 'item lamp qty 2', headers: { 'Content-Type': 'text/plain' } }),
  blob: () => ({ body: new Blob([JSON.stringify({ item: 'lamp' })], { type: 'application/json' }), headers: {} }),
  urlsearchparams: () => ({ body: new URLSearchParams({ item: 'lamp', qty: '2' }), headers: {} }),
  arraybuffer: () => ({ body: new TextEncoder().encode('item=lamp').buffer, headers: {} }),
};
// Beacon bodies (sendBeacon takes no headers: a Blob's type is its Content-Type).
const BEACONS = {
  string: () => 'event=checkout',
  'blob-text': () => new Blob(['event=checkout'], { type: 'text/plain' }),
  'blob-json': () => new Blob([JSON.stringify({ event: 'checkout' })], { type: 'application/json' }),
  formdata: () => { const f = new FormData(); f.append('event', 'checkout'); return f; },
  urlsearchparams: () => new URLSearchParams({ event: 'checkout' }),
  arraybuffer: () => new TextEncoder().encode('event=checkout').buffer,
  none: () => undefined,
};

const send = (env, init, origin) => fetch(env.url(origin), init).then((r) => r.text());
const xhr = (env, method, body, headers = {}, sync = false, origin) => new Promise((resolve) => {
  const x = new XMLHttpRequest();
  x.open(method, env.url(origin), !sync);
  for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
  x.onloadend = () => resolve(x.status);
  x.send(body);
  if (sync) resolve(x.status);
});
// A form of method/enctype with fields item=lamp, qty=2 (and a file part for multipart), in document
// doc; returned unsubmitted.
function form(doc, env, { method = 'POST', enctype, target, action, origin } = {}) {
  const f = doc.createElement('form');
  f.method = method;
  f.action = action || env.url(origin);
  if (enctype) f.enctype = enctype;
  if (target) f.target = target;
  f.innerHTML = '<input name="item" value="lamp"><input name="qty" value="2" id="field">'
    + '<button id="submit-btn">Send</button>';
  doc.body.appendChild(f);
  return f;
}
// An iframe (named NAME) of url in this page, resolved once loaded.
const iframe = (url, name) => new Promise((resolve) => {
  const i = document.createElement('iframe');
  if (name) i.name = name;
  i.onload = () => resolve(i);
  i.src = url;
  document.body.appendChild(i);
});
// A worker's script is told where to send and how: {url, method, body, kind}.
const workerMsg = (env, method, kind = 'fetch') => ({ url: env.url(), method, body: 'item=lamp&qty=2', kind });

export const SHAPES = [];
const row = (r) => SHAPES.push({ method: 'POST', how: 'go', origin: 'A', ...r });

// fetch: every method with a body, every body type
for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
  for (const [b, make] of Object.entries(BODIES))
    row({ name: `fetch-${method.toLowerCase()}-${b}`, method, kind: 'fetch', send: (env) => send(env, { method, ...make() }) });
row({ name: 'fetch-get', method: 'GET', kind: 'fetch', send: (env) => send(env, {}) });
row({ name: 'fetch-post-empty', kind: 'fetch', send: (env) => send(env, { method: 'POST' }) });
row({ name: 'fetch-delete-empty', method: 'DELETE', kind: 'fetch', send: (env) => send(env, { method: 'DELETE' }) });
// a ReadableStream upload: Chromium sends one only over HTTP/2 (or QUIC) and only with duplex: 'half'
row({ name: 'fetch-post-stream', origin: 'H', kind: 'fetch', send: (env) => send(env, {
  method: 'POST', duplex: 'half', headers: { 'Content-Type': 'text/plain' },
  body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('item=lamp')); c.close(); } }),
}) });
row({ name: 'fetch-put-stream', method: 'PUT', origin: 'H', kind: 'fetch', send: (env) => send(env, {
  method: 'PUT', duplex: 'half',
  body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('qty=2')); c.close(); } }),
}) });
// keepalive, no-cors, CORS
row({ name: 'fetch-keepalive-json', kind: 'fetch', send: (env) => send(env, { method: 'POST', keepalive: true, ...BODIES.json() }) });
row({ name: 'fetch-keepalive-text', kind: 'fetch', send: (env) => send(env, { method: 'POST', keepalive: true, ...BODIES.text() }) });
row({ name: 'fetch-keepalive-get', method: 'GET', kind: 'fetch', send: (env) => send(env, { keepalive: true }) });
for (const b of ['text', 'urlencoded', 'formdata'])
  row({ name: `fetch-nocors-${b}`, kind: 'fetch cross-origin', send: (env) => fetch(env.url(env.B), { method: 'POST', mode: 'no-cors', ...BODIES[b]() }) });
row({ name: 'fetch-cors-post-json', kind: 'fetch cross-origin', send: (env) => send(env, { method: 'POST', ...BODIES.json() }, env.B) });
row({ name: 'fetch-cors-put-json', method: 'PUT', kind: 'fetch cross-origin', send: (env) => send(env, { method: 'PUT', ...BODIES.json() }, env.B) });
row({ name: 'fetch-cors-delete', method: 'DELETE', kind: 'fetch cross-origin', send: (env) => send(env, { method: 'DELETE' }, env.B) });
// GraphQL and JSON-RPC: the rule names the operation in the body
row({ name: 'graphql-mutation', kind: 'api', body: { query: { include: 'mutation' } }, send: (env) => send(env, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ query: 'mutation Place($qty: Int!) { placeOrder(item: "lamp", qty: $qty) { id } }', variables: { qty: 2 } }),
}) });
row({ name: 'graphql-mutation-get', method: 'GET', kind: 'api', send: (env) => fetch(`${env.url()}?query=${encodeURIComponent('mutation { placeOrder(item: "lamp") { id } }')}`).then((r) => r.text()) });
row({ name: 'jsonrpc-call', kind: 'api', body: { method: { exact: 'transfer' } }, send: (env) => send(env, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'transfer', params: { to: 'ann', amount: 50 } }),
}) });
row({ name: 'jsonrpc-batch', kind: 'api', body: { '1.method': { exact: 'transfer' } }, send: (env) => send(env, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'balance' }, { jsonrpc: '2.0', id: 2, method: 'transfer', params: { amount: 50 } }]),
}) });
// a POST answered 307 / 308: the redirect keeps method and body (/act/NAME-target)
row({ name: 'fetch-post-307', kind: 'redirect', send: (env) => send(env, { method: 'POST', ...BODIES.json() }) });
row({ name: 'fetch-post-308', kind: 'redirect', send: (env) => send(env, { method: 'POST', ...BODIES.urlencoded() }) });
row({ name: 'form-post-307', kind: 'redirect', send: (env) => { form(document, env).submit(); return sleep(2000); } });

// XHR
row({ name: 'xhr-get', method: 'GET', kind: 'xhr', send: (env) => xhr(env, 'GET') });
row({ name: 'xhr-post-json', kind: 'xhr', send: (env) => xhr(env, 'POST', BODIES.json().body, BODIES.json().headers) });
row({ name: 'xhr-post-formdata', kind: 'xhr', send: (env) => xhr(env, 'POST', BODIES.formdata().body) });
row({ name: 'xhr-post-blob', kind: 'xhr', send: (env) => xhr(env, 'POST', BODIES.blob().body) });
row({ name: 'xhr-put-text', method: 'PUT', kind: 'xhr', send: (env) => xhr(env, 'PUT', 'qty=2', { 'Content-Type': 'text/plain' }) });
row({ name: 'xhr-patch-json', method: 'PATCH', kind: 'xhr', send: (env) => xhr(env, 'PATCH', BODIES.json().body, BODIES.json().headers) });
row({ name: 'xhr-delete', method: 'DELETE', kind: 'xhr', send: (env) => xhr(env, 'DELETE') });
row({ name: 'xhr-sync-post', kind: 'xhr', send: (env) => xhr(env, 'POST', 'item=lamp', { 'Content-Type': 'application/x-www-form-urlencoded' }, true) });
row({ name: 'xhr-sync-get', method: 'GET', kind: 'xhr', send: (env) => xhr(env, 'GET', null, {}, true) });
row({ name: 'xhr-cors-post', kind: 'xhr', send: (env) => xhr(env, 'POST', BODIES.json().body, BODIES.json().headers, false, env.B) });

// forms: a navigation; held shows keynode's page, sent the server's
const submitted = () => sleep(3000); // the page navigates away before this settles
row({ name: 'form-get', method: 'GET', kind: 'form', send: (env) => { form(document, env, { method: 'GET' }).submit(); return submitted(); } });
row({ name: 'form-post-urlencoded', kind: 'form', send: (env) => { form(document, env).submit(); return submitted(); } });
row({ name: 'form-post-multipart', kind: 'form', send: (env) => {
  const f = form(document, env, { enctype: 'multipart/form-data' });
  const file = document.createElement('input');
  file.type = 'file';
  file.name = 'photo';
  const dt = new DataTransfer();
  dt.items.add(new File(['0123456789'], 'lamp.txt', { type: 'text/plain' }));
  file.files = dt.files;
  f.appendChild(file);
  f.submit();
  return submitted();
} });
row({ name: 'form-post-textplain', kind: 'form', send: (env) => { form(document, env, { enctype: 'text/plain' }).submit(); return submitted(); } });
row({ name: 'form-formaction', kind: 'form', send: (env) => {
  const f = form(document, env, { action: '/guard-matrix/idle.html' });
  const b = f.querySelector('button');
  b.formAction = env.url();
  b.click();
  return submitted();
} });
row({ name: 'form-formmethod', kind: 'form', send: (env) => {
  const f = form(document, env, { method: 'GET' });
  const b = f.querySelector('button');
  b.formMethod = 'post';
  b.click();
  return submitted();
} });
row({ name: 'form-formenctype', kind: 'form', send: (env) => {
  const f = form(document, env);
  const b = f.querySelector('button');
  b.formEnctype = 'multipart/form-data';
  b.click();
  return submitted();
} });
row({ name: 'form-requestsubmit', kind: 'form', send: (env) => { form(document, env).requestSubmit(); return submitted(); } });
row({ name: 'form-button-click', kind: 'form', send: (env) => { form(document, env).querySelector('button').click(); return submitted(); } });
row({ name: 'form-enter', how: 'enter', kind: 'form', setup: (env) => { form(document, env); } });
row({ name: 'form-target-blank', kind: 'form', send: (env) => { form(document, env, { target: '_blank' }).submit(); return sleep(1500); } });
row({ name: 'form-target-iframe', kind: 'form', send: async (env) => {
  const sink = await iframe('/guard-matrix/idle.html', 'sink');
  const answered = loaded(sink);
  form(document, env, { target: 'sink' }).submit();
  return within(answered);
} });
row({ name: 'form-cross-origin', kind: 'form', send: (env) => { form(document, env, { origin: env.B }).submit(); return submitted(); } });
row({ name: 'form-get-cross-origin', method: 'GET', kind: 'form', send: (env) => { form(document, env, { method: 'GET', origin: env.B }).submit(); return submitted(); } });

// in a same-origin iframe, a cross-origin one (out of process), a popup: run.html?part=frame runs frame(env)
// the frame says "frame-done" when what it sent settled (run.mjs), or navigates (a form: its answer page
// loads in the iframe); the popup (same origin) is read until its title is done, arrived or held
const frameDone = () => new Promise((r) => addEventListener('message', (e) => e.data === 'frame-done' && r()));
const inFrame = (origin) => async (env) => {
  const done = frameDone();
  const i = await iframe(env.page('frame', env[origin]));
  return within(Promise.race([done, loaded(i)]));
};
const inPopup = async (env) => {
  const w = window.open(env.page('frame', env.A), '_blank');
  for (let t = 0; t < 100; t++) {
    try { if (['done', 'arrived', 'Held by keynode'].includes(w.document.title)) break; } catch { break; }
    await sleep(50);
  }
};
const frameForm = (env) => { form(document, env).submit(); };
const frameFetch = (env) => send(env, { method: 'POST', ...BODIES.json() });
row({ name: 'iframe-same-form', kind: 'frame', send: inFrame('A'), frame: frameForm });
row({ name: 'iframe-same-fetch', kind: 'frame', send: inFrame('A'), frame: frameFetch });
row({ name: 'iframe-cross-form', kind: 'frame', send: inFrame('B'), frame: frameForm });
row({ name: 'iframe-cross-form-submit', kind: 'frame', send: inFrame('B'), frame: (env) => { form(document, env).requestSubmit(); } });
row({ name: 'iframe-cross-fetch', kind: 'frame', send: inFrame('B'), frame: frameFetch });
row({ name: 'iframe-cross-xhr', kind: 'frame', send: inFrame('B'), frame: (env) => xhr(env, 'POST', 'item=lamp', { 'Content-Type': 'text/plain' }) });
row({ name: 'iframe-cross-beacon', kind: 'frame', send: inFrame('B'), frame: (env) => navigator.sendBeacon(env.url(), 'event=checkout') });
row({ name: 'iframe-cross-put', method: 'PUT', kind: 'frame', send: inFrame('B'), frame: (env) => send(env, { method: 'PUT', ...BODIES.json() }) });
row({ name: 'popup-form', kind: 'frame', send: inPopup, frame: frameForm });
row({ name: 'popup-fetch', kind: 'frame', send: inPopup, frame: frameFetch });
row({ name: 'popup-beacon', kind: 'frame', send: inPopup, frame: (env) => navigator.sendBeacon(env.url(), 'event=checkout') });

// sendBeacon with every body type, and to another origin
for (const [b, make] of Object.entries(BEACONS))
  row({ name: `beacon-${b}`, kind: 'beacon', send: (env) => { navigator.sendBeacon(env.url(), make()); return sleep(300); } });
row({ name: 'beacon-cross-origin', kind: 'beacon', send: (env) => { navigator.sendBeacon(env.url(env.B), 'event=checkout'); return sleep(300); } });
// <a ping>: the link navigates, the ping is a POST
row({ name: 'a-ping', kind: 'ping', send: (env) => {
  const a = document.createElement('a');
  a.href = '/guard-matrix/idle.html';
  a.ping = env.url();
  a.textContent = 'go';
  document.body.appendChild(a);
  a.click();
  return sleep(1500);
} });

// leaving the page: a navigation away, the tab closed, a back/forward-cache restore
const on = (ev, fn) => (env) => addEventListener(ev, () => fn(env));
const beaconOn = (ev) => on(ev, (env) => navigator.sendBeacon(env.url(), `event=${ev}`));
const keepaliveOn = (ev) => on(ev, (env) => fetch(env.url(), { method: 'POST', keepalive: true, body: `event=${ev}` }));
row({ name: 'leave-pagehide-beacon', how: 'leave', kind: 'unload', setup: beaconOn('pagehide') });
row({ name: 'leave-visibilitychange-beacon', how: 'leave', kind: 'unload', setup: on('visibilitychange', (env) => {
  if (document.visibilityState === 'hidden') navigator.sendBeacon(env.url(), 'event=hidden');
}) });
row({ name: 'leave-beforeunload-beacon', how: 'leave', kind: 'unload', setup: beaconOn('beforeunload') });
row({ name: 'leave-pagehide-keepalive', how: 'leave', kind: 'unload', setup: keepaliveOn('pagehide') });
row({ name: 'leave-beforeunload-keepalive', how: 'leave', kind: 'unload', setup: keepaliveOn('beforeunload') });
row({ name: 'close-pagehide-beacon', how: 'close', kind: 'tab close', setup: beaconOn('pagehide') });
row({ name: 'close-visibilitychange-beacon', how: 'close', kind: 'tab close', setup: on('visibilitychange', (env) => {
  if (document.visibilityState === 'hidden') navigator.sendBeacon(env.url(), 'event=hidden');
}) });
row({ name: 'close-beforeunload-beacon', how: 'close-bu', kind: 'tab close', setup: beaconOn('beforeunload') });
row({ name: 'close-pagehide-keepalive', how: 'close', kind: 'tab close', setup: keepaliveOn('pagehide') });
row({ name: 'close-beforeunload-keepalive', how: 'close-bu', kind: 'tab close', setup: keepaliveOn('beforeunload') });
row({ name: 'bfcache-pageshow-fetch', how: 'back', kind: 'bfcache', setup: (env) => addEventListener('pageshow', (e) => {
  if (e.persisted) fetch(env.url(), { method: 'POST', body: 'restored=1' }).then(() => { document.title = 'done'; });
}) });
row({ name: 'bfcache-pageshow-beacon', how: 'back', kind: 'bfcache', setup: (env) => addEventListener('pageshow', (e) => {
  if (e.persisted) { navigator.sendBeacon(env.url(), 'restored=1'); document.title = 'done'; }
}) });

// workers: a dedicated worker's fetch and XHR, a SharedWorker's fetch, a service worker's fetch
const toWorker = (make) => (env) => new Promise((resolve) => {
  const w = make();
  const port = w.port || w;
  port.onmessage = (e) => resolve(e.data);
  port.postMessage(workerMsg(env, env.row.method, env.row.name.includes('xhr') ? 'xhr' : 'fetch'));
});
row({ name: 'worker-fetch-post', kind: 'worker', send: toWorker(() => new Worker('/guard-matrix/worker.js')) });
row({ name: 'worker-fetch-get', method: 'GET', kind: 'worker', send: toWorker(() => new Worker('/guard-matrix/worker.js')) });
row({ name: 'worker-xhr-post', kind: 'worker', send: toWorker(() => new Worker('/guard-matrix/worker.js')) });
row({ name: 'sharedworker-fetch-post', kind: 'worker', send: toWorker(() => new SharedWorker('/guard-matrix/worker.js')) });
row({ name: 'serviceworker-fetch-post', kind: 'worker', send: async (env) => {
  const reg = await navigator.serviceWorker.register('/guard-matrix/sw.js', { scope: '/guard-matrix/sw-scope/' });
  const w = reg.active || await new Promise((resolve) => {
    const w0 = reg.installing || reg.waiting;
    w0.addEventListener('statechange', () => { if (w0.state === 'activated') resolve(w0); });
  });
  return new Promise((resolve) => {
    navigator.serviceWorker.onmessage = (e) => resolve(e.data);
    w.postMessage(workerMsg(env, 'POST'));
  });
} });

// GETs a rule names: images, an iframe, a script, a style sheet, a CSS background, EventSource, a
// navigation by script
const element = (tag, props) => (env) => {
  const el = Object.assign(document.createElement(tag), props(env));
  const answered = loaded(el);
  document.body.appendChild(el);
  return within(answered);
};
row({ name: 'get-new-image', method: 'GET', kind: 'subresource', send: (env) => {
  const img = new Image();
  const answered = loaded(img);
  img.src = `${env.url()}?confirm=1`;
  return within(answered);
} });
row({ name: 'get-img-element', method: 'GET', kind: 'subresource', send: element('img', (env) => ({ src: `${env.url()}?confirm=1` })) });
row({ name: 'get-img-cross-origin', method: 'GET', kind: 'subresource', send: element('img', (env) => ({ src: `${env.url(env.B)}?confirm=1` })) });
row({ name: 'get-iframe', method: 'GET', kind: 'subresource', send: element('iframe', (env) => ({ src: `${env.url()}?confirm=1` })) });
row({ name: 'get-iframe-cross-origin', method: 'GET', kind: 'subresource', send: element('iframe', (env) => ({ src: `${env.url(env.B)}?confirm=1` })) });
row({ name: 'get-script', method: 'GET', kind: 'subresource', send: element('script', (env) => ({ src: `${env.url()}?confirm=1` })) });
row({ name: 'get-stylesheet', method: 'GET', kind: 'subresource', send: element('link', (env) => ({ rel: 'stylesheet', href: `${env.url()}?confirm=1` })) });
row({ name: 'get-css-background', method: 'GET', kind: 'subresource', send: (env) => {
  const d = document.createElement('div');
  d.style.cssText = `width:10px;height:10px;background-image:url("${env.url()}?confirm=1")`;
  document.body.appendChild(d);
  // answered once the resource timing has its entry (a held answer has one too)
  return within((async () => {
    while (!performance.getEntriesByType('resource').some((e) => e.name.includes('/act/get-css-background'))) await sleep(50);
  })());
} });
row({ name: 'get-eventsource', method: 'GET', kind: 'subresource', send: (env) => {
  const es = new EventSource(`${env.url()}?confirm=1`);
  return within(new Promise((r) => { es.onopen = r; es.onerror = r; })).then(() => es.close());
} });
row({ name: 'get-location-assign', method: 'GET', kind: 'navigation', send: (env) => { location.assign(`${env.url()}?confirm=1`); return submitted(); } });
row({ name: 'get-link-click', method: 'GET', kind: 'navigation', send: (env) => {
  const a = Object.assign(document.createElement('a'), { href: `${env.url()}?confirm=1`, textContent: 'confirm' });
  document.body.appendChild(a);
  a.click();
  return submitted();
} });

// WebSocket messages (kind 'websocket', method 'WS': the fixture server logs each message it receives on
// a socket to /act/NAME as method WS; the rule is a websocket rule, guardmatrix-tables.mjs). Each sends
// one order on a socket to the shape's /act/ URL and waits for the server's "ack" (a held message gets
// none: it waits 1.5 s), then closes the socket. From the page, another origin's socket, a socket opened
// again after the first was closed, a dedicated worker and a shared worker (worker.js: kind ws).
const wsUrl = (env, origin) => env.url(origin).replace(/^http/, 'ws');
const ORDER = JSON.stringify({ action: 'place_order', item: 'lamp', qty: 2 });
const wsOrder = (url) => new Promise((resolve) => {
  const s = new WebSocket(url);
  const end = (what) => { clearTimeout(t); s.close(); resolve(what); };
  const t = setTimeout(() => end('no ack'), 1500);
  s.onopen = () => s.send(ORDER);
  s.onmessage = () => end('ack');
  s.onerror = () => end('error');
});
row({ name: 'ws-page', method: 'WS', kind: 'websocket', send: (env) => wsOrder(wsUrl(env)) });
row({ name: 'ws-cross-origin', method: 'WS', kind: 'websocket', send: (env) => wsOrder(wsUrl(env, env.B)) });
row({ name: 'ws-reconnect', method: 'WS', kind: 'websocket', send: (env) => new Promise((resolve) => {
  const first = new WebSocket(wsUrl(env));
  first.onopen = () => first.close();
  first.onclose = () => resolve(wsOrder(wsUrl(env)));
}) });
const wsWorker = (make) => (env) => within(new Promise((resolve) => {
  const w = make();
  const port = w.port || w;
  port.onmessage = (e) => resolve(e.data);
  port.postMessage({ url: wsUrl(env), kind: 'ws', body: ORDER });
}));
row({ name: 'ws-worker', method: 'WS', kind: 'websocket', send: wsWorker(() => new Worker('/guard-matrix/worker.js')) });
// one shared worker by name: the one the held run started outlived that run here (kept alive with the
// page that made it) with the held run's hook, so the sent run checks too that a leaving monitor told
// it to stop waiting (kn_websockets_release; once, the release was lost with the closing connection and
// the sent run's message was recorded but never arrived)
row({ name: 'ws-sharedworker', method: 'WS', kind: 'websocket',
  send: wsWorker(() => new SharedWorker('/guard-matrix/worker.js', 'ws-sharedworker')) });
