// stream-hold.mjs — origin.sh's subscriber-limit and idle clients for /api/stream.
//   node stream-hold.mjs WS_URL N [TOKEN]   opens N websockets one after the other (`ws` package, which
//     answers pings), each counted as held when still open 500 ms after its handshake, as refused when
//     the server closed it; prints "done opened=H refused=R codes=…" and keeps the held ones open until
//     killed.
//   MODE=mute node stream-hold.mjs WS_URL   does the handshake on a raw socket, reads everything and
//     never answers a ping; prints "closed after S s" when the server hangs up and exits 0 (3 after 30 s).
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const WebSocket = require('ws');
const [url, nS = '1', token = ''] = process.argv.slice(2);

if (process.env.MODE === 'mute') {
  const u = new URL(url);
  const t0 = Date.now();
  const sock = net.connect(Number(u.port), u.hostname, () => {
    sock.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n` +
      'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
  });
  let got = '';
  sock.on('data', (d) => { got += d.toString('latin1'); if (got.startsWith('HTTP/1.1 101')) console.log('open'); });
  sock.on('close', () => { console.log(`closed after ${((Date.now() - t0) / 1000).toFixed(1)} s`); process.exit(0); });
  sock.on('error', () => {});
  setTimeout(() => { console.log('still open after 30 s'); process.exit(3); }, 30000);
} else {
  const held = [];
  let refused = 0;
  const codes = [];
  for (let i = 0; i < Number(nS); i++) {
    const ws = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const r = await new Promise((resolve) => {
      ws.on('open', () => setTimeout(() => resolve('held'), 500));
      ws.on('close', (code) => { codes.push(code); resolve('refused'); });
      ws.on('error', () => {});
    });
    if (r === 'held' && ws.readyState === WebSocket.OPEN) held.push(ws); else refused++;
  }
  console.log(`done opened=${held.length} refused=${refused} codes=${codes.join(',')}`);
  setInterval(() => {}, 1000);
}
