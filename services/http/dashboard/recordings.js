// recordings.js — workflows re-recorded from the dashboard (services/live/README.md
// "Recording"). On the task page: "Record a new workflow" (shown with the token; POST
// /api/tasks/{id}/recordings) and the task's recordings. #/recordings/<id>: the recording's state
// (GET /api/recordings/{id}, every 2 s), Finish and Cancel, and the live view of its tab (live.js,
// run rec-<id>) taken over at once — and again whenever it is handed back: what is done there is
// recorded. At Finish the worker replays the workflow and stores it as a new version only if it passes.

import { el, replace } from './dom.js';
import { api, getToken, seg } from './api.js';
import * as live from './live.js';

/** The task page's button: starts a recording and opens its page. */
export function recordButton(id, ctx) {
  const btn = el('button', { id: 'record-new', type: 'button', class: 'btn', hidden: !getToken() }, 'Record a new workflow');
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    try {
      const r = await api('POST', `/api/tasks/${seg(id)}/recordings`);
      location.hash = `#/recordings/${r.id}`;
    } catch (e) {
      ctx.flash(`recording refused: ${e.message}${e.detail ? `: ${e.detail}` : ''}`, 'error');
      btn.disabled = false;
    }
  });
  return btn;
}

const ENDED = new Set(['stored', 'failed', 'cancelled']);

function recordingRow(r) {
  return el('tr', { 'data-recording': r.id, 'data-state': r.state },
    el('td', {}, el('a', { href: `#/recordings/${r.id}` }, String(r.id))),
    el('td', {}, r.state), el('td', {}, r.author || '—'), el('td', {}, r.steps ?? '—'),
    el('td', {}, r.workflow_version ? `v${r.workflow_version}` : '—'),
    el('td', {}, r.replay ? `${r.replay} (${r.replay_status})` : '—'),
    el('td', { class: 'small' }, r.detail || ''), el('td', { class: 'small' }, r.created || ''));
}

/** The task page's card: every recording of the task (who, how it ended, the version it made). */
export async function recordingsCard(id, signal) {
  const j = await api('GET', `/api/tasks/${seg(id)}/recordings`, undefined, { signal }).catch((e) => {
    if (e.name === 'AbortError') throw e;
    return { recordings: [] };
  });
  const rows = Array.isArray(j.recordings) ? j.recordings : [];
  return el('section', { class: 'card', id: 'task-recordings' }, el('h2', {}, `Recordings (${rows.length})`),
    rows.length ? el('div', { class: 'table-wrap' }, el('table', { class: 'table' },
      el('thead', {}, el('tr', {}, ...['id', 'state', 'by', 'steps', 'workflow', 'validation replay', 'detail', 'started']
        .map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows.map(recordingRow)))) : el('p', { class: 'muted' }, 'None yet.'));
}

/** #/recordings/<id>. */
export async function render(view, params, ctx) {
  const id = params.id;
  let r = await api('GET', `/api/recordings/${seg(id)}`, undefined, { signal: ctx.signal });
  const state = el('p', { id: 'rec-state' });
  const finish = el('button', { id: 'rec-finish', type: 'button', class: 'btn primary' }, 'Finish');
  const cancel = el('button', { id: 'rec-cancel', type: 'button', class: 'btn' }, 'Cancel');
  const screen = el('div', { id: 'rec-live' });
  const show = () => {
    view.dataset.recording = r.state;
    state.textContent = `${r.state}${r.steps ? `, ${r.steps} steps` : ''}${r.workflow_version ? `, workflow version ${r.workflow_version}` : ''}${r.detail ? ` — ${r.detail}` : ''}`;
    finish.hidden = cancel.hidden = r.state !== 'recording' && r.state !== 'queued';
    if (ENDED.has(r.state) || r.state === 'validating') screen.hidden = true; // its tab is gone
  };
  show();
  const ask = (what) => async () => {
    try {
      r = await api('POST', `/api/recordings/${seg(id)}/${what}`);
      show();
    } catch (e) {
      ctx.flash(`${what}: ${e.message}${e.detail ? `: ${e.detail}` : ''}`, 'error');
    }
  };
  finish.addEventListener('click', ask('finish'));
  cancel.addEventListener('click', ask('cancel'));
  replace(view, el('h2', {}, 'Recording ', el('span', { class: 'mono' }, id), ' of ',
    el('a', { href: `#/tasks/${encodeURIComponent(r.task)}` }, r.task)), state,
  el('p', { class: 'muted' }, 'Do the task in the page below (clicks, the wheel, keys; the text box types into the focused field), then Finish: the workflow is replayed at once and stored as a new version if the replay passes.'),
  el('div', { class: 'actions' }, finish, cancel), screen);
  if (!ENDED.has(r.state)) await live.render(screen, { id: `rec-${id}` }, ctx);
  // the recording is taken over from the start, and again whenever it is handed back (idle)
  const timer = setInterval(async () => {
    const take = document.getElementById('live-take');
    if (take && !take.hidden && screen.dataset.live === 'open' && r.state === 'recording' && screen.dataset.frames !== '0') take.click();
    try {
      r = await api('GET', `/api/recordings/${seg(id)}`);
      show();
    } catch { /* the next tick asks again */ }
    if (ENDED.has(r.state)) clearInterval(timer);
  }, 2000);
  ctx.onCleanup(() => clearInterval(timer));
}
