// batches.js — the agent batches page, #/agent-runs: the newest batches of agent attempts
// (GET /api/agent-runs, a page at a time, newest first) with their progress and success rate, each
// linking to its batch view (batch.js, #/agent-runs/<id>). "Older" follows the API's next_before.
// "Compare" opens the paired comparison of two batches (compare.js, #/agent-runs/compare/<A>/<B>).
// Every string from the API is a text node (el()).

import { el, fmtTime, fmtAgo } from './dom.js';
import { api } from './api.js';

const LIMIT = 50;

function rate(x) {
  return typeof x === 'number' && Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '—';
}

function row(b) {
  return el('tr', { 'data-batch': String(b.id) },
    el('td', { class: 'mono' }, el('a', { href: `#/agent-runs/${encodeURIComponent(b.id)}`, class: 'batch-link' }, String(b.id))),
    el('td', { class: 'mono' }, b.agent ?? ''),
    el('td', { class: 'num' }, `×${b.repeat ?? '?'}`),
    el('td', { class: 'num batch-done' }, `${b.done ?? 0}/${b.jobs ?? 0}`),
    el('td', { class: 'num' }, `${b.running ?? 0} running · ${b.queued ?? 0} queued`),
    el('td', { class: 'num batch-rate' }, rate(b.success_rate)),
    el('td', { class: 'num' }, `${b.errors ?? 0} errors · ${b.blocked ?? 0} blocked · ${b.unjudged ?? 0} unjudged`),
    el('td', { title: fmtTime(b.created) }, fmtTime(b.created), el('span', { class: 'muted small' }, ` ${fmtAgo(b.created)}`)));
}

export async function render(view, _params, ctx) {
  const tbody = el('tbody');
  const more = el('button', { type: 'button', class: 'btn', id: 'batches-older', hidden: true }, 'Older');
  let next = null;
  async function load(before) {
    const q = before ? `&before=${encodeURIComponent(before)}` : '';
    const data = await api('GET', `/api/agent-runs?limit=${LIMIT}${q}`, undefined, { signal: ctx.signal });
    const batches = Array.isArray(data.batches) ? data.batches : [];
    tbody.append(...batches.map(row));
    next = data.next_before ?? null;
    more.hidden = next === null;
    if (!tbody.children.length) tbody.append(el('tr', { class: 'empty' }, el('td', { colspan: 8 }, 'no agent batches')));
  }
  more.addEventListener('click', () => { if (next !== null) load(next).catch(() => {}); });
  await load(null);
  const ca = el('input', { id: 'compare-a', type: 'text', placeholder: 'batch A (baseline)', 'aria-label': 'batch A' });
  const cb = el('input', { id: 'compare-b', type: 'text', placeholder: 'batch B (change)', 'aria-label': 'batch B' });
  const form = el('form', { id: 'compare-form', class: 'filters' }, ca, cb,
    el('button', { type: 'submit', class: 'btn', id: 'compare-go' }, 'Compare'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const a = ca.value.trim(), b = cb.value.trim();
    if (/^[1-9][0-9]*$/.test(a) && /^[1-9][0-9]*$/.test(b)) location.hash = `#/agent-runs/compare/${a}/${b}`;
    else ctx.flash('give two batch ids (numbers)', 'error');
  });
  view.replaceChildren(
    el('h1', {}, 'Agent runs'),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Compare two batches'),
        el('span', { class: 'muted small' }, 'B against A, paired on the tasks both ran (as keynode compare)')),
      form),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Batches, newest first')),
      el('div', { class: 'table-wrap' }, el('table', { id: 'batches-table', class: 'table' },
        el('thead', {}, el('tr', {}, ['batch', 'agent', 'repeat', 'done', 'in progress', 'success rate', 'excluded', 'created'].map((h) => el('th', { scope: 'col' }, h)))),
        tbody)),
      more));
}
