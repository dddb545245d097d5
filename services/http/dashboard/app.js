// app.js — the dashboard's entry point: hash router, the token field, flash messages and the
// alert counter in the nav. Each page module exports render(view, params, ctx); while it loads,
// <main id="view"> has data-state="loading", then "ready" (or "error" with an .error-box), and
// data-page names the page — the end-to-end test waits on these.

import { el, replace } from './dom.js';
import { api, getToken, setToken } from './api.js';
import * as overview from './overview.js';
import * as task from './task.js';
import * as runs from './runs.js';
import * as run from './run.js';
import * as alerts from './alerts.js';
import * as batch from './batch.js';
import * as batches from './batches.js';
import * as compare from './compare.js';
import * as trace from './trace.js';
import * as drift from './drift.js';
import * as live from './live.js';
import * as recordings from './recordings.js';
import * as taskset from './taskset.js';

const view = document.getElementById('view');
let current = { gen: 0, cleanups: [], abort: null };

function route(hash) {
  const h = (hash || '').replace(/^#/, '');
  const parts = h.split('/').filter(Boolean).map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  if (parts[0] === 'tasks' && parts.length === 3 && parts[2] === 'drift') return { page: 'drift', mod: drift, params: { id: parts[1] } };
  if (parts[0] === 'tasks' && parts[1]) return { page: 'task', mod: task, params: { id: parts.slice(1).join('/') } };
  if (parts[0] === 'tasksets' && parts[1]) return { page: 'taskset', mod: taskset, params: { name: parts[1], days: parts[2] === 'd' ? parts[3] : undefined } };
  if (parts[0] === 'runs' && parts[1] && parts[2] === 'trace') return { page: 'trace', mod: trace, params: { id: parts[1] } };
  if (parts[0] === 'runs' && parts[1]) return { page: 'run', mod: run, params: { id: parts[1] } };
  if (parts[0] === 'recordings' && parts[1]) return { page: 'recording', mod: recordings, params: { id: parts[1] } };
  if (parts[0] === 'live') return { page: 'live', mod: live, params: { id: parts[1] || '' } };
  if (parts[0] === 'runs') return { page: 'runs', mod: runs, params: {} };
  if (parts[0] === 'alerts') return { page: 'alerts', mod: alerts, params: {} };
  if (parts[0] === 'agent-runs' && parts[1] === 'compare' && parts[2] && parts[3]) return { page: 'compare', mod: compare, params: { a: parts[2], b: parts[3] } };
  if (parts[0] === 'agent-runs' && parts[1] && parts[2] === 'v' && parts[3]) return { page: 'batch', mod: batch, params: { id: parts[1], version: parts[3] } };
  if (parts[0] === 'agent-runs' && parts[1]) return { page: 'batch', mod: batch, params: { id: parts[1] } };
  if (parts[0] === 'agent-runs') return { page: 'batches', mod: batches, params: {} };
  return { page: 'overview', mod: overview, params: {} };
}

let flashTimer = null;
/** A short message under the header; kind "ok" or "error". */
export function flash(msg, kind = 'ok') {
  const f = document.getElementById('flash');
  replace(f, msg);
  f.className = `flash flash-${kind}`;
  f.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { f.hidden = true; }, 6000);
}

/** An API error as a box with the message and detail. */
export function errorBox(e) {
  return el('div', { class: 'error-box', role: 'alert' },
    el('strong', {}, e.message || String(e)),
    e.detail ? el('p', {}, e.detail) : null,
    e.status === 401 ? el('p', {}, 'Set the API token in the header.') : null);
}

async function show() {
  for (const fn of current.cleanups) {
    try { fn(); } catch { /* a cleanup must not stop the next page */ }
  }
  if (current.abort) current.abort.abort();
  const gen = current.gen + 1;
  const abort = new AbortController();
  current = { gen, cleanups: [], abort };
  const r = route(location.hash);
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.route === r.page || ((r.page === 'run' || r.page === 'trace') && a.dataset.route === 'runs') || ((r.page === 'batch' || r.page === 'compare') && a.dataset.route === 'batches'));
  }
  view.dataset.page = r.page;
  view.dataset.state = 'loading';
  replace(view, el('p', { class: 'muted' }, 'Loading…'));
  const ctx = {
    signal: abort.signal,
    live: () => current.gen === gen,
    onCleanup: (fn) => current.cleanups.push(fn),
    flash,
    errorBox,
    refresh: () => show(),
    alertCount: () => refreshAlertCount(),
  };
  try {
    await r.mod.render(view, r.params, ctx);
    if (current.gen === gen) view.dataset.state = 'ready';
  } catch (e) {
    if (current.gen !== gen || e.name === 'AbortError') return;
    replace(view, errorBox(e));
    view.dataset.state = 'error';
  }
}

function initToken() {
  const input = document.getElementById('token');
  const state = document.getElementById('token-state');
  const paint = () => {
    state.textContent = getToken() ? 'set' : 'not set';
    state.className = `token-state ${getToken() ? 'token-set' : 'token-unset'}`;
  };
  input.value = getToken();
  input.addEventListener('change', () => { setToken(input.value.trim()); paint(); });
  document.getElementById('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    setToken(input.value.trim());
    paint();
    flash('token saved');
  });
  paint();
}

/** The number of unacknowledged alerts next to "Alerts"; refreshed on every page change. */
export async function refreshAlertCount() {
  const n = document.getElementById('alert-count');
  try {
    const data = await api('GET', '/api/alerts');
    const open = (data.alerts || []).filter((a) => !a.acked).length;
    n.textContent = String(open);
    n.hidden = open === 0;
  } catch {
    n.hidden = true;
  }
}

initToken();
window.addEventListener('hashchange', () => { show(); refreshAlertCount(); });
show();
refreshAlertCount();
