// stream-client.mjs — a websocket client of `keynode serve`'s /api/stream for serve.sh: writes every
// message (one JSON text per line) to OUT and exits 0 after an "end" message of RUN (when RUN is given)
// or when TIMEOUT_S passed (exit 3), 1 on a connection error. Usage:
//   node stream-client.mjs WS_URL OUT [RUN] [TIMEOUT_S] [TOKEN]
// Node 20 has no global WebSocket: this uses the `ws` package pinned in node/package.json (ensure.sh).
// With MODE=slow in the environment it does the websocket handshake on a raw socket and then never reads
// (a slow client the server must drop; the `ws` package resumes a paused socket by itself).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const WebSocket = require('ws');

const [url, out, run = '', timeoutS = '30', token = ''] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node stream-client.mjs WS_URL OUT [RUN] [TIMEOUT_S] [TOKEN]');
  process.exit(2);
}
if (process.env.MODE === 'slow') {
  const u = new URL(url);
  const sock = net.connect(Number(u.port), u.hostname, () => {
    sock.pause();
    sock.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n` +
      'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
      (token ? `Authorization: Bearer ${token}\r\n` : '') + '\r\n');
    fs.appendFileSync(out, JSON.stringify({ type: 'open' }) + '\n');
  });
  sock.on('error', (e) => { console.error(`stream-client: ${e.message}`); process.exit(1); });
  setTimeout(() => process.exit(3), Number(timeoutS) * 1000);
} else {
  client();
}

function client() {
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const ws = new WebSocket(url, { headers });
const timer = setTimeout(() => { ws.terminate(); process.exit(3); }, Number(timeoutS) * 1000);
ws.on('open', () => { fs.appendFileSync(out, JSON.stringify({ type: 'open' }) + '\n'); });
ws.on('message', (data) => {
  const text = data.toString();
  fs.appendFileSync(out, text + '\n');
  try {
    const m = JSON.parse(text);
    if (run && m.type === 'end' && m.run === run) { clearTimeout(timer); ws.close(); process.exit(0); }
  } catch { fs.appendFileSync(out, '{"type":"unparsable"}\n'); }
});
ws.on('close', (code) => { fs.appendFileSync(out, JSON.stringify({ type: 'closed', code }) + '\n'); if (!run) { clearTimeout(timer); process.exit(0); } });
ws.on('error', (e) => { console.error(`stream-client: ${e.message}`); clearTimeout(timer); process.exit(1); });
}
