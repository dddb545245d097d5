// slow-deps.mjs — for nonblocking.sh: slow or hanging dependencies of `keynode serve` must not hold
// up its other routes. No wall-clock assertion: each check is about order — another route answered
// while the slow request was still pending.
//   node slow-deps.mjs BASE_URL TOKEN TASK BIG_TASKS
// 1. A "browser" that accepts connections and never answers (its port is ours, 127.0.0.1): once it
//    has the connection of POST /api/runs {"browser"} (discovery), GET /healthz, /api/tasks,
//    /api/runs, /metrics must all answer 200 while that POST is pending and its connection to the
//    browser still open; the POST then ends with 502.
// 2. A task-set upload of BIG_TASKS generated tasks: once its body is written, /healthz and
//    /api/tasks are asked until each answered 5 times or the upload answered; at least 3 answers of
//    each must come while the upload is pending,
//    and the upload must answer 201 with BIG_TASKS tasks.
// Prints "ok …" / "FAIL …" lines (lib.sh style); exit 1 on a failure.
import http from 'node:http';
import net from 'node:net';

const [, , base, token, task, bigS] = process.argv;
const big = Number(bigS);
let fails = 0;
const ok = (m) => console.log(`ok   ${m}`);
const fail = (m) => { console.log(`FAIL ${m}`); fails++; };

function request(method, path, body, headers = {}) {
  const u = new URL(path, base);
  const data = body === undefined ? undefined : Buffer.from(body);
  let req;
  const done = new Promise((resolve) => {
    req = http.request({ method, hostname: u.hostname, port: u.port, path: u.pathname + u.search,
      agent: false, headers: { Authorization: `Bearer ${token}`, ...headers,
        ...(data ? { 'Content-Length': data.length } : {}) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('error', (e) => resolve({ status: 0, body: String(e) }));
  });
  const written = new Promise((resolve) => req.on('finish', resolve));
  req.end(data);
  return { done, written, req };
}
const get = (path) => request('GET', path).done;

// --- 1. a browser that never answers ------------------------------------------------------------
const held = [];
let browserClosed = false;
let sawConnection, onConnection = null;
const connected = new Promise((r) => { sawConnection = r; });
const hang = net.createServer((sock) => {
  held.push(sock);
  sock.resume(); // read (and drop) what comes, so that the peer's close is seen
  sock.on('close', () => { browserClosed = true; });
  sock.on('error', () => {});
  sawConnection();
  if (onConnection) onConnection(sock);
});
await new Promise((r) => hang.listen(0, '127.0.0.1', r));
const browser = `http://127.0.0.1:${hang.address().port}`;

let runPending = true;
const run = request('POST', '/api/runs', JSON.stringify({ task, browser }),
  { 'Content-Type': 'application/json' }).done.then((r) => { runPending = false; return r; });
await connected;
for (const path of ['/healthz', '/api/tasks', '/api/runs', '/metrics']) {
  const r = await get(path);
  const still = runPending && !browserClosed;
  if (r.status === 200 && still) ok(`hanging browser: GET ${path} answered while POST /api/runs waits on discovery`);
  else fail(`hanging browser: GET ${path} ${r.status}, POST /api/runs pending ${runPending}, browser connection closed ${browserClosed}`);
}
const r1 = await run;
if (r1.status === 502) ok(`hanging browser: POST /api/runs ends 502 (${JSON.parse(r1.body).detail})`);
else fail(`hanging browser: POST /api/runs ${r1.status} ${r1.body}`);
// a client that gives up while its answer is being made: the answer is dropped when it comes, the
// server goes on (under ASan this is the use-after-free check of a forgotten job)
const next = new Promise((r) => { onConnection = r; });
const gaveUp = request('POST', '/api/runs', JSON.stringify({ task, browser }),
  { 'Content-Type': 'application/json' });
gaveUp.done.then(() => {});
const sock = await next;
gaveUp.req.destroy();
await new Promise((r) => (sock.destroyed ? r() : sock.on('close', r))); // discovery gave up: job done
const after = await Promise.all([get('/healthz'), get('/api/tasks')]);
if (after.every((r) => r.status === 200)) ok('a client that gave up on POST /api/runs: its answer dropped, the server answers on');
else fail(`after a client gave up: ${after.map((r) => r.status).join(' ')}`);
for (const s of held) s.destroy();
hang.close();

// --- 2. a large task-set upload -----------------------------------------------------------------
let yaml = 'tasks:\n';
for (let i = 0; i < big; i++) {
  yaml += `  - id: big-${i}\n    intent: "Open page number ${i} of the generated catalogue and look at it"\n` +
    `    start_url: http://127.0.0.1:9/p/${i}\n    key_nodes:\n      - id: page\n` +
    `        url: { include: "/p/${i}/item" }\n      - id: query\n        url: { key: q, exact: "n${i}" }\n`;
}
let uploadPending = true;
const up = request('POST', '/api/tasksets?name=big', yaml, { 'Content-Type': 'application/yaml' });
const upload = up.done.then((r) => { uploadPending = false; return r; });
await up.written;
let during = 0, tasksDuring = 0, rounds = 0;
while (uploadPending && (during < 5 || tasksDuring < 5) && rounds < 100000) {
  rounds++;
  const [h, t] = await Promise.all([get('/healthz'), get('/api/tasks?site=nowhere.invalid')]);
  if (!uploadPending) break;
  if (h.status === 200) during++;
  if (t.status === 200) tasksDuring++;
}
const r2 = await upload;
let n = -1;
try { n = JSON.parse(r2.body).tasks; } catch { /* reported below */ }
if (r2.status === 201 && n === big) ok(`upload of ${big} tasks (${(yaml.length / 1e6).toFixed(1)} MB): 201`);
else fail(`upload: ${r2.status} ${r2.body.slice(0, 200)}`);
if (during >= 3 && tasksDuring >= 3) ok(`upload: ${during} /healthz and ${tasksDuring} /api/tasks answers while it was pending`);
else fail(`upload: only ${during} /healthz and ${tasksDuring} /api/tasks answers while it was pending`);
process.exit(fails ? 1 : 0);
