// bench_live_viewer.mjs — N viewers of one live run for bench_screencast.sh: waits on
// /api/stream for the first "live" message of a running replay, opens N websockets to
// /api/live?run=RUN, counts each one's frames and bytes, and when the run's state is "ended" prints
// {"run", "viewers": [{"frames", "bytes"}…]} and exits (exit 3 after TIMEOUT_S).
//   node bench_live_viewer.mjs BASE TOKEN N [TIMEOUT_S]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const WebSocket = require('ws');

const [base, token, n = '1', timeoutS = '120'] = process.argv.slice(2);
const ws = base.replace(/^http/, 'ws');
const feed = new WebSocket(`${ws}/api/stream?token=${encodeURIComponent(token)}`);
const viewers = [];
let run = null;
setTimeout(() => { console.error('timed out'); process.exit(3); }, Number(timeoutS) * 1000);
feed.on('message', (data) => {
  let m;
  try { m = JSON.parse(String(data)); } catch { return; }
  if (m.type !== 'live') return;
  if (!run && m.state !== 'ended') {
    run = m.run;
    for (let i = 0; i < Number(n); i++) {
      const v = { frames: 0, bytes: 0 };
      viewers.push(v);
      const c = new WebSocket(`${ws}/api/live?run=${encodeURIComponent(run)}&token=${encodeURIComponent(token)}`);
      c.on('message', (d) => {
        v.bytes += d.length;
        if (String(d).startsWith('{"type":"frame"')) v.frames += 1;
      });
    }
  } else if (m.run === run && m.state === 'ended') {
    console.log(JSON.stringify({ run, viewers }));
    process.exit(0);
  }
});
feed.on('error', (e) => { console.error(String(e)); process.exit(1); });
