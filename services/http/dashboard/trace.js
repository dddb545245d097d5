// trace.js — a run's trace: GET /api/runs/{id}/trace is the trace index (services/trace,
// schemas/trace.schema.json) with one paragraph per key node. The page shows the agent's answer, the
// key-node evidence ("size not reached: at step 4 the selector `#size` resolved to nothing; …"), a film
// strip of the steps' screenshots (GET /api/runs/{id}/trace-shot?step=N) and the selected step's details:
// page, HTTP status, title, the screenshot with the acted-on element's box drawn on it, the DOM excerpt,
// console errors, failed requests and every key-node check with the input it saw. The whole trace is one
// download (GET /api/runs/{id}/trace.tar). Everything from the trace — titles, answers, DOM, console text —
// is untrusted and goes in as text (dom.js), never as markup.

import { el, badge, fmtScore, fmtTime, runHref, taskHref } from './dom.js';
import { api, seg } from './api.js';

const str = (v) => (v === null || v === undefined ? '' : String(v));

function shotUrl(id, step) {
  return `/api/runs/${seg(id)}/trace-shot?step=${encodeURIComponent(String(step))}`;
}

function evidenceList(nodes) {
  return el('ul', { id: 'trace-evidence', class: 'trace-evidence' }, nodes.map((k) =>
    el('li', { class: `tkn${k.reached_at_step !== null && k.reached_at_step !== undefined ? ' reached' : ''}`, 'data-node': str(k.id) },
      el('span', { class: 'kn-mark', 'aria-hidden': 'true' }, k.reached_at_step !== null && k.reached_at_step !== undefined ? '✓' : '✗'),
      el('span', { class: 'tkn-summary' }, str(k.summary) || str(k.id)))));
}

function stepLabel(s) {
  const what = s.type === 'answer' ? 'answer' : s.selector ? `${s.type} ${s.selector}` : s.type;
  return `${s.step}. ${what}`;
}

function list(title, id, items, fmt) {
  if (!items || !items.length) return null;
  return el('div', { class: 'trace-list', id },
    el('h3', {}, `${title} (${items.length})`),
    el('ul', {}, items.map((x) => el('li', { class: 'mono' }, fmt(x)))));
}

/** The selected step: screenshot with the element's box, facts, DOM excerpt, console, network, checks. */
function stepDetail(id, s, scale) {
  const facts = el('dl', { class: 'facts' },
    el('dt', {}, 'step'), el('dd', {}, `${s.step} — ${str(s.type)}${s.how ? ` (${s.how})` : ''}`),
    s.selector ? [el('dt', {}, 'element'), el('dd', { class: 'mono' }, str(s.selector))] : null,
    s.value !== undefined ? [el('dt', {}, 'value'), el('dd', { class: 'mono' }, str(s.value))] : null,
    el('dt', {}, 'page'), el('dd', { class: 'mono', id: 'trace-step-url' }, str(s.page_url ?? s.url) || '—'),
    el('dt', {}, 'title'), el('dd', { id: 'trace-step-title' }, str(s.title) || '—'),
    el('dt', {}, 'HTTP'), el('dd', {}, s.status !== undefined ? String(s.status) : '—'));
  let shot;
  if (s.screenshot) {
    const img = el('img', { class: 'trace-shot', alt: `screenshot of step ${s.step}`, src: shotUrl(id, s.step) });
    const frame = el('div', { class: 'trace-shot-frame' }, img);
    const box = s.element && s.element.box;
    if (box && typeof box.x === 'number' && s.screenshot_when !== 'after load' && s.screenshot_new_page !== true) {
      const mark = el('div', { class: 'trace-box', title: 'the acted-on element' });
      mark.style.left = `${box.x * scale}px`;
      mark.style.top = `${box.y * scale}px`;
      mark.style.width = `${Math.max(2, box.width * scale)}px`;
      mark.style.height = `${Math.max(2, box.height * scale)}px`;
      frame.append(mark);
    }
    shot = el('figure', { class: 'trace-figure' }, frame,
      s.screenshot_when ? el('figcaption', { class: 'muted' }, `taken ${s.screenshot_when}`) : null);
  } else {
    shot = el('p', { class: 'muted' }, `no screenshot: ${str(s.screenshot_skipped || s.screenshot_error) || 'none was taken'}`);
  }
  const dom = s.element && s.element.dom
    ? el('div', { class: 'trace-list' }, el('h3', {}, 'DOM around the element'), el('pre', { class: 'trace-dom', id: 'trace-step-dom' }, str(s.element.dom)))
    : s.element && s.element.found === false ? el('p', { class: 'muted' }, 'the element was not found in the page just after the action') : null;
  const checks = list('key-node checks', 'trace-step-checks', s.evidence, (x) =>
    `${str(x.node)} ${str(x.matcher)}: ${str(x.why)}${x.input !== null && x.input !== undefined ? ` — saw "${str(x.input)}"` : ''} (score ${fmtScore(x.score)})`);
  const sels = list('key-node selectors in the page', 'trace-step-selectors', s.selectors, (x) =>
    `${str(x.node)} ${str(x.selector)}: ${x.count === 0 ? 'resolved to nothing' : x.count < 0 ? 'not valid CSS' : `${x.count} element(s)`}`);
  const cons = list('console errors', 'trace-step-console', s.console, (x) => `${str(x.source)}: ${str(x.text)}`);
  const net = list('failed requests', 'trace-step-network', s.network, (x) =>
    `${x.status !== null && x.status !== undefined ? `HTTP ${x.status}` : str(x.error)} ${str(x.url)}`);
  const evs = list('then', 'trace-step-events', s.events, (x) => `${str(x.type)}${x.how ? ` by ${x.how}` : ''} ${str(x.url)}`);
  return el('div', { class: 'trace-step-grid' }, el('div', {}, shot), el('div', {}, facts, checks, sels, cons, net, evs, dom));
}

export async function render(view, params, ctx) {
  const id = params.id;
  const t = await api('GET', `/api/runs/${seg(id)}/trace`, undefined, { signal: ctx.signal });
  const steps = Array.isArray(t.steps) ? t.steps.filter((s) => s && typeof s.step === 'number') : [];
  const nodes = Array.isArray(t.key_nodes) ? t.key_nodes : [];
  const scale = t.capture && typeof t.capture.scale === 'number' ? t.capture.scale : 0.5;
  const detail = el('div', { id: 'trace-step', class: 'card' });
  const strip = el('ol', { id: 'trace-filmstrip', class: 'filmstrip' });
  const frames = [];

  function select(i) {
    const s = steps[i];
    if (!s) return;
    frames.forEach((f, j) => f.classList.toggle('selected', j === i));
    detail.replaceChildren(el('h2', {}, `Step ${stepLabel(s)}`), stepDetail(id, s, scale));
    detail.dataset.step = String(s.step);
  }

  steps.forEach((s, i) => {
    const thumb = s.screenshot
      ? el('img', { class: 'filmstrip-img', alt: `step ${s.step}`, src: shotUrl(id, s.step), loading: 'lazy' })
      : el('span', { class: 'filmstrip-none muted' }, s.step === 0 ? 'start' : 'no screenshot');
    const b = el('button', { type: 'button', class: 'filmstrip-frame', 'data-step': String(s.step), title: str(s.title) },
      thumb, el('span', { class: 'filmstrip-label' }, stepLabel(s)),
      (s.console && s.console.length) || (s.network && s.network.length)
        ? el('span', { class: 'filmstrip-warn', title: 'console errors or failed requests' }, '!') : null);
    b.addEventListener('click', () => select(i));
    frames.push(b);
    strip.append(el('li', {}, b));
  });

  const download = el('a', { id: 'trace-download', class: 'btn', href: `/api/runs/${seg(id)}/trace.tar` }, 'download trace (.tar)');
  download.setAttribute('download', `trace-${str(id)}.tar`);
  view.replaceChildren(
    el('p', { class: 'crumbs' }, el('a', { href: runHref(id) }, `run ${str(id)}`), ' › trace'),
    el('div', { class: 'card' },
      el('div', { class: 'card-head' },
        el('h2', {}, 'Trace of run ', el('span', { class: 'mono' }, str(t.run))),
        el('span', {}, badge(str(t.status)), ' ', download)),
      el('dl', { class: 'facts' },
        el('dt', {}, 'task'), el('dd', {}, el('a', { href: taskHref(str(t.task)) }, str(t.task))),
        el('dt', {}, 'intent'), el('dd', {}, str(t.intent)),
        el('dt', {}, 'score'), el('dd', {}, fmtScore(t.score)),
        el('dt', {}, 'ended'), el('dd', {}, `${fmtTime(t.ended)} (${str(t.end_reason)})`),
        el('dt', {}, 'screenshots'), el('dd', {}, t.capture ? `${t.capture.shots} taken, ${t.capture.skipped} steps without one` : '—'),
        el('dt', {}, 'answer'), el('dd', {}, el('pre', { id: 'trace-answer', class: 'trace-answer' }, t.answer === null || t.answer === undefined ? '(no answer)' : str(t.answer))))),
    el('div', { class: 'card' }, el('h2', {}, 'Key-node evidence'), evidenceList(nodes)),
    el('div', { class: 'card' }, el('h2', {}, 'Steps'), strip),
    detail);
  const first = steps.findIndex((s) => s.step > 0);
  select(first >= 0 ? first : 0);
}
