// bench_judge.mjs — event-to-score latency of live runs in `keynode serve` (driven by
// bench_judge.sh). OTHERS runs each post N navigate events one after another (all runs at once);
// meanwhile the JUDGED run posts an event needing a new judgement every 50 ms. For every event of
// the other runs: the time from sending the POST to the "event" message carrying its score on
// /api/stream (the live score a dashboard shows), and to the POST's own answer (which carries the
// score too, sent once the event is durable). Prints one JSON object with p50/p99/max of both.
//   node bench_judge.mjs BASE TOKEN JUDGED_ID N OTHER_ID…
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const WebSocket = require('ws');

const [base, token, judged, nStr, ...others] = process.argv.slice(2);
const N = Number(nStr);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(p, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + p, { method: 'POST', agent, headers: {
      Authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sent = new Map(); // "run/seq" → t sent
const streamLat = [], postLat = [];
let judgedScores = 0;
const ws = new WebSocket(base.replace('http://', 'ws://') + '/api/stream',
                         { headers: { Authorization: `Bearer ${token}` } });
await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
ws.on('message', (data) => {
  const now = performance.now();
  const m = JSON.parse(data.toString());
  if (m.type === 'score' && m.run === judged) judgedScores++;
  if (m.type !== 'event') return;
  const k = `${m.run}/${m.seq}`;
  const t0 = sent.get(k);
  if (t0 !== undefined && typeof m.score === 'number') {
    streamLat.push(now - t0);
    sent.delete(k);
  }
});

let stopJudged = false, judgedPosted = 0;
async function judgedLoop() {
  for (let i = 1; !stopJudged; i++) {
    const r = await post(`/api/runs/${judged}/events`,
      JSON.stringify({ t: i, type: 'navigate', url: `http://s.test/find?q=item+${i}+${Date.now()}` }));
    if (r.status !== 200) throw new Error(`judged run: ${r.status} ${r.body}`);
    judgedPosted++;
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function otherLoop(run) {
  for (let i = 1; i <= N; i++) {
    const body = JSON.stringify({ t: i, type: 'navigate', url: `http://s.test/${['a', 'b', 'c', 'x'][i % 4]}/${i}` });
    const t0 = performance.now();
    sent.set(`${run}/${i}`, t0);
    const r = await post(`/api/runs/${run}/events`, body);
    postLat.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`run ${run}: ${r.status} ${r.body}`);
  }
}

const jl = judgedLoop();
await new Promise((res) => setTimeout(res, 300)); // the judge is busy before we measure
await Promise.all(others.map(otherLoop));
stopJudged = true;
await jl;
for (let i = 0; i < 200 && sent.size; i++) await new Promise((res) => setTimeout(res, 25));
ws.close();
agent.destroy();

function pct(a, p) {
  if (!a.length) return null;
  const s = [...a].sort((x, y) => x - y);
  return Number(s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)].toFixed(2));
}
console.log(JSON.stringify({
  events: streamLat.length, missing: sent.size, judged_posted: judgedPosted, judged_scores: judgedScores,
  stream_p50: pct(streamLat, 50), stream_p99: pct(streamLat, 99), stream_max: pct(streamLat, 100),
  post_p50: pct(postLat, 50), post_p99: pct(postLat, 99), post_max: pct(postLat, 100),
}));
