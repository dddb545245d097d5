// drift.js — a task's drift diff: GET /api/tasks/{id}/drift sets the last passing replay
// beside the failing one at the first step that differs (a different outcome, URL form after the step,
// resolved selector or drift flag; services/trace/README.md "Drift diff"): both screenshots and URLs, the
// element the workflow recorded vs what the failing replay found, the key nodes whose outcome changed,
// the requests each replay sent or had held, paired, and any repair the failing replay's report
// proposes, each with an Apply form (POST /api/tasks/{id}/repairs with the token; an
// unverified one only with "override" ticked). Everything
// from the pages and reports — titles, URLs, DOM, selectors, YAML — is untrusted and goes in as text.

import { el, badge, fmtScore, fmtTime, taskHref } from './dom.js';
import { api, seg, getToken } from './api.js';

const str = (v) => (v === null || v === undefined ? '' : String(v));
const CRITERIA = { status: 'step outcome', url: 'URL after the step', selector: 'resolved selector', drift: 'drift flag' };

function side(name, label, replay, s) {
  const shot = s && s.screenshot_url
    ? el('img', { id: `drift-shot-${name}`, class: 'drift-shot', alt: `${label}: screenshot of the step`, src: s.screenshot_url })
    : el('p', { id: `drift-shot-${name}`, class: 'muted drift-noshot' }, replay && replay.trace ? 'no screenshot of this step' : 'no trace kept for this replay');
  const e = s && s.element;
  return el('div', { class: `card drift-side drift-${name}`, id: `drift-${name}` },
    el('div', { class: 'card-head' },
      el('h2', {}, label),
      el('span', {}, badge(str(replay && replay.status)), ' ',
        replay && replay.trace_page ? el('a', { href: replay.trace_page, id: `drift-trace-${name}` }, 'trace') : null)),
    el('p', { class: 'muted small' }, `replay ${str(replay && replay.id)} · version ${str(replay && replay.version)} · ${fmtTime(replay && replay.created)}`),
    shot,
    el('dl', { class: 'facts' },
      el('dt', {}, 'URL after'), el('dd', { class: 'mono', id: `drift-url-${name}` }, str(s && s.url) || '—'),
      el('dt', {}, 'title'), el('dd', { id: `drift-title-${name}` }, str(s && s.title) || '—'),
      el('dt', {}, 'outcome'), el('dd', { id: `drift-outcome-${name}` }, str(s && s.outcome) || '—'),
      el('dt', {}, 'found by'), el('dd', { class: 'mono', id: `drift-resolved-${name}` }, str(s && s.resolved) || '—',
        s && typeof s.locator_score === 'number' ? ` (score ${fmtScore(s.locator_score)})` : ''),
      el('dt', {}, 'drift'), el('dd', {}, s && s.drift ? 'yes — found by a fallback' : 'no'),
      s && s.detail ? [el('dt', {}, 'detail'), el('dd', { id: `drift-detail-${name}` }, str(s.detail))] : null),
    e && e.dom ? el('div', { class: 'trace-list' }, el('h3', {}, 'the element in the page'), el('pre', { class: 'trace-dom' }, str(e.dom)))
      : e && e.found === false ? el('p', { class: 'muted' }, 'the acted-on element was not found just after the action') : null);
}

function recorded(rec, failing) {
  const rows = rec && typeof rec === 'object' ? Object.entries(rec) : [];
  return el('div', { class: 'card', id: 'drift-fingerprint' },
    el('h2', {}, 'Recorded element vs best candidate now'),
    el('div', { class: 'grid2' },
      el('div', {}, el('h3', {}, 'recorded (the workflow)'),
        rows.length ? el('dl', { class: 'facts', id: 'drift-recorded' }, rows.map(([k, v]) => [el('dt', {}, k), el('dd', { class: 'mono' }, str(v))]))
          : el('p', { class: 'muted', id: 'drift-recorded' }, 'the workflow recorded no fingerprint for this step (only its selector)')),
      el('div', {}, el('h3', {}, 'found now (the failing replay)'),
        el('dl', { class: 'facts', id: 'drift-candidate' },
          el('dt', {}, 'selector'), el('dd', { class: 'mono' }, str(failing && failing.selector) || '—'),
          el('dt', {}, 'found by'), el('dd', { class: 'mono' }, str(failing && failing.resolved) || '—'),
          el('dt', {}, 'proposed selector'), el('dd', { class: 'mono' }, str(failing && failing.proposed_selector) || '—'),
          el('dt', {}, 'score'), el('dd', {}, failing && typeof failing.locator_score === 'number' ? fmtScore(failing.locator_score) : '—')))));
}

function keyNodes(list) {
  const rows = Array.isArray(list) ? list : [];
  const cell = (x) => (x && x.reached ? `reached at step ${str(x.reached_at_step)}` : 'not reached');
  return el('div', { class: 'card' }, el('h2', {}, 'Key nodes'),
    el('table', { class: 'table', id: 'drift-keynodes' },
      el('thead', {}, el('tr', {}, ['key node', 'last passing', 'failing', ''].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map((k) => el('tr', { class: k.changed ? 'drift-changed' : '', 'data-node': str(k.id) },
        el('td', { class: 'mono' }, str(k.id)), el('td', {}, cell(k.passing)), el('td', {}, cell(k.failing)),
        el('td', {}, k.changed ? 'changed' : ''))))));
}

// the two replays' requests, paired by method and URL form: each pair's change (same,
// changed — held, matched key nodes or fields —, missing from the failing replay, new in it), and per side
// the step, held or sent, the key nodes matched and the body fields (secrets already redacted)
const CHANGES = { same: 'same', changed: 'changed', missing: 'missing in the failing replay', new: 'new in the failing replay' };
function requestCell(r) {
  if (!r || typeof r !== 'object') return el('td', { class: 'muted' }, 'not sent');
  const matched = Array.isArray(r.matched) && r.matched.length ? `matched ${r.matched.map(str).join(', ')}` : 'no key node matched';
  const fields = Array.isArray(r.fields) ? r.fields.filter((f) => Array.isArray(f)) : [];
  return el('td', {},
    r.held === true ? el('span', { class: 'badge req-held' }, 'held by keynode') : el('span', { class: 'badge req-sent' }, 'sent'),
    ` step ${str(r.step)} · `, el('span', { class: 'req-matched-text' }, matched),
    el('div', { class: 'mono small' }, str(r.url)),
    fields.length ? el('div', { class: 'mono muted small req-fields' },
      fields.slice(0, 12).map((f) => `${str(f[0])}=${str(f[1])}`).join('  ') + (fields.length > 12 ? ` … +${fields.length - 12}` : '')) : null);
}

function requests(list, n) {
  const rows = Array.isArray(list) ? list : [];
  return el('div', { class: 'card', id: 'drift-requests-card' }, el('h2', {}, 'Requests'),
    el('p', { class: 'muted', id: 'drift-requests-changed' }, !rows.length ? 'neither replay\'s trace recorded a request'
      : n ? `${n} of ${rows.length} requests changed, went missing or are new` : 'the same requests on both sides'),
    rows.length ? el('table', { class: 'table', id: 'drift-requests' },
      el('thead', {}, el('tr', {}, ['request', 'last passing', 'failing', 'change'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map((r) => el('tr', { class: r.change === 'same' ? '' : 'drift-changed', 'data-change': str(r.change) },
        el('td', { class: 'mono' }, `${str(r.method)} ${str(r.url_form)}`),
        requestCell(r.passing), requestCell(r.failing),
        el('td', { class: 'req-change' }, CHANGES[r.change] || str(r.change),
          Array.isArray(r.differs) && r.differs.length ? ` (${r.differs.map(str).join(', ')}${Array.isArray(r.fields_changed) && r.fields_changed.length ? `: ${r.fields_changed.map(str).join(', ')}` : ''})` : ''))))) : null);
}

// The Apply form of proposal i of replay: a reason, "override" for an unverified proposal, the answer
// (the new version, or the refusal: 401 without the token, 409 unverified or no longer applying).
function applyForm(taskId, replay, r, i) {
  const out = el('p', { class: 'drift-apply-result', id: `drift-apply-result-${i}`, role: 'status' });
  const reason = el('input', { type: 'text', id: `drift-apply-reason-${i}`, placeholder: 'reason (for the changelog)' });
  const override = r.verified ? null : el('input', { type: 'checkbox', id: `drift-apply-override-${i}` });
  const button = el('button', { type: 'submit', id: `drift-apply-${i}`, class: 'drift-apply' }, r.verified ? 'Apply' : 'Apply anyway');
  const form = el('form', { class: 'drift-apply-form' }, reason,
    override ? el('label', {}, override, ' override: not verified') : null, button, out);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    out.textContent = 'applying…';
    const body = { replay, proposal: i, override: !!(override && override.checked) };
    if (reason.value.trim()) body.reason = reason.value.trim();
    try {
      const a = await api('POST', `/api/tasks/${seg(taskId)}/repairs`, body);
      out.className = 'drift-apply-result ok-text';
      out.textContent = `applied: ${a.workflow_version ? `workflow version ${str(a.workflow_version)}` : `task version ${str(a.version)}`} by ${str(a.author)}; validation replay queued (job ${str(a.validation_job)}).`;
      out.append(' ', el('a', { href: taskHref(taskId), id: `drift-apply-task-${i}` }, 'changelog'));
    } catch (e) {
      out.className = 'drift-apply-result error-text';
      out.textContent = `refused (${str(e.status)}): ${str(e.message)}${e.detail ? ` — ${str(e.detail)}` : ''}${e.status === 401 && !getToken() ? ' (set the API token first)' : ''}`;
      button.disabled = false;
    }
  });
  return form;
}

function repairs(list, taskId, replay) {
  if (!Array.isArray(list) || !list.length) return null;
  return list.map((r, i) => el('div', { class: 'card drift-repair', id: `drift-repair-${i}` },
    el('h2', {}, 'Proposed repair'),
    el('p', {}, `step ${str(r.step)} · ${str(r.kind)}${r.key_node ? ` · key node ${str(r.key_node)}` : ''}`),
    el('dl', { class: 'facts' },
      el('dt', {}, 'was'), el('dd', { class: 'mono' }, str(r.was)),
      el('dt', {}, 'proposed'), el('dd', { class: 'mono' }, str(r.proposed))),
    r.yaml ? el('pre', { class: 'trace-dom drift-yaml' }, str(r.yaml)) : null,
    el('p', { class: r.verified ? 'ok-text' : 'muted' }, r.verified
      ? `proposal verified by replay at ${str(r.verified_at)}${r.verify_report && r.verify_report.status ? ` (${str(r.verify_report.status)})` : ''}`
      : 'not verified by a replay'),
    el('p', { class: 'muted small' }, 'Applying writes the next task or workflow version with exactly this change, recorded in the changelog, and queues a validation replay.'),
    replay ? applyForm(taskId, replay, r, i) : null));
}

export async function render(view, params, ctx) {
  const id = params.id;
  const d = await api('GET', `/api/tasks/${seg(id)}/drift`, undefined, { signal: ctx.signal });
  const differs = Array.isArray(d.differs) ? d.differs : [];
  const changed = Array.isArray(d.changed_key_nodes) ? d.changed_key_nodes : [];
  const head = d.step === null || d.step === undefined
    ? el('p', { id: 'drift-step' }, 'No step differs between the two replays.')
    : el('p', { id: 'drift-step' }, `First step that differs: step ${str(d.step)} (${str(d.verb)}) — `,
      el('span', { id: 'drift-differs' }, differs.map((k) => CRITERIA[k] || str(k)).join(', ')));
  view.replaceChildren(
    el('p', { class: 'crumbs' }, el('a', { href: '#/' }, 'Overview'), ' / ', el('a', { href: taskHref(id) }, `task ${str(id)}`), ' / drift'),
    el('div', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Drift diff of ', el('span', { class: 'mono' }, str(id))), badge(str(d.health || 'unknown'), 'health')),
      head,
      el('p', { id: 'drift-changed-nodes' }, changed.length ? `key nodes whose outcome changed: ${changed.join(', ')}` : 'no key node changed its outcome'),
      d.broken && d.broken.reason ? el('p', { class: 'muted' }, `failing replay: ${str(d.broken.reason)}${d.broken.detail ? ` — ${str(d.broken.detail)}` : ''}`) : null,
      el('p', { class: 'muted small' }, 'The first step that differs is the lowest step at which the two replay reports disagree on the step\'s outcome, on the URL it ended at (path, parameter names and fragment), on how its element was found, or on whether it drifted.')),
    el('div', { id: 'drift-repairs' }, repairs(d.repairs, id, d.failing_replay && d.failing_replay.id)),
    el('div', { class: 'grid2 drift-pair' },
      side('passing', 'Last passing replay', d.passing_replay, d.passing),
      side('failing', 'Failing replay', d.failing_replay, d.failing)),
    recorded(d.recorded, d.failing),
    keyNodes(d.key_nodes),
    requests(d.requests, d.changed_requests));
}
