// crash.mjs — an agent whose browser dies under it: sends Browser.crash to KEYNODE_CDP_WS, then waits
// (keynode run must end the attempt as an infrastructure error, "browser gone", and stop this agent).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, '..', 'integration', 'node', 'package.json'));
const WebSocket = require('ws');

const ws = new WebSocket(process.env.KEYNODE_CDP_WS);
ws.on('open', () => {
  console.log('crashing the browser');
  ws.send(JSON.stringify({ id: 1, method: 'Browser.crash' }));
});
ws.on('error', () => {});
setInterval(() => {}, 1000);
