// dom.js — the only way the dashboard builds DOM. Every string becomes a text node; attributes go
// through an allow-list (href/src only to same-origin paths or #routes); there is no innerHTML
// anywhere, so a task intent like "<img src=x onerror=…>" shows as text. Also formatting helpers
// for times, scores and statuses shared by the pages.

const ATTRS = new Set(['id', 'class', 'title', 'type', 'value', 'placeholder', 'for', 'name',
  'colspan', 'role', 'aria-label', 'aria-live', 'aria-hidden', 'disabled', 'alt', 'width', 'height',
  'selected', 'checked', 'hidden', 'loading', 'scope']);

/** A same-origin path or a #route; anything else (javascript:, //host, data:) becomes "#". */
export function safeUrl(v) {
  const s = String(v);
  if (s.startsWith('#')) return s;
  if (s.startsWith('/') && !s.startsWith('//') && !s.startsWith('/\\')) return s;
  return '#';
}

function setAttrs(n, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'on') {
      for (const [ev, fn] of Object.entries(v)) n.addEventListener(ev, fn);
    } else if (k === 'href' || k === 'src') {
      n.setAttribute(k, safeUrl(v));
    } else if (k.startsWith('data-') || ATTRS.has(k)) {
      n.setAttribute(k, v === true ? '' : String(v));
    } else {
      throw new Error(`dom: attribute ${k} not allowed`);
    }
  }
}

function append(n, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined || k === false) continue;
    n.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
}

/** el('td', {class: 'x'}, 'text', childNode, [more]) — strings are text, never markup. */
export function el(tag, attrs, ...kids) {
  const n = document.createElement(tag);
  setAttrs(n, attrs);
  append(n, kids);
  return n;
}

const SVGNS = 'http://www.w3.org/2000/svg';
/** An SVG element; attributes are numbers or fixed strings from our code, children as in el(). */
export function svg(tag, attrs, ...kids) {
  const n = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) n.setAttribute(k, String(v));
  }
  append(n, kids);
  return n;
}

/** Replace every child of n. */
export function replace(n, ...kids) {
  n.replaceChildren();
  append(n, kids);
}

/** "2026-11-22 14:03:07" in local time, or "—". */
export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const p = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** "3 min ago" style, for titles and compact cells. */
export function fmtAgo(iso) {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** Duration between two ISO times, "1.2 s" / "3 min". */
export function fmtDuration(a, b) {
  if (!a || !b) return '—';
  const ms = new Date(b).getTime() - new Date(a).getTime();
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60000)} min`;
}

export function fmtScore(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(2) : '—';
}

/** A status word as a class-safe token ("step_limit" → "step_limit", junk → "other"). */
export function token(s) {
  const t = String(s ?? 'unknown').toLowerCase();
  return /^[a-z_]{1,20}$/.test(t) ? t : 'other';
}

/** A coloured badge: class "badge status-<token>", text as given. */
export function badge(status, kind = 'status') {
  return el('span', { class: `badge ${kind}-${token(status)}`, 'data-status': token(status) },
    status ?? 'unknown');
}

/** A score as a small bar plus the number. */
export function scoreBar(x) {
  const ok = typeof x === 'number' && Number.isFinite(x);
  const pct = ok ? Math.max(0, Math.min(1, x)) * 100 : 0;
  const bar = el('span', { class: 'scorebar-fill' });
  bar.style.width = `${pct}%`;
  bar.classList.add(pct >= 99.5 ? 'fill-good' : pct >= 50 ? 'fill-mid' : 'fill-bad');
  return el('span', { class: 'score' }, el('span', { class: 'scorebar' }, bar),
    el('span', { class: 'score-num' }, fmtScore(x)));
}

/** #/tasks/<id> for a task reference. */
export const taskHref = (id) => `#/tasks/${encodeURIComponent(id)}`;
export const runHref = (id) => `#/runs/${encodeURIComponent(id)}`;
