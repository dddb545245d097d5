// runs.js — the runs page: the newest runs (GET /api/runs?limit=N) with status colours, scores
// and links to the run view and the task; a status filter.

import { el, badge, scoreBar, fmtTime, fmtAgo, fmtDuration, runHref, taskHref, token } from './dom.js';
import { api } from './api.js';

const LIMIT = 200;
let statusFilter = '';

export async function render(view, _params, ctx) {
  const data = await api('GET', `/api/runs?limit=${LIMIT}`, undefined, { signal: ctx.signal });
  const runs = Array.isArray(data.runs) ? data.runs : [];
  const statuses = [...new Set(runs.map((r) => token(r.status)))].sort();
  const tbody = el('tbody');
  const sel = el('select', { id: 'filter-run-status', 'aria-label': 'status' },
    el('option', { value: '' }, 'all statuses'), statuses.map((s) => el('option', { value: s }, s)));
  const count = el('span', { class: 'muted' });
  function paint() {
    const rows = runs.filter((r) => !statusFilter || token(r.status) === statusFilter);
    tbody.replaceChildren(...rows.map((r) => el('tr', { 'data-run': r.id, 'data-status': token(r.status), class: `row-${token(r.status)}` },
      el('td', { class: 'mono' }, el('a', { href: runHref(r.id), class: 'run-link' }, r.id)),
      el('td', { class: 'mono' }, el('a', { href: taskHref(r.task) }, r.task ?? '')),
      el('td', {}, r.kind ?? ''),
      el('td', {}, badge(r.status)),
      el('td', { class: 'num' }, r.steps ?? '—'),
      el('td', { class: 'num' }, `${r.reached ?? '?'}/${r.total ?? '?'}`),
      el('td', { class: 'num' }, scoreBar(r.score)),
      el('td', { class: 'num' }, typeof r.efficiency === 'number' ? r.efficiency.toFixed(2) : '—'),
      el('td', { title: fmtTime(r.started) }, fmtTime(r.started), el('span', { class: 'muted small' }, ` ${fmtAgo(r.started)}`)),
      el('td', { class: 'num' }, r.ended ? fmtDuration(r.started, r.ended) : 'running'))));
    if (!rows.length) tbody.append(el('tr', { class: 'empty' }, el('td', { colspan: 10 }, 'no runs')));
    count.textContent = `${rows.length} of ${runs.length} runs`;
  }
  if (statuses.includes(statusFilter)) sel.value = statusFilter; else statusFilter = '';
  sel.addEventListener('change', () => { statusFilter = sel.value; paint(); });
  const refresh = el('button', { type: 'button', class: 'btn', id: 'runs-refresh' }, 'Refresh');
  refresh.addEventListener('click', () => ctx.refresh());
  view.replaceChildren(
    el('h1', {}, 'Runs'),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, `Newest ${LIMIT}`), el('div', { class: 'filters' }, sel, count, refresh)),
      el('div', { class: 'table-wrap' }, el('table', { id: 'runs-table', class: 'table' },
        el('thead', {}, el('tr', {}, ['run', 'task', 'kind', 'status', 'steps', 'reached', 'score', 'efficiency', 'started', 'duration'].map((h) => el('th', { scope: 'col' }, h)))),
        tbody))));
  paint();
}
