// run.mjs — run.html?s=NAME&a=A&b=B&h=H[&part=frame]: one shape of shapes.mjs. The page runs the shape's
// setup at once and its send on a click on #go (a trusted click: popups and forms may need one); as
// part=frame (in an iframe or a popup the shape opened) it runs the shape's frame at once. When what it
// ran settles, the title becomes "done" (the agent waits for that, or for the page a form navigated to);
// a frame then tells its parent or opener "frame-done".
// window.__armed is set once setup ran: the agent acts only then.
import { SHAPES } from './shapes.mjs';

const q = new URLSearchParams(location.search);
const row = SHAPES.find((s) => s.name === q.get('s'));
const origins = { A: q.get('a'), B: q.get('b'), H: q.get('h') };
const env = {
  ...origins,
  row,
  name: row && row.name,
  url: (origin) => `${origin || location.origin}/act/${row.name}`,
  page: (part, origin) => `${origin || location.origin}/guard-matrix/run.html?s=${encodeURIComponent(row.name)}`
    + `&a=${encodeURIComponent(origins.A)}&b=${encodeURIComponent(origins.B)}&h=${encodeURIComponent(origins.H)}&part=${part}`,
};
const done = (what) => () => { document.title = 'done'; document.getElementById('shape').dataset.result = what; };
if (!row) {
  document.title = 'no such shape';
} else if (q.get('part') === 'frame') {
  document.getElementById('shape').textContent = `${row.name} (frame)`;
  const told = () => (window.opener || window.parent).postMessage('frame-done', '*');
  Promise.resolve().then(() => row.frame(env)).then(done('frame'), done('frame failed')).then(told);
} else {
  document.getElementById('shape').textContent = row.name;
  if (row.setup) row.setup(env);
  document.getElementById('go').addEventListener('click', () => {
    Promise.resolve().then(() => row.send && row.send(env)).then(done('sent'), (e) => done(`failed: ${e}`)());
  });
  window.__armed = true;
}
