// blocked-server.mjs — the test-only web server of the blocked-site fixtures (tests/sites/blocked/
// README.md): plain files like `keynode sites`, plus what a static server cannot do — answer with a
// fixture's HTTP status and headers, and redirect to another country's site. Node built-ins only.
//
//   node blocked-server.mjs ROOT        (ROOT = tests/sites/blocked; prints "port=N" once listening)
//
// Routes (fixtures by name from ROOT/fixtures.json):
//   /f/NAME/            the fixture NAME as the main document (its status, headers, file or redirect);
//                       /f/NAME/done.html etc. are the app's pages (ROOT/app/)
//   /app/…              the app, with the current fixture applied to /app/ (none at start)
//   /__fixture?name=N   make N the current fixture ("none" removes it); answers 204. Test-only control.
//   /us/…, /de/…        the same site under a country prefix; a fixture with {"redirect": {from, to}}
//                       sends /FROM/… to /TO/… with 302 (a geo redirect)
//   /recaptcha/…, …/hcaptcha.html, …/turnstile/…   a CAPTCHA widget stub (captcha-frame.html)
// Binds 127.0.0.1 on a free port. Logs nothing but the port line.
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { join, normalize, extname } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: node blocked-server.mjs ROOT');
  process.exit(2);
}
const fixtures = JSON.parse(readFileSync(join(root, 'fixtures.json'), 'utf8'));
const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript' };
let current = 'none';

function file(res, rel, status = 200, headers = {}) {
  const path = normalize(join(root, rel));
  if (!path.startsWith(normalize(root)) || !existsSync(path) || statSync(path).isDirectory()) {
    res.writeHead(404, { 'Content-Type': types['.html'] });
    return res.end(readFileSync(join(root, '404.html')));
  }
  res.writeHead(status, { 'Content-Type': types[extname(path)] || 'application/octet-stream',
                          'Cache-Control': 'no-store', ...headers });
  res.end(readFileSync(path));
}

createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let path = url.pathname;
  if (path === '/__fixture') {
    const name = url.searchParams.get('name') || 'none';
    if (!(name in fixtures)) { res.writeHead(400); return res.end('unknown fixture\n'); }
    current = name;
    res.writeHead(204);
    return res.end();
  }
  if (/\/recaptcha\/|hcaptcha\.html|\/turnstile\//.test(path)) return file(res, 'captcha-frame.html');
  let country = null, m;
  if ((m = path.match(/^\/(us|de)(\/.*)$/))) { country = m[1]; path = m[2]; }
  let fixture = null, doc = false;
  if ((m = path.match(/^\/f\/([^/]+)\/(.*)$/))) {
    fixture = decodeURIComponent(m[1]);
    if (!(fixture in fixtures)) { res.writeHead(404); return res.end('unknown fixture\n'); }
    path = '/app/' + m[2];
  } else if (path.startsWith('/app/')) {
    fixture = current;
  }
  doc = path === '/app/' || path === '/app/index.html';
  const fx = fixture && doc ? fixtures[fixture] : null;
  if (fx && fx.redirect) {
    if (country === fx.redirect.from) {
      res.writeHead(302, { Location: '/' + fx.redirect.to + url.pathname.slice(3) + url.search, 'Cache-Control': 'no-store' });
      return res.end();
    }
  } else if (fx && fx.file) {
    return file(res, fx.file, fx.status || 200, fx.headers || {});
  }
  if (path.endsWith('/')) path += 'index.html';
  file(res, path);
}).listen(0, '127.0.0.1', function () {
  console.log(`port=${this.address().port}`);
});
