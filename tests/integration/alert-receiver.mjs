// alert-receiver.mjs — a loopback HTTP receiver for the alerts test (node, no npm packages).
// node alert-receiver.mjs PORTFILE LOG: listens on 127.0.0.1 (port 0), writes its port to PORTFILE,
// and appends one JSON line per request to LOG: {path, n, status, body}. Paths:
//   /hook/fail-N    answers 500 to the first N requests, then 200 (a generic webhook)
//   /slack/429-N    answers 429 (Retry-After: 0) to the first N requests, then 200 with "ok", like
//                   Slack; a body without a string "text" gets 400 "invalid_payload"
//   anything else   404
// Request bodies are capped at 1 MiB (413).
import { createServer } from 'node:http';
import { appendFileSync, writeFileSync } from 'node:fs';

const [portFile, log] = process.argv.slice(2);
const counts = new Map();

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= 1 << 20) chunks.push(c);
  });
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const n = (counts.get(req.url) || 0) + 1;
    counts.set(req.url, n);
    let status = 404, answer = 'not found', headers = {};
    let m;
    if (size > 1 << 20) {
      status = 413, answer = 'too large';
    } else if (req.method !== 'POST') {
      status = 405, answer = 'POST only';
    } else if ((m = /^\/hook\/fail-(\d+)$/.exec(req.url))) {
      [status, answer] = n <= Number(m[1]) ? [500, 'boom'] : [200, '{"ok":true}'];
    } else if ((m = /^\/slack\/429-(\d+)$/.exec(req.url))) {
      let text;
      try { text = JSON.parse(body).text; } catch { text = undefined; }
      if (n <= Number(m[1])) [status, answer, headers] = [429, 'rate_limited', { 'Retry-After': '0' }];
      else if (typeof text !== 'string') [status, answer] = [400, 'invalid_payload'];
      else [status, answer] = [200, 'ok'];
    }
    appendFileSync(log, JSON.stringify({ path: req.url, n, status, type: req.headers['content-type'], body }) + '\n');
    res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(server.address().port)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
