// tls-server.mjs — an HTTPS server on 127.0.0.1 (a free port, printed as "port=N") with the key and the
// self-signed certificate given (made by openssl at test time): Chromium refuses it
// (net::ERR_CERT_AUTHORITY_INVALID), a TLS error on a site that is up. Every path answers a small page.
//   node tests/integration/tls-server.mjs KEY.pem CERT.pem
import fs from 'node:fs';
import https from 'node:https';

const [key, cert] = process.argv.slice(2);
const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>secure</title><h1>secure page</h1>');
});
server.listen(0, '127.0.0.1', () => console.log(`port=${server.address().port}`));
