// compare.js — the paired comparison of two agent batches, #/agent-runs/compare/<A>/<B>
// (GET /api/agent-runs/compare?a=A&b=B: keynode compare's own comparison, services/runner/compare.c):
// B (the change) against A (the baseline) on the tasks both ran — each rate's difference with its
// paired-bootstrap 95 % interval, the exact sign test's verdict, every paired task's success in A
// and in B and whether B won, lost or tied it, the tasks only one ran, and the warnings.
// Every string from the API is a text node (el()).

import { el, taskHref } from './dom.js';
import { api } from './api.js';

function pct(x) {
  return typeof x === 'number' && Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '—';
}

function signed(x) {
  return typeof x === 'number' && Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)} pp` : '—';
}

function side(label, s) {
  return el('li', { id: `compare-side-${label.toLowerCase()}` }, el('strong', {}, `${label}: `),
    el('a', { href: `#/agent-runs/${encodeURIComponent(s.batch ?? '')}` }, `batch ${s.batch ?? '?'}`),
    ` · agent ${s.name ?? s.agent ?? 'unknown'} · ×${s.repeat ?? '?'} · ${s.tasks ?? '?'} tasks`);
}

// why: the answer's left_out reasons by task, shown after each task
function list(id, title, items, why) {
  const a = Array.isArray(items) ? items : [];
  if (!a.length) return null;
  return el('div', { class: 'card' }, el('h2', {}, `${title} (${a.length})`),
    el('ul', { id }, a.map((t) => el('li', { class: 'mono' }, String(t),
      why && why.get(t) ? el('span', { class: 'muted small left-out-why' }, ` — ${why.get(t)}`) : null))));
}

export async function render(view, params, ctx) {
  const q = `a=${encodeURIComponent(params.a)}&b=${encodeURIComponent(params.b)}`;
  const c = await api('GET', `/api/agent-runs/compare?${q}`, undefined, { signal: ctx.signal });
  const rates = c.rates || {};
  const s = c.sign_test || {};
  const per = Array.isArray(c.per_task) ? c.per_task : [];
  const warnings = Array.isArray(c.warnings) ? c.warnings : [];
  const why = new Map((Array.isArray(c.left_out) ? c.left_out : []).map((x) => [x.task, x.why]));
  view.replaceChildren(
    el('h1', {}, `Batch ${c.b?.batch ?? params.b} against batch ${c.a?.batch ?? params.a}`),
    el('ul', { class: 'compare-sides' }, side('A', c.a || {}), side('B', c.b || {})),
    el('p', { id: 'compare-verdict', class: c.significant ? 'verdict verdict-significant' : 'verdict',
      'data-significant': String(!!c.significant), 'data-won': String(s.won ?? 0), 'data-lost': String(s.lost ?? 0) },
    c.verdict ?? ''),
    el('p', { class: 'muted' }, `${c.paired ?? 0} paired tasks (same task, same key nodes) · B won ${s.won ?? 0}, lost ${s.lost ?? 0}, tied ${s.tied ?? 0} · exact sign test p = ${typeof s.p_value === 'number' ? s.p_value.toPrecision(4) : '—'}`),
    warnings.length ? el('ul', { id: 'compare-warnings', class: 'warnings' }, warnings.map((w) => el('li', {}, String(w)))) : null,
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Rates'),
        el('span', { class: 'muted small' }, '95 % interval of B − A: paired bootstrap over tasks')),
      el('div', { class: 'table-wrap' }, el('table', { id: 'compare-rates', class: 'table' },
        el('thead', {}, el('tr', {}, ['rate', 'A', 'B', 'B − A', '95 % interval'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, Object.entries(rates).map(([k, r]) => el('tr', { 'data-rate': k },
          el('td', { class: 'mono' }, k), el('td', { class: 'num' }, pct(r.a)), el('td', { class: 'num' }, pct(r.b)),
          el('td', { class: 'num rate-diff' }, signed(r.diff)),
          el('td', { class: 'num rate-ci' }, Array.isArray(r.ci95) ? `[${signed(r.ci95[0])}, ${signed(r.ci95[1])}]` : '—'))))))),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Per task')),
      el('div', { class: 'table-wrap' }, el('table', { id: 'compare-tasks', class: 'table' },
        el('thead', {}, el('tr', {}, ['task', 'site', 'A success', 'B success', 'outcome'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, per.length ? per.map((t) => el('tr', { 'data-task': t.task ?? '', 'data-outcome': t.outcome ?? '' },
          el('td', { class: 'mono' }, el('a', { href: taskHref(t.task ?? '') }, t.task ?? '')),
          el('td', { class: 'mono' }, t.site && t.site !== '-' ? t.site : '—'),
          el('td', { class: 'num' }, `${pct(t.a?.success_rate)} (${t.a?.successes ?? 0}/${t.a?.attempts ?? 0})`),
          el('td', { class: 'num' }, `${pct(t.b?.success_rate)} (${t.b?.successes ?? 0}/${t.b?.attempts ?? 0})`),
          el('td', { class: `outcome outcome-${String(t.outcome ?? '').replace(/[^a-z]/g, '')}` }, t.outcome ?? '')))
          : el('tr', { class: 'empty' }, el('td', { colspan: 5 }, 'no task in common')))))),
    list('compare-only-a', 'Only in A (left out)', c.only_a),
    list('compare-only-b', 'Only in B (left out)', c.only_b),
    list('compare-changed', 'Key nodes changed (left out)', c.changed, why));
}
