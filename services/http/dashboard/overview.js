// overview.js — the overview page: health tiles, the task list filterable by site and status, the
// run success-rate chart (GET /api/runs) and key-node completion by function type (the key_nodes
// of each task's last run, GET /api/runs/{id}, at most FN_RUNS of them, FN_PARALLEL at a time).

import { el, badge, scoreBar, fmtTime, fmtAgo, taskHref, runHref, token } from './dom.js';
import { api, seg } from './api.js';
import { successChart, functionChart } from './charts.js';

export const HEALTH = ['healthy', 'flaky', 'broken', 'recovered', 'error', 'blocked', 'unknown'];
const FN_RUNS = 60;
const FN_PARALLEL = 4;

const filters = { site: '', status: '' };

async function functionRows(tasks, signal) {
  const ids = tasks.map((t) => t.last_run && t.last_run.id).filter(Boolean).slice(0, FN_RUNS);
  const byFn = new Map();
  let i = 0;
  async function worker() {
    while (i < ids.length) {
      const id = ids[i++];
      let r;
      try { r = await api('GET', `/api/runs/${seg(id)}`, undefined, { signal }); } catch (e) {
        if (e.name === 'AbortError') throw e;
        continue; // one missing run does not hide the chart
      }
      for (const k of r.key_nodes || []) {
        const fn = typeof k.function === 'string' && k.function ? k.function : 'unknown';
        if (!byFn.has(fn)) byFn.set(fn, { fn, reached: 0, total: 0 });
        const row = byFn.get(fn);
        row.total++;
        if ((typeof k.score === 'number' && k.score > 0) || k.reached_at_step) row.reached++;
      }
    }
  }
  await Promise.all(Array.from({ length: FN_PARALLEL }, worker));
  return [...byFn.values()].sort((a, b) => b.total - a.total || a.fn.localeCompare(b.fn));
}

function tiles(tasks) {
  const counts = Object.fromEntries(HEALTH.map((h) => [h, 0]));
  for (const t of tasks) counts[HEALTH.includes(t.health) ? t.health : 'unknown']++;
  return el('section', { id: 'tiles', class: 'tiles' }, HEALTH.map((h) => {
    const tile = el('button', { type: 'button', class: `tile tile-${h}`, 'data-status': h,
      title: `show only ${h} tasks` },
    el('span', { class: 'tile-count' }, String(counts[h])),
    el('span', { class: 'tile-label' }, h));
    tile.classList.toggle('selected', filters.status === h);
    return tile;
  }));
}

function taskRow(t) {
  const lr = t.last_run;
  return el('tr', { 'data-task': t.id, 'data-site': t.site ?? '', 'data-health': token(t.health) },
    el('td', { class: 'mono' }, el('a', { href: taskHref(t.id), class: 'task-link' }, t.id)),
    el('td', { class: 'muted' }, t.taskset ? el('a', { href: `#/tasksets/${encodeURIComponent(t.taskset)}`, class: 'taskset-link' }, t.taskset) : '—'),
    el('td', { class: 'mono' }, t.site ?? '—'),
    el('td', { class: 'task-intent' }, t.intent ?? ''),
    el('td', {}, badge(t.health || 'unknown', 'health')),
    el('td', { class: 'num' }, lr ? el('a', { href: runHref(lr.id), title: `${lr.status} ${fmtTime(lr.started)}` }, scoreBar(lr.score)) : el('span', { class: 'muted' }, 'never run')),
    el('td', { class: 'muted', title: lr ? fmtTime(lr.started) : '' }, lr ? fmtAgo(lr.started) : ''));
}

export async function render(view, _params, ctx) {
  const [taskData, runData] = await Promise.all([
    api('GET', '/api/tasks', undefined, { signal: ctx.signal }),
    api('GET', '/api/runs?limit=500', undefined, { signal: ctx.signal }),
  ]);
  const tasks = Array.isArray(taskData.tasks) ? taskData.tasks : [];
  const runs = Array.isArray(runData.runs) ? runData.runs : [];
  const sites = [...new Set(tasks.map((t) => t.site).filter(Boolean))].sort();
  if (filters.site && !sites.includes(filters.site)) filters.site = '';

  const tbody = el('tbody');
  const shown = el('span', { id: 'task-count', class: 'muted' });
  const tileBox = el('div');
  const siteSel = el('select', { id: 'filter-site', 'aria-label': 'site' },
    el('option', { value: '' }, 'all sites'), sites.map((s) => el('option', { value: s, selected: s === filters.site }, s)));
  const statusSel = el('select', { id: 'filter-status', 'aria-label': 'status' },
    el('option', { value: '' }, 'all states'), HEALTH.map((h) => el('option', { value: h, selected: h === filters.status }, h)));

  function paint() {
    const rows = tasks.filter((t) => (!filters.site || t.site === filters.site) &&
      (!filters.status || (HEALTH.includes(t.health) ? t.health : 'unknown') === filters.status));
    tbody.replaceChildren(...rows.map(taskRow));
    if (!rows.length) tbody.append(el('tr', { class: 'empty' }, el('td', { colspan: 7 }, tasks.length ? 'no task matches the filter' : 'no tasks loaded yet — POST a task file to /api/tasksets')));
    shown.textContent = `${rows.length} of ${tasks.length} tasks`;
    tileBox.replaceChildren(tiles(tasks));
    siteSel.value = filters.site;
    statusSel.value = filters.status;
  }
  siteSel.addEventListener('change', () => { filters.site = siteSel.value; paint(); });
  statusSel.addEventListener('change', () => { filters.status = statusSel.value; paint(); });
  tileBox.addEventListener('click', (ev) => {
    const t = ev.target.closest('.tile');
    if (!t) return;
    filters.status = filters.status === t.dataset.status ? '' : t.dataset.status;
    paint();
  });

  const fnBox = el('div', { id: 'chart-functions', class: 'chart-box', 'data-state': 'loading' }, el('p', { class: 'muted' }, 'Loading…'));
  const finished = runs.filter((r) => r.status === 'finished').length;
  view.replaceChildren(
    el('h1', {}, 'Overview'),
    tileBox,
    el('section', { class: 'charts' },
      el('div', { class: 'card' },
        el('h2', {}, 'Run success rate'),
        el('p', { class: 'muted small' }, `${runs.length} runs, ${finished} finished — bars: share finished, dots: mean score`),
        el('div', { id: 'chart-success', class: 'chart-box' }, successChart(runs))),
      el('div', { class: 'card' },
        el('h2', {}, 'Key-node completion by function'),
        el('p', { class: 'muted small' }, 'reached / total over each task\'s last run'),
        fnBox)),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Tasks'),
        el('div', { class: 'filters' }, siteSel, statusSel, shown)),
      el('div', { class: 'table-wrap' },
        el('table', { id: 'task-table', class: 'table' },
          el('thead', {}, el('tr', {}, ['id', 'taskset', 'site', 'intent', 'health', 'last score', 'last run'].map((h) => el('th', { scope: 'col' }, h)))),
          tbody))));
  paint();

  // the function chart needs one request per run: the page is usable before it arrives
  try {
    const rows = await functionRows(tasks, ctx.signal);
    if (!ctx.live()) return;
    fnBox.replaceChildren(functionChart(rows));
    fnBox.dataset.state = 'ready';
  } catch (e) {
    if (e.name === 'AbortError') return;
    fnBox.replaceChildren(ctx.errorBox(e));
    fnBox.dataset.state = 'error';
  }
}
