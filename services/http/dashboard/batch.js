// batch.js — the agent batch page, #/agent-runs/<id>: a batch of agent attempts run as worker jobs
// (POST /api/agent-runs). Progress (done / running / queued of the jobs), the batch's metrics over
// executable attempts, their uncertainty (the batch's "stats": each rate with its 95 % bootstrap
// interval, pass@k and pass^k — keynode run's summary.json numbers, computed by the same code), and
// per task its site, success rate and every attempt (state, status, score, the worker that ran it,
// how often it was claimed), filterable by site. Refreshes every 3 s until every job is done.
// the snapshot of its task set the batch pinned, and the batch shown on another snapshot
// (#/agent-runs/<id>/v/<V>: GET /api/agent-runs/<id>?version=V, the attempts that ran another version
// with their rescores, marked "vA→vB"), chosen from the set's snapshots.
// Every string from the API is a text node (el()).

import { el, badge, scoreBar, fmtTime, fmtScore, taskHref } from './dom.js';
import { api } from './api.js';

const REFRESH_MS = 3000;
const filters = { site: '' };

function tile(label, value, cls) {
  return el('div', { class: `tile tile-${cls}` },
    el('span', { class: 'tile-count' }, String(value ?? '—')),
    el('span', { class: 'tile-label' }, label));
}

function rate(x) {
  return typeof x === 'number' && Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '—';
}

function attemptCell(a) {
  const word = a.state === 'done' ? (a.status === 'done' ? (a.completed ? 'success' : 'failed') : (a.status ?? 'unscored')) : a.state;
  const rescored = a.scored_on != null && a.scored_on !== a.task_version;
  const cell = el('div', { class: 'attempt', 'data-attempt': String(a.attempt), 'data-state': word },
    el('span', { class: 'muted small' }, `#${a.attempt} `), badge(word),
    a.state === 'done' ? el('span', {}, ' ', scoreBar(a.score)) : null,
    rescored ? el('span', { class: 'muted small rescored' }, ` v${a.task_version}→v${a.scored_on}`) : null,
    el('span', { class: 'muted small' }, ` ${a.worker ?? ''}${a.claims > 1 ? ` · claimed ${a.claims}×` : ''}`));
  if (a.reason || a.end) cell.title = a.reason || a.end;
  return cell;
}

/** Whose the attempts that are not successes are (metrics.faults: agent, site, infrastructure, judge). */
function faults(f) {
  if (!f || typeof f !== 'object') return null;
  const names = ['agent', 'site', 'infrastructure', 'judge'];
  return el('p', { id: 'batch-faults', class: 'muted' }, 'not a success, by whose it is: ',
    names.map((n, i) => el('span', { 'data-fault': n }, `${i ? ' · ' : ''}${n} ${f[n] ?? 0}`)));
}

function ci(x) {
  return Array.isArray(x) && x.length === 2 ? `[${rate(x[0])}, ${rate(x[1])}]` : '—';
}

// The uncertainty of the batch: each rate with its interval, then pass@k / pass^k for k ≤ repeat.
function uncertainty(st) {
  const rates = st.rates || {};
  const ci95 = st.ci95 || {};
  const planned = (st.denominators || {}).planned || {};
  const rows = Object.keys(rates).filter((r) => r !== 'task_success_rate_planned').map((r) =>
    el('tr', { 'data-rate': r }, el('td', { class: 'mono' }, r), el('td', { class: 'num rate-value' }, rate(rates[r])),
      el('td', { class: 'num rate-ci' }, ci(ci95[r]))));
  if (typeof planned.task_success_rate === 'number') {
    rows.push(el('tr', { 'data-rate': 'task_success_rate_planned' },
      el('td', { class: 'mono' }, `task_success_rate over all ${planned.attempts} planned attempts`),
      el('td', { class: 'num rate-value' }, rate(planned.task_success_rate)), el('td', { class: 'num rate-ci' }, ci(planned.ci95))));
  }
  const ks = Object.keys(st.pass_at_k || {}).sort((x, y) => Number(x) - Number(y));
  const boot = st.bootstrap || {};
  return el('section', { id: 'batch-uncertainty', class: 'card' },
    el('div', { class: 'card-head' }, el('h2', {}, 'Uncertainty'),
      el('span', { class: 'muted small' }, `95 % intervals: bootstrap over ${boot.tasks ?? '?'} tasks, ${boot.resamples ?? '?'} draws, seed ${boot.seed ?? '?'}`)),
    el('div', { class: 'table-wrap' }, el('table', { id: 'batch-rates', class: 'table' },
      el('thead', {}, el('tr', {}, ['rate', 'value', '95 % interval'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.length ? rows : el('tr', { class: 'empty' }, el('td', { colspan: 3 }, 'no executable attempt yet'))))),
    el('div', { class: 'table-wrap' }, el('table', { id: 'batch-pass-k', class: 'table' },
      el('thead', {}, el('tr', {}, ['k', 'pass@k (any of k)', 'pass^k (all of k)', 'tasks'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, ks.map((k) => el('tr', { 'data-k': k }, el('td', { class: 'num' }, k),
        el('td', { class: 'num pass-at-k' }, rate(st.pass_at_k[k])),
        el('td', { class: 'num pass-all-k' }, rate((st.pass_all_k || {})[k])),
        el('td', { class: 'num' }, String((st.pass_k_tasks || {})[k] ?? '—'))))))));
}

// The batch's snapshot and the one its scores are on, with a choice of the set's snapshots.
function snapshotLine(b, snaps, version) {
  if (!b.snapshot) return el('p', { id: 'batch-snapshot', class: 'muted' }, 'no task-set snapshot (tasks of several sets)');
  const sel = el('select', { id: 'batch-scored-on', 'aria-label': 'scores on snapshot' },
    el('option', { value: '' }, `as run (snapshot ${b.snapshot.version})`),
    snaps.map((s) => el('option', { value: String(s.version), selected: String(s.version) === String(version ?? '') }, `on snapshot ${s.version}`)));
  sel.addEventListener('change', () => {
    location.hash = sel.value ? `#/agent-runs/${encodeURIComponent(b.id)}/v/${sel.value}` : `#/agent-runs/${encodeURIComponent(b.id)}`;
  });
  return el('p', { id: 'batch-snapshot', class: 'muted', 'data-snapshot': String(b.snapshot.version),
    'data-scored-on': String(b.scored_on ? b.scored_on.version : b.snapshot.version) },
  `task set ${b.snapshot.taskset} · snapshot ${b.snapshot.version} (${String(b.snapshot.hash).slice(0, 12)}) · `, sel,
  b.scored_on && b.unscored ? ` · ${b.unscored} attempts not rescored on it (POST /api/rescore)` : '');
}

function paint(view, b, snaps = [], version) {
  const m = b.metrics || {};
  const all = Array.isArray(b.tasks) ? b.tasks : [];
  const sites = [...new Set(all.map((t) => t.site).filter(Boolean))].sort();
  if (filters.site && !sites.includes(filters.site)) filters.site = '';
  const tasks = all.filter((t) => !filters.site || t.site === filters.site);
  const siteSel = el('select', { id: 'batch-filter-site', 'aria-label': 'site' },
    el('option', { value: '' }, 'all sites'), sites.map((x) => el('option', { value: x, selected: x === filters.site }, x)));
  siteSel.addEventListener('change', () => { filters.site = siteSel.value; paint(view, b, snaps, version); });
  const pct = b.jobs ? Math.round((100 * (b.done ?? 0)) / b.jobs) : 0;
  const fill = el('span', { class: 'scorebar-fill fill-good' });
  fill.style.width = `${pct}%`;
  view.replaceChildren(
    el('h1', {}, `Agent batch ${b.id}`, el('span', { class: 'muted' }, ` · agent ${b.agent} · ×${b.repeat}`)),
    el('p', { class: 'muted' }, `created ${fmtTime(b.created)}`),
    snapshotLine(b, snaps, version),
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
      tile('unjudged', m.unjudged, 'unjudged'),
      tile('solved in all K', m.tasks_solved_all, 'flaky')),
    faults(m.faults),
    uncertainty(b.stats || {}),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Tasks'),
        el('div', { class: 'filters' }, siteSel, el('span', { id: 'batch-task-count', class: 'muted' }, `${tasks.length} of ${all.length} tasks`))),
      el('div', { class: 'table-wrap' }, el('table', { id: 'batch-tasks', class: 'table' },
        el('thead', {}, el('tr', {}, ['task', 'site', 'success rate', 'attempts'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, tasks.map((t) => el('tr', { 'data-task': t.task, 'data-site': t.site ?? '' },
          el('td', { class: 'mono' }, el('a', { href: taskHref(`${t.taskset}:${t.task}`) }, t.task ?? '')),
          el('td', { class: 'mono task-site' }, t.site ?? '—'),
          el('td', { class: 'num' }, rate(t.success_rate)),
          el('td', {}, (Array.isArray(t.attempts) ? t.attempts : []).map(attemptCell)))))))));
}

export async function render(view, params, ctx) {
  const path = `/api/agent-runs/${encodeURIComponent(params.id)}${params.version ? `?version=${encodeURIComponent(params.version)}` : ''}`;
  const first = await api('GET', path, undefined, { signal: ctx.signal });
  let snaps = [];
  if (first.snapshot) {
    const l = await api('GET', `/api/tasksets/${encodeURIComponent(first.snapshot.taskset)}/snapshots`, undefined, { signal: ctx.signal });
    snaps = Array.isArray(l.snapshots) ? l.snapshots : [];
  }
  paint(view, first, snaps, params.version);
  let timer = null;
  const tick = async () => {
    if (!ctx.live()) return;
    try {
      const b = await api('GET', path, undefined, { signal: ctx.signal });
      if (!ctx.live()) return;
      paint(view, b, snaps, params.version);
      if ((b.done ?? 0) < (b.jobs ?? 0)) timer = setTimeout(tick, REFRESH_MS);
    } catch (e) {
      if (e.name !== 'AbortError' && ctx.live()) timer = setTimeout(tick, REFRESH_MS);
    }
  };
  timer = setTimeout(tick, REFRESH_MS);
  ctx.onCleanup(() => clearTimeout(timer));
}
