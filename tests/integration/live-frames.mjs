// live-frames.mjs — one viewer of /api/live for liveview.sh: connects to WS_BASE/api/live?run=RUN with
// the token, waits (at most TIMEOUT_S) for N frames and prints {"frames", "w", "h", "states": [...]}.
// Exit 0 when N frames came, 3 on time out, 1 on a connection error.
//   node live-frames.mjs WS_BASE RUN TOKEN [N] [TIMEOUT_S]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const WebSocket = require('ws');

const [base, run, token, n = '2', timeoutS = '60'] = process.argv.slice(2);
const got = { frames: 0, w: 0, h: 0, states: [] };
const ws = new WebSocket(`${base}/api/live?run=${encodeURIComponent(run)}&token=${encodeURIComponent(token)}`);
const done = (code) => { console.log(JSON.stringify(got)); process.exit(code); };
setTimeout(() => done(3), Number(timeoutS) * 1000);
ws.on('message', (d) => {
  const m = JSON.parse(String(d));
  if (m.type === 'frame') {
    got.frames += 1; got.w = m.w; got.h = m.h;
    if (got.frames >= Number(n)) done(0);
  } else if (m.type === 'live') got.states.push(m.state);
});
ws.on('error', (e) => { console.error(String(e)); done(1); });
