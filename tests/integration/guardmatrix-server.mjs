// guardmatrix-server.mjs — the guard matrix's fixture server (tests/integration/guardmatrix.sh): serves
// tests/sites/guard-matrix/ at /guard-matrix/ on three listeners of 127.0.0.1 — A and B over HTTP/1.1
// (B is the cross-origin one), H over HTTPS with HTTP/2 (a ReadableStream upload needs it; the key and
// self-signed certificate are made at test time) — and answers every request to /act/NAME, writing
// one JSON line per request to LOG once its body is read: {server, http (its version), method,
// path, bytes}. That log is
// the proof of arrival. `keynode sites` answers only GET, HEAD and POST, over HTTP/1.1: hence this.
// /act/ answers: OPTIONS a CORS preflight allowing everything; /act/NAME-307 and -308 a redirect to
// /act/NAME-307-target (method and body kept); /act/get-script* a script, get-stylesheet* a style
// sheet, get-eventsource* one event, get-*image*/img*/background* a GIF; else a small HTML page
// (title "arrived"). Every answer allows CORS from any origin. A WebSocket upgrade to /act/NAME (A and B)
// is answered 101 (RFC 6455) and each text or binary message received on it is a log line with method
// "WS" and http "ws", answered with the text "ack".
//   node guardmatrix-server.mjs SITE_DIR LOG KEY.pem CERT.pem   → prints "ports A B H" when listening
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import crypto from 'node:crypto';
import path from 'node:path';

const [dir, log, key, cert] = process.argv.slice(2);
const types = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript' };
const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==', 'base64');

function act(req, res, name, url) {
  const cors = {
    'Access-Control-Allow-Origin': req.headers.origin || '*',
    'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
    'Access-Control-Allow-Headers': 'content-type',
    'Cache-Control': 'no-store',
  };
  if (req.method === 'OPTIONS')
    return res.writeHead(204, cors), res.end();
  const redirect = /-(307|308)$/.exec(name);
  if (redirect)
    return res.writeHead(Number(redirect[1]), { ...cors, Location: `/act/${name}-target` }), res.end();
  if (name.startsWith('get-script'))
    return res.writeHead(200, { ...cors, 'Content-Type': 'text/javascript' }), res.end('window.__arrived = 1;');
  if (name.startsWith('get-stylesheet'))
    return res.writeHead(200, { ...cors, 'Content-Type': 'text/css' }), res.end('body { margin: 0 }');
  if (name.startsWith('get-eventsource'))
    return res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream' }), res.end('data: arrived\n\n');
  if (/^get-(new-image|img|css-background)/.test(name))
    return res.writeHead(200, { ...cors, 'Content-Type': 'image/gif' }), res.end(gif);
  res.writeHead(200, { ...cors, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><title>arrived</title><h1 id="arrived">${url.pathname} arrived</h1>`);
}

function handler(server) {
  return (req, res) => {
    const url = new URL(req.url, 'http://x');
    let bytes = 0;
    req.on('data', (d) => { bytes += d.length; });
    req.on('end', () => {
      if (url.pathname.startsWith('/act/')) {
        fs.appendFileSync(log, `${JSON.stringify({ server, http: req.httpVersion, method: req.method, path: url.pathname, bytes })}\n`);
        return act(req, res, url.pathname.slice(5), url);
      }
      const rel = url.pathname.startsWith('/guard-matrix/') ? url.pathname.slice(14) : null;
      const file = rel && !rel.includes('..') ? path.join(dir, rel) : null;
      if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile())
        return res.writeHead(404, { 'Content-Type': 'text/plain' }), res.end('not found');
      // no Cache-Control: the pages may enter the back/forward cache
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
      res.end(fs.readFileSync(file));
    });
  };
}

// A minimal RFC 6455 server side for /act/NAME: no extensions, no fragmented messages (the shapes send
// one small message), close and ping answered.
function upgrade(server) {
  return (req, socket) => {
    const url = new URL(req.url, 'http://x');
    const key = req.headers['sec-websocket-key'];
    socket.on('error', () => {});
    if (!url.pathname.startsWith('/act/') || String(req.headers.upgrade).toLowerCase() !== 'websocket' || !key)
      return socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const accept = crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const frame = (opcode, payload) => Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
    let buf = Buffer.alloc(0);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (buf.length < 2) return;
        const opcode = buf[0] & 0x0f, masked = buf[1] & 0x80;
        let len = buf[1] & 0x7f, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        if (buf.length < off + (masked ? 4 : 0) + len) return;
        const mask = masked ? buf.subarray(off, off + 4) : null;
        off += masked ? 4 : 0;
        const payload = Buffer.from(buf.subarray(off, off + len));
        if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
        buf = buf.subarray(off + len);
        if (opcode === 1 || opcode === 2) {
          fs.appendFileSync(log, `${JSON.stringify({ server, http: 'ws', method: 'WS', path: url.pathname, bytes: len })}\n`);
          socket.write(frame(1, Buffer.from('ack')));
        } else if (opcode === 8) {
          socket.end(frame(8, Buffer.alloc(0)));
          return;
        } else if (opcode === 9) {
          socket.write(frame(10, payload.subarray(0, 125)));
        }
      }
    });
  };
}

const listen = (s) => new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s.address().port)));
const sa = http.createServer(handler('A')), sb = http.createServer(handler('B'));
sa.on('upgrade', upgrade('A'));
sb.on('upgrade', upgrade('B'));
const a = await listen(sa);
const b = await listen(sb);
const h = await listen(http2.createSecureServer(
  { key: fs.readFileSync(key), cert: fs.readFileSync(cert), allowHTTP1: true }, handler('H')));
console.log(`ports ${a} ${b} ${h}`);
