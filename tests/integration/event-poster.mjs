// event-poster.mjs — a harness for durability.sh: posts numbered trajectory events to `keynode serve`
// without pause, BATCH per request, each a navigate to /shop/search.html?n=N (the task's "search" key node) with N counting up from 1 across runs.
// A 200 answer acknowledges its batch: "ack FIRST LAST RUN" goes to ACKS (one line, appended) before the
// next request. On a refused connection or any other answer it never re-sends those numbers (they
// were not acknowledged: stored or not, either is allowed); it waits for the server to answer
// /healthz again, starts a new external run and goes on. Stops when STOP_FILE exists. Usage:
//   node event-poster.mjs BASE_URL BASE_FILE TOKEN TASK ACKS STOP_FILE [BATCH]
// BASE_FILE holds the current base URL (the test rewrites it when serve restarts on a new port).
import fs from 'node:fs';
import http from 'node:http';

const [, , , baseFile, token, task, acks, stopFile, batchS = '20'] = process.argv;
const batch = Number(batchS);
const agent = new http.Agent({ keepAlive: false });

function base() { return fs.readFileSync(baseFile, 'utf8').trim(); }

function req(method, url, body) {
  return new Promise((resolve) => {
    const u = new URL(url);
    const data = body === undefined ? undefined : Buffer.from(body);
    const r = http.request({ agent, method, hostname: u.hostname, port: u.port, path: u.pathname + u.search,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json',
        ...(data ? { 'Content-Length': data.length } : {}) }, timeout: 20000 }, (res) => {
      let b = '';
      res.on('data', (c) => { b += c; });
      res.on('end', () => resolve({ status: res.statusCode, body: b }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    r.on('error', () => resolve({ status: 0, body: '' }));
    r.on('timeout', () => { r.destroy(); resolve({ status: 0, body: '' }); });
    if (data) r.write(data);
    r.end();
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function newRun() {
  for (;;) {
    if (fs.existsSync(stopFile)) return null;
    const r = await req('POST', `${base()}/api/runs`, JSON.stringify({ task }));
    if (r.status === 201) {
      const id = JSON.parse(r.body).id;
      fs.appendFileSync(acks, `run ${id}\n`);
      return id;
    }
    await sleep(50);
  }
}

let n = 1, run = await newRun(), posted = 0;
while (run && !fs.existsSync(stopFile)) {
  const evs = [];
  for (let i = 0; i < batch; i++)
    evs.push(JSON.stringify({ t: n + i, type: 'navigate', url: `http://127.0.0.1:1/shop/search.html?n=${n + i}` }));
  const r = await req('POST', `${base()}/api/runs/${run}/events`, `[${evs.join(',')}]`);
  if (r.status === 200) {
    fs.appendFileSync(acks, `ack ${n} ${n + batch - 1} ${run}\n`);
    posted++;
  } else {
    fs.appendFileSync(acks, `fail ${n} ${n + batch - 1} ${run} ${r.status}\n`);
    if (r.status !== 0 && r.status !== 503) { console.error(`unexpected ${r.status}: ${r.body}`); process.exit(1); }
    await sleep(50);
    if (r.status === 0) run = await newRun();
  }
  n += batch;
}
console.log(JSON.stringify({ posted, next: n }));
