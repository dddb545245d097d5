// batch.js — the agent batch page, #/agent-runs/<id>: a batch of agent attempts run as worker jobs
// (POST /api/agent-runs). Progress (done / running / queued of the jobs), the batch's metrics over
// executable attempts, and per task its success rate and every attempt (state, status, score, the
// worker that ran it, how often it was claimed). Refreshes every 3 s until every job is done.
// Every string from the API is a text node (el()).

import { el, badge, scoreBar, fmtTime, fmtScore, taskHref } from './dom.js';
import { api } from './api.js';

const REFRESH_MS = 3000;

function tile(label, value, cls) {
  return el('div', { class: `tile tile-${cls}` },
    el('span', { class: 'tile-count' }, String(value ?? '—')),
    el('span', { class: 'tile-label' }, label));
}

function rate(x) {
  return typeof x === 'number' && Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '—';
}

function attemptCell(a) {
  const word = a.state === 'done' ? (a.status === 'done' ? (a.completed ? 'success' : 'failed') : a.status) : a.state;
  const cell = el('div', { class: 'attempt', 'data-attempt': String(a.attempt), 'data-state': word },
    el('span', { class: 'muted small' }, `#${a.attempt} `), badge(word),
    a.state === 'done' ? el('span', {}, ' ', scoreBar(a.score)) : null,
    el('span', { class: 'muted small' }, ` ${a.worker ?? ''}${a.claims > 1 ? ` · claimed ${a.claims}×` : ''}`));
  if (a.reason || a.end) cell.title = a.reason || a.end;
  return cell;
}

function paint(view, b) {
  const m = b.metrics || {};
  const tasks = Array.isArray(b.tasks) ? b.tasks : [];
  const pct = b.jobs ? Math.round((100 * (b.done ?? 0)) / b.jobs) : 0;
  const fill = el('span', { class: 'scorebar-fill fill-good' });
  fill.style.width = `${pct}%`;
  view.replaceChildren(
    el('h1', {}, `Agent batch ${b.id}`, el('span', { class: 'muted' }, ` · agent ${b.agent} · ×${b.repeat}`)),
    el('p', { class: 'muted' }, `created ${fmtTime(b.created)}`),
    el('section', { id: 'batch-progress', class: 'card', 'data-done': String(b.done ?? 0), 'data-jobs': String(b.jobs ?? 0) },
      el('div', { class: 'card-head' }, el('h2', {}, 'Progress'),
        el('span', {}, `${b.done ?? 0} of ${b.jobs ?? 0} attempts done · ${b.running ?? 0} running · ${b.queued ?? 0} queued`)),
      el('span', { class: 'scorebar' }, fill)),
    el('section', { id: 'batch-metrics', class: 'tiles' },
      tile('success rate', rate(m.success_rate), 'healthy'),
      tile('mean score', fmtScore(m.mean_score), 'recovered'),
      tile('executable', m.executable, 'unknown'),
      tile('successes', m.successes, 'healthy'),
      tile('errors', m.errors, 'error'),
      tile('blocked', m.blocked, 'blocked'),
      tile('solved in all K', m.tasks_solved_all, 'flaky')),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Tasks')),
      el('div', { class: 'table-wrap' }, el('table', { id: 'batch-tasks', class: 'table' },
        el('thead', {}, el('tr', {}, ['task', 'success rate', 'attempts'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, tasks.map((t) => el('tr', { 'data-task': t.task },
          el('td', { class: 'mono' }, el('a', { href: taskHref(`${t.taskset}:${t.task}`) }, t.task ?? '')),
          el('td', { class: 'num' }, rate(t.success_rate)),
          el('td', {}, (Array.isArray(t.attempts) ? t.attempts : []).map(attemptCell)))))))));
}

export async function render(view, params, ctx) {
  const path = `/api/agent-runs/${encodeURIComponent(params.id)}`;
  paint(view, await api('GET', path, undefined, { signal: ctx.signal }));
  let timer = null;
  const tick = async () => {
    if (!ctx.live()) return;
    try {
      const b = await api('GET', path, undefined, { signal: ctx.signal });
      if (!ctx.live()) return;
      paint(view, b);
      if ((b.done ?? 0) < (b.jobs ?? 0)) timer = setTimeout(tick, REFRESH_MS);
    } catch (e) {
      if (e.name !== 'AbortError' && ctx.live()) timer = setTimeout(tick, REFRESH_MS);
    }
  };
  timer = setTimeout(tick, REFRESH_MS);
  ctx.onCleanup(() => clearTimeout(timer));
}
