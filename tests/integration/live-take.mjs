// live-take.mjs — one viewer of /api/live that asks to take over (agentlive.sh): connects to
// WS_BASE/api/live?run=RUN (with TOKEN unless empty), waits for the page's first state, sends
// {"type":"take"} and prints {"state": the first state, "reply": serve's answer ("taken" or an error
// with its status)}; then releases if taken. Exit 0 with a reply, 1 when the socket was refused or
// closed, 3 on time out.
//   node live-take.mjs WS_BASE RUN TOKEN [TIMEOUT_S]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const WebSocket = require('ws');

const [base, run, token, timeoutS = '60'] = process.argv.slice(2);
const got = { state: null, reply: null };
const q = token ? `&token=${encodeURIComponent(token)}` : '';
const ws = new WebSocket(`${base}/api/live?run=${encodeURIComponent(run)}${q}`);
const done = (code) => { console.log(JSON.stringify(got)); process.exit(code); };
setTimeout(() => done(3), Number(timeoutS) * 1000);
ws.on('message', (d) => {
  const m = JSON.parse(String(d));
  if (m.type === 'live' && !got.state) {
    got.state = m;
    ws.send(JSON.stringify({ type: 'take' }));
  } else if (m.type === 'taken' || m.type === 'error') {
    got.reply = m;
    if (m.type === 'taken') ws.send(JSON.stringify({ type: 'release' }));
    setTimeout(() => done(0), 200);
  }
});
ws.on('error', (e) => { console.error(String(e)); done(1); });
ws.on('close', () => { if (!got.reply) done(1); });
