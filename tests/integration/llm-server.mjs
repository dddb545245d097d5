// llm-server.mjs — a fake OpenAI-compatible chat completions server for tests/integration/llm.sh.
// No npm packages: node:http only. Listens on 127.0.0.1 on a free port and prints
// {"port": N} as its first stdout line.
//
// POST /v1/chat/completions answers like the real API. The behaviour is chosen per request by a
// marker in the rule text ("kn-test:NAME"; the rule reaches us inside the user message), and the
// score of a normal answer by "kn-score:X" (default 0.93):
//   ok (default)     200 with {"score": X, "reason": …} as the message content
//   500-then-ok      the first request for that exact prompt gets 500, the next ones ok
//   500-always       always 500
//   429-then-ok      the first gets 429 with Retry-After: 1, the next ones ok
//   slow             answers after 3 s (beyond the client timeout the test sets)
//   fenced           the verdict inside a ```json fence
//   not-json         a 200 whose body is HTML
//   no-choices       a 200 JSON body without "choices"
//   content-text     content that is prose, not JSON
//   out-of-range     {"score": 1.7}
//   score-string     {"score": "0.9"}
//   401              401 with an OpenAI-style error body
//   400              400 (not retried)
//   delay            answers after kn-delay:MS milliseconds (default 2000)
//   gate             held until POST /release (which answers every request held then)
//   hang             never answered (the connection stays open)
// POST /outage with a body MODE → every chat completion request from then on fails that way, whatever
// its marker, until MODE none (the judge outage scenario of lib.sh kn_judge_outage):
//   402      402 insufficient_quota        429      429, Retry-After: 0 (retried at once, then given up)
//   500      500 (retried, then given up)  timeout  never answered (the client's timeout ends it)
//   garbled  a 200 whose body is HTML      text     a verdict whose score is prose, not a number
//   range    {"score": 1.7}                none     back to normal
// GET /count → the number of chat completion requests so far, as text.
// GET /held → the number of gate requests held now; POST /release answers them.
// GET /stats → {"requests": N, "log": [{"t": ms since start, "behaviour", "attempt", "auth", "model"}]}
// (auth: whether an Authorization header came, and whether it was "Bearer $KN_FAKE_LLM_KEY").
import http from 'node:http';

const started = Date.now();
const attempts = new Map(); // user prompt → requests seen
const log = [];
const held = []; // gate: answers waiting for POST /release
const expectedAuth = process.env.KN_FAKE_LLM_KEY ? `Bearer ${process.env.KN_FAKE_LLM_KEY}` : null;
const outages = ['none', '402', '429', '500', 'timeout', 'garbled', 'text', 'range'];
let outage = 'none';

function send(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/html' : 'application/json', ...headers });
  res.end(text);
}

function completion(model, content) {
  return {
    id: 'chatcmpl-fake' + log.length,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138 },
  };
}

function apiError(message, type, code) {
  return { error: { message, type, param: null, code } };
}

function handle(req, res, raw) {
  if (req.method === 'GET' && req.url === '/stats')
    return send(res, 200, { requests: log.length, log });
  if (req.method === 'GET' && req.url === '/held') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(held.length + '\n');
  }
  if (req.method === 'POST' && req.url === '/release') {
    const n = held.length;
    held.splice(0).forEach((answer) => answer());
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(n + '\n');
  }
  if (req.method === 'POST' && req.url === '/outage') {
    const mode = raw.trim();
    if (!outages.includes(mode)) return send(res, 400, apiError('outage: one of ' + outages.join(' '), 'test', null));
    outage = mode;
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(mode + '\n');
  }
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(log.length + '\n');
  }
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
    return send(res, 404, apiError('not found', 'invalid_request_error', null));
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return send(res, 400, apiError('body is not JSON', 'invalid_request_error', null));
  }
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const user = msgs.find((m) => m && m.role === 'user');
  const prompt = user && typeof user.content === 'string' ? user.content : '';
  if (typeof body.model !== 'string' || !prompt || body.temperature !== 0 ||
      !msgs.some((m) => m && m.role === 'system'))
    return send(res, 400, apiError('want model, temperature 0, a system and a user message',
                                    'invalid_request_error', null));
  const behaviour = outage !== 'none' ? 'outage-' + outage : (prompt.match(/kn-test:([a-z0-9-]+)/) || [, 'ok'])[1];
  const score = Number((prompt.match(/kn-score:([0-9.]+)/) || [, '0.93'])[1]);
  const attempt = (attempts.get(prompt) || 0) + 1;
  attempts.set(prompt, attempt);
  const auth = req.headers.authorization;
  log.push({ t: Date.now() - started, behaviour, attempt, model: body.model,
             auth: auth === undefined ? 'none' : auth === expectedAuth ? 'expected' : 'other' });
  const verdict = JSON.stringify({ score, reason: 'the value names the same thing' });
  const ok = () => send(res, 200, completion(body.model, verdict));
  switch (behaviour) {
  case 'ok': return ok();
  case '500-then-ok':
    return attempt === 1 ? send(res, 500, apiError('The server had an error', 'server_error', null)) : ok();
  case '500-always': return send(res, 500, apiError('The server had an error', 'server_error', null));
  case '429-then-ok':
    return attempt === 1
      ? send(res, 429, apiError('Rate limit reached', 'requests', 'rate_limit_exceeded'), { 'retry-after': '1' })
      : ok();
  case 'slow': return setTimeout(ok, 3000);
  case 'delay': return setTimeout(ok, Number((prompt.match(/kn-delay:([0-9]+)/) || [, '2000'])[1]));
  case 'gate': return held.push(ok);
  case 'hang': return undefined;
  case 'fenced': return send(res, 200, completion(body.model, '```json\n' + verdict + '\n```'));
  case 'not-json': return send(res, 200, '<html><body>502 Bad Gateway</body></html>');
  case 'no-choices': {
    const c = completion(body.model, verdict);
    delete c.choices;
    return send(res, 200, c);
  }
  case 'content-text': return send(res, 200, completion(body.model, 'I think the score is about 0.9.'));
  case 'out-of-range': return send(res, 200, completion(body.model, '{"score": 1.7, "reason": "very"}'));
  case 'score-string': return send(res, 200, completion(body.model, '{"score": "0.9", "reason": "x"}'));
  case '401':
    return send(res, 401, apiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'));
  case '400': return send(res, 400, apiError('Unsupported parameter', 'invalid_request_error', null));
  case 'outage-402':
    return send(res, 402, apiError('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'));
  case 'outage-429':
    return send(res, 429, apiError('Rate limit reached', 'requests', 'rate_limit_exceeded'), { 'retry-after': '0' });
  case 'outage-500': return send(res, 500, apiError('The server had an error', 'server_error', null));
  case 'outage-timeout': return undefined;
  case 'outage-garbled': return send(res, 200, '<html><body>502 Bad Gateway</body></html>');
  case 'outage-text':
    return send(res, 200, completion(body.model, '{"score": "quite likely", "reason": "x"}'));
  case 'outage-range': return send(res, 200, completion(body.model, '{"score": 1.7, "reason": "very"}'));
  default: return send(res, 400, apiError('unknown kn-test behaviour ' + behaviour, 'test', null));
  }
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
