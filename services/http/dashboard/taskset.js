// taskset.js — #/tasksets/NAME[/d/DAYS]: a task set's health over time from
// GET /api/tasksets/{name}/health — the share of its tasks validated within DAYS days (default 7),
// breaks per month (bars), the detection time of each break, and the survival curve of its tasks'
// validity (Kaplan-Meier steps, docs/maintain.md). Hand-written SVG like charts.js; labels are text.

import { el, svg, fmtTime } from './dom.js';
import { api, seg } from './api.js';

const DAY = 86400;

/** A duration in seconds as "3.2 d", "5.0 h", "12 min" or "40 s". */
export function fmtSpan(s) {
  if (s === null || s === undefined) return '—';
  if (s >= DAY) return `${(s / DAY).toFixed(1)} d`;
  if (s >= 3600) return `${(s / 3600).toFixed(1)} h`;
  if (s >= 60) return `${Math.round(s / 60)} min`;
  return `${Math.round(s)} s`;
}

/** months: [{month, breaks}] → one bar per month. */
export function breaksChart(months) {
  const W = 560, H = 200, L = 36, R = 8, T = 12, B = 28;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': 'breaks per month' });
  const ih = H - T - B, iw = W - L - R;
  const top = Math.max(1, ...months.map((m) => m.breaks));
  for (const v of top % 2 ? [0, top] : [0, top / 2, top]) { // whole breaks only
    const y = T + ih * (1 - v / top);
    root.append(svg('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }),
      svg('text', { x: L - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, String(v)));
  }
  const bw = iw / Math.max(months.length, 1);
  months.forEach((m, i) => {
    const x = L + i * bw;
    const h = (m.breaks / top) * ih;
    const w = Math.min(bw * 0.7, 48);
    const g = svg('g', { class: 'month', 'data-month': m.month, 'data-breaks': m.breaks });
    if (m.breaks) g.append(svg('rect', { x: x + (bw - w) / 2, y: T + ih - h, width: w, height: h, class: 'bar bad' }));
    g.append(svg('title', {}, `${m.month}: ${m.breaks} break${m.breaks === 1 ? '' : 's'}`));
    root.append(g);
    if (months.length <= 8 || i === 0 || i === months.length - 1 || i === Math.floor(months.length / 2)) {
      root.append(svg('text', { x: x + bw / 2, y: H - 10, class: 'axis', 'text-anchor': 'middle' }, m.month));
    }
  });
  return root;
}

/** surv: the API's survival object → S(t) as steps over days, censored intervals as ticks. */
export function survivalChart(surv) {
  const W = 560, H = 200, L = 36, R = 12, T = 12, B = 28;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img',
    'aria-label': 'share of tasks still valid by days since their first pass' });
  const ih = H - T - B, iw = W - L - R;
  for (const v of [0, 0.5, 1]) {
    const y = T + ih * (1 - v);
    root.append(svg('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }),
      svg('text', { x: L - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, `${v * 100}%`));
  }
  const curve = surv.curve || [];
  if (!curve.length) {
    root.append(svg('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle' }, 'no task has passed yet'));
    return root;
  }
  const tmax = Math.max(curve[curve.length - 1].t_s, 1);
  const px = (t) => L + iw * (t / tmax);
  const py = (s) => T + ih * (1 - s);
  let d = `M ${px(0)} ${py(1)}`;
  let prev = 1;
  for (const c of curve) {
    d += ` H ${px(c.t_s)} V ${py(c.survival)}`;
    const g = svg('g', { class: 'km-step', 'data-t': c.t_s, 'data-survival': c.survival, 'data-ended': c.ended,
      'data-censored': c.censored, 'data-at-risk': c.at_risk });
    if (c.censored) g.append(svg('line', { x1: px(c.t_s), x2: px(c.t_s), y1: py(c.survival) - 5, y2: py(c.survival) + 5, class: 'line' }));
    g.append(svg('title', {}, `${fmtSpan(c.t_s)}: ${c.ended} broke, ${c.censored} still valid of ${c.at_risk}; ${Math.round(prev * 100)}% → ${Math.round(c.survival * 100)}%`));
    root.append(g);
    prev = c.survival;
  }
  root.prepend(svg('path', { d, class: 'line' }));
  root.append(svg('text', { x: L, y: H - 10, class: 'axis' }, '0'),
    svg('text', { x: L + iw / 2, y: H - 10, class: 'axis', 'text-anchor': 'middle' }, `${fmtSpan(tmax / 2)} since the first pass`),
    svg('text', { x: W - R, y: H - 10, class: 'axis', 'text-anchor': 'end' }, fmtSpan(tmax)));
  return root;
}

/** The window of the validated share: choosing one goes to #/tasksets/NAME/d/DAYS. */
function daysPicker(set, days) {
  const choices = [...new Set([1, 7, 30, 90, Number(days)])].sort((a, b) => a - b);
  return el('label', { for: 'taskset-days' }, 'window ',
    el('select', { id: 'taskset-days', on: { change: (ev) => {
      location.hash = `#/tasksets/${encodeURIComponent(set)}/d/${ev.target.value}`;
    } } }, choices.map((d) => el('option', { value: d, selected: d === Number(days) }, `${d} day${d === 1 ? '' : 's'}`))));
}

function breakRow(set, b) {
  return el('tr', { 'data-task': b.task, 'data-detection': b.detection_s ?? '' },
    el('td', { class: 'mono' }, el('a', { href: `#/tasks/${encodeURIComponent(`${set}:${b.task}`)}` }, b.task)),
    el('td', {}, fmtTime(b.last_pass)), el('td', {}, fmtTime(b.at)),
    el('td', { class: 'detection' }, fmtSpan(b.detection_s)));
}

export async function render(view, params, ctx) {
  const days = params.days || 7;
  const h = await api('GET', `/api/tasksets/${seg(params.name)}/health?days=${seg(days)}`, undefined, { signal: ctx.signal });
  if (!ctx.live()) return;
  const det = h.detection || {};
  const surv = h.survival || {};
  view.replaceChildren(
    el('div', { class: 'page-head' }, el('h1', { id: 'taskset-name', class: 'mono' }, h.taskset)),
    el('section', { class: 'card' },
      el('div', { class: 'actions' }, daysPicker(h.taskset, h.days)),
      el('p', { id: 'taskset-statement', 'data-validated': h.validated, 'data-tasks': h.tasks, 'data-days': h.days }, h.statement),
      el('dl', { class: 'facts' },
        el('dt', {}, 'breaks'), el('dd', { id: 'taskset-breaks-total' }, String(h.breaks_total)),
        el('dt', {}, 'detection time'), el('dd', { id: 'taskset-detection', 'data-count': det.count, 'data-median': det.median_s ?? '' },
          det.count ? `median ${fmtSpan(det.median_s)}, mean ${fmtSpan(det.mean_s)}, longest ${fmtSpan(det.max_s)} over ${det.count} breaks` : 'no break with a passing replay before it'),
        el('dt', {}, 'validity'), el('dd', { id: 'taskset-survival-median' },
          surv.median_s !== null && surv.median_s !== undefined ? `half the tasks broke within ${fmtSpan(surv.median_s)}`
            : `${surv.intervals ?? 0} tasks tracked, ${surv.ended ?? 0} broke: median not reached`))),
    el('div', { class: 'charts' },
      el('section', { class: 'card', id: 'chart-breaks' }, el('h2', {}, 'Breaks per month'), breaksChart(h.breaks_per_month || [])),
      el('section', { class: 'card', id: 'chart-survival' }, el('h2', {}, 'Tasks still valid (Kaplan–Meier)'), survivalChart(surv))),
    el('section', { class: 'card' }, el('h2', {}, 'Breaks'),
      el('table', { id: 'taskset-breaks' },
        el('thead', {}, el('tr', {}, ['task', 'last pass', 'broken alert', 'detection time'].map((t) => el('th', { scope: 'col' }, t)))),
        el('tbody', {}, (h.breaks || []).slice().reverse().map((b) => breakRow(h.taskset, b))))));
}
