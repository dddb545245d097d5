// attack.js — origin.sh's hostile page: served from another origin (http://localhost:SITES_PORT), it
// tries what a page in the user's browser could do against a loopback `keynode serve` at ?api=HOST:PORT:
// open the live feed, read the API with CORS and without (no-cors: opaque), read a run. window.result
// holds what it got; origin.sh asserts that nothing was read.
const api = new URLSearchParams(location.search).get('api');
const run = new URLSearchParams(location.search).get('run');
const out = { ws: 'pending', wsMessages: 0, wsClose: null, fetchTasks: 'pending', fetchRun: 'pending', noCors: 'pending' };
window.result = out;
const ws = new WebSocket(`ws://${api}/api/stream`);
ws.onopen = () => { out.ws = 'open'; };
ws.onmessage = () => { out.wsMessages++; };
ws.onclose = (e) => { if (out.ws === 'pending') out.ws = 'refused'; out.wsClose = e.code; };
fetch(`http://${api}/api/tasks`).then((r) => r.text()).then((t) => { out.fetchTasks = `read ${t.length} bytes`; },
  () => { out.fetchTasks = 'blocked'; });
fetch(`http://${api}/api/runs/${run}`).then((r) => r.text()).then((t) => { out.fetchRun = `read ${t.length} bytes`; },
  () => { out.fetchRun = 'blocked'; });
fetch(`http://${api}/api/tasks`, { mode: 'no-cors' }).then((r) => { out.noCors = `opaque ${r.type}`; },
  () => { out.noCors = 'blocked'; });
