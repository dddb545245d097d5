// live.js — the live view (services/live/README.md). #/live lists the pages keynode is
// replaying or an agent attempt of a worker is driving now (the "live" messages of /api/stream);
// #/live/<run> shows one: its screencast frames and steps over /api/live?run=RUN, and — with the
// token, when the page can be taken over (a replay; an agent attempt while its site blocks it: the
// agent is paused) — Take over / Hand back: while taken over,
// clicks, the wheel, keys and typed text on the frame are sent to the page, their coordinates
// mapped from the scaled frame to the page's CSS pixels. Watching needs the token unless the serve
// opens it (http.live_view_public); taking over always does.

import { el, replace } from './dom.js';
import { getToken, wsUrl } from './api.js';

const KEYS = new Set(['Enter', 'Tab', 'Backspace', 'Escape', 'Delete', 'Home', 'End', 'PageUp', 'PageDown',
  'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']);

function withToken(path) {
  const t = getToken();
  return wsUrl(t ? `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(t)}` : path);
}

/** #/live: the runs whose pages can be watched now (their state arrives every 2 s). */
function renderList(view, ctx) {
  const seen = new Map();
  const body = el('tbody', {});
  const table = el('table', { class: 'table', id: 'live-runs' },
    el('thead', {}, el('tr', {}, el('th', {}, 'run'), el('th', {}, 'task'), el('th', {}, 'step'), el('th', {}, 'state'))), body);
  replace(view, el('h2', {}, 'Live now'),
    el('p', { class: 'muted' }, 'Replays and agent attempts running now; open one to watch it (and, with the token, take over a replay or a blocked attempt).'), table);
  const draw = () => {
    replace(body, ...[...seen.values()].filter((m) => m.state !== 'ended').map((m) =>
      el('tr', { 'data-run': m.run },
        el('td', {}, el('a', { href: `#/live/${encodeURIComponent(m.run)}` }, m.run)),
        el('td', {}, m.task || ''), el('td', {}, `${m.step}/${m.steps}`),
        el('td', {}, m.taken ? 'taken over' : m.blocked ? `${m.state}, blocked` : m.state))));
  };
  const ws = new WebSocket(withToken('/api/stream'));
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.type !== 'live') return;
    seen.set(m.run, m);
    draw();
  };
  ctx.onCleanup(() => ws.close());
}

/** #/live/<run>: the frames, the steps, the takeover. */
function renderRun(view, id, ctx) {
  const img = el('img', { id: 'live-frame', class: 'live-frame', alt: 'the page, live' });
  img.tabIndex = 0; // keys go to the page while it has the focus
  const state = el('p', { id: 'live-state', class: 'muted' }, 'waiting for the page…');
  const steps = el('ol', { id: 'live-steps', class: 'live-steps' });
  const take = el('button', { id: 'live-take', type: 'button' }, 'Take over'); // hidden while the page says it is not takeable
  const give = el('button', { id: 'live-release', type: 'button', hidden: true }, 'Hand back');
  const text = el('input', { id: 'live-text', type: 'text', placeholder: 'type into the page, Enter sends', hidden: true });
  const note = el('p', { id: 'live-note', class: 'muted' });
  view.dataset.frames = '0';
  view.dataset.taken = 'false';
  replace(view, el('h2', {}, 'Live: ', el('span', { class: 'mono' }, id)), state,
    el('div', { class: 'live-layout' },
      el('div', { class: 'live-screen' }, img, el('div', { class: 'live-controls' }, take, give, text), note),
      el('div', { class: 'live-side' }, el('h3', {}, 'Steps'), steps)));
  let w = 0; let h = 0; let taken = false; let frames = 0; let lastStep = '';
  const ws = new WebSocket(withToken(`/api/live?run=${encodeURIComponent(id)}`));
  const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
  const setTaken = (t) => {
    taken = t;
    view.dataset.taken = String(t);
    take.hidden = t || view.dataset.takeable === 'false'; give.hidden = !t; text.hidden = !t;
    img.classList.toggle('live-taken', t);
  };
  ws.onclose = (ev) => { state.textContent = `not connected (${ev.code === 1006 ? 'refused: the token is needed to watch' : ev.code})`; view.dataset.live = 'closed'; };
  ws.onopen = () => { view.dataset.live = 'open'; };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    if (m.type === 'frame') {
      w = m.w; h = m.h;
      img.src = `data:image/jpeg;base64,${m.jpeg}`;
      frames += 1;
      view.dataset.frames = String(frames);
    } else if (m.type === 'live') {
      const who = m.kind === 'attempt' ? 'the agent' : 'the replay';
      const what = m.state === 'held' ? `taken over — ${m.kind === 'attempt' ? 'the agent is paused' : 'the replay waits'}`
        : m.taken ? `taken over — ${who} finishes its step`
          : m.blocked ? `${m.state} — the site blocks ${who}${m.takeable ? ': take over to get it past' : ''}` : m.state;
      const at = m.kind === 'attempt' ? `${m.step - 1} steps so far` : `step ${m.step} of ${m.steps}`;
      state.textContent = m.state === 'ended' ? `${m.kind === 'attempt' ? 'the attempt' : 'the replay'} ended` : `${what}: ${at}`;
      view.dataset.liveState = m.state;
      view.dataset.takeable = String(!!m.takeable);
      view.dataset.blocked = String(!!m.blocked);
      take.hidden = taken || !m.takeable || m.state === 'ended'; // a run an agent drives: watched only
      const key = `${m.step}:${m.verb}`;
      if (m.verb && key !== lastStep) {
        lastStep = key;
        steps.append(el('li', { 'data-step': m.step }, `${m.verb} ${m.target || ''}`));
      }
    } else if (m.type === 'taken') {
      setTaken(true);
    } else if (m.type === 'released') {
      setTaken(false);
    } else if (m.type === 'error') {
      note.textContent = `${m.status}: ${m.error}`;
      view.dataset.error = String(m.status);
    }
  };
  const at = (ev) => {
    const r = img.getBoundingClientRect();
    return { x: Math.max(0, ((ev.clientX - r.left) / r.width) * w), y: Math.max(0, ((ev.clientY - r.top) / r.height) * h) };
  };
  take.addEventListener('click', () => send({ type: 'take' }));
  give.addEventListener('click', () => send({ type: 'release' }));
  img.addEventListener('click', (ev) => {
    if (!taken || !w) return;
    img.focus();
    send({ type: 'click', ...at(ev), button: 'left' });
  });
  let wheelAt = 0;
  img.addEventListener('wheel', (ev) => {
    if (!taken || !w) return;
    ev.preventDefault();
    if (Date.now() - wheelAt < 100) return; // at most 10 a second
    wheelAt = Date.now();
    send({ type: 'wheel', ...at(ev), dx: Math.max(-10000, Math.min(10000, ev.deltaX)), dy: Math.max(-10000, Math.min(10000, ev.deltaY)) });
  }, { passive: false });
  img.addEventListener('keydown', (ev) => {
    if (!taken) return;
    if (KEYS.has(ev.key)) send({ type: 'key', key: ev.key });
    else if (ev.key === ' ') send({ type: 'key', key: 'Space' });
    else if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey) send({ type: 'text', text: ev.key });
    else return;
    ev.preventDefault();
  });
  text.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter' || !text.value) return;
    send({ type: 'text', text: text.value.slice(0, 1000) });
    text.value = '';
  });
  ctx.onCleanup(() => ws.close());
}

export async function render(view, params, ctx) {
  if (params.id) renderRun(view, params.id, ctx);
  else renderList(view, ctx);
}
