// charts.js — the two hand-written SVG charts of the overview: run success rate over time (runs
// bucketed by a step chosen from their time span) and key-node completion by function type
// (horizontal bars). Pure functions of their data returning an <svg>; labels are text nodes.

import { svg } from './dom.js';

const STEPS = [60e3, 5 * 60e3, 15 * 60e3, 3600e3, 6 * 3600e3, 86400e3, 7 * 86400e3];
const MAX_BUCKETS = 24;

/** Group runs into time buckets: [{start, n, ok, scoreSum}] oldest first. */
export function bucketRuns(runs) {
  const pts = runs
    .map((r) => ({ t: new Date(r.started || r.ended).getTime(), r }))
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t);
  if (!pts.length) return { step: 0, buckets: [] };
  const span = pts[pts.length - 1].t - pts[0].t;
  const step = STEPS.find((s) => span / s < MAX_BUCKETS) || STEPS[STEPS.length - 1];
  const first = Math.floor(pts[0].t / step) * step;
  const buckets = new Map();
  for (const { t, r } of pts) {
    const k = Math.floor(t / step) * step;
    if (!buckets.has(k)) buckets.set(k, { start: k, n: 0, ok: 0, scoreSum: 0 });
    const b = buckets.get(k);
    b.n++;
    if (r.status === 'finished' || r.completion === true) b.ok++;
    if (typeof r.score === 'number') b.scoreSum += r.score;
  }
  const out = [];
  const last = Math.floor(pts[pts.length - 1].t / step) * step;
  for (let k = first; k <= last && out.length < MAX_BUCKETS * 2; k += step) {
    out.push(buckets.get(k) || { start: k, n: 0, ok: 0, scoreSum: 0 });
  }
  return { step, buckets: out };
}

function label(ms, step) {
  const d = new Date(ms);
  const p = (x) => String(x).padStart(2, '0');
  if (step >= 86400e3) return `${d.getMonth() + 1}/${d.getDate()}`;
  return `${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Bars: share of finished runs per bucket (height), mean score (dot). */
export function successChart(runs) {
  const W = 560, H = 200, L = 36, R = 8, T = 12, B = 28;
  const { step, buckets } = bucketRuns(runs);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img',
    'aria-label': 'run success rate over time' });
  const ih = H - T - B, iw = W - L - R;
  for (const v of [0, 0.5, 1]) {
    const y = T + ih * (1 - v);
    root.append(svg('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }),
      svg('text', { x: L - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, `${v * 100}%`));
  }
  if (!buckets.length) {
    root.append(svg('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle' }, 'no runs yet'));
    return root;
  }
  const bw = iw / buckets.length;
  buckets.forEach((b, i) => {
    const x = L + i * bw;
    const g = svg('g', { class: 'bucket', 'data-n': b.n, 'data-ok': b.ok });
    if (b.n) {
      const rate = b.ok / b.n;
      const h = Math.max(rate * ih, 2);
      const w = Math.min(bw * 0.7, 48);
      g.append(svg('rect', { x: x + (bw - w) / 2, y: T + ih - h, width: w, height: h,
        class: rate >= 0.995 ? 'bar good' : rate >= 0.5 ? 'bar mid' : 'bar bad' }));
      const mean = b.scoreSum / b.n;
      g.append(svg('circle', { cx: x + bw / 2, cy: T + ih * (1 - mean), r: 3, class: 'dot' }));
      g.append(svg('title', {}, `${label(b.start, step)}: ${b.ok}/${b.n} finished, mean score ${mean.toFixed(2)}`));
    }
    root.append(g);
    if (i === 0 || i === buckets.length - 1 || (buckets.length > 6 && i === Math.floor(buckets.length / 2))) {
      root.append(svg('text', { x: x + bw / 2, y: H - 10, class: 'axis', 'text-anchor': 'middle' },
        label(b.start, step)));
    }
  });
  return root;
}

/** rows: [{fn, reached, total}] → horizontal bars of reached/total per function. */
export function functionChart(rows) {
  const W = 560, row = 26, L = 190, R = 70, T = 6;
  const H = Math.max(rows.length * row + T * 2, 60);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img',
    'aria-label': 'key-node completion by function type' });
  if (!rows.length) {
    root.append(svg('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle' }, 'no key-node results yet'));
    return root;
  }
  const iw = W - L - R;
  rows.forEach((r, i) => {
    const y = T + i * row;
    const rate = r.total ? r.reached / r.total : 0;
    const g = svg('g', { class: 'fnrow', 'data-function': r.fn, 'data-reached': r.reached, 'data-total': r.total });
    g.append(svg('text', { x: L - 8, y: y + 17, class: 'axis fnname', 'text-anchor': 'end' }, r.fn),
      svg('rect', { x: L, y: y + 5, width: iw, height: 16, class: 'track' }),
      svg('rect', { x: L, y: y + 5, width: Math.max(iw * rate, 1), height: 16,
        class: rate >= 0.995 ? 'bar good' : rate >= 0.5 ? 'bar mid' : 'bar bad' }),
      svg('text', { x: L + iw + 6, y: y + 17, class: 'axis' }, `${r.reached}/${r.total}`),
      svg('title', {}, `${r.fn}: ${r.reached} of ${r.total} reached (${Math.round(rate * 100)}%)`));
    root.append(g);
  });
  return root;
}
