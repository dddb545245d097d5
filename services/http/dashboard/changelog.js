// changelog.js — the task page's maintenance log and edit form: every version of the task
// (GET /api/tasks/{id}/versions) with its kind (upload, repair, edit, workflow), author, reason, the
// replay that verified an applied repair (an override marked), its validation replay and the diff of
// key nodes and steps, before → after; and a form to edit one key node (task-file syntax) or one step
// (workflow-file syntax) with POST /api/tasks/{id}/edits, whose 400 says where the YAML is wrong
// (key_node:LINE:COL / step:LINE:COL, as `keynode validate`). Everything from the API goes in as text.

import { el, badge, fmtTime } from './dom.js';
import { api, seg } from './api.js';

const str = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

// The fields of a changed item that differ: "field: before → after".
function itemDiff(label, e) {
  const b = e.before, a = e.after;
  if (!b || !a || typeof b !== 'object' || typeof a !== 'object') {
    return el('li', {}, `${label}: ${a ? 'added' : 'removed'} `, el('code', {}, str(a || b)));
  }
  const parts = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => el('span', { class: 'changelog-field' }, `${k}: `, el('code', {}, str(b[k])), ' → ', el('code', {}, str(a[k])), ' '));
  return el('li', {}, `${label}: `, parts);
}

function changeRow(c) {
  const d = c.diff || {};
  const items = [
    ...(Array.isArray(d.key_nodes) ? d.key_nodes.map((e) => itemDiff(`key node ${str(e.id)}`, e)) : []),
    ...(Array.isArray(d.steps) ? d.steps.map((e) => itemDiff(`step ${str(e.step)}`, e)) : []),
  ];
  if (Array.isArray(d.fields) && d.fields.length) items.push(el('li', {}, `also changed: ${d.fields.map(str).join(', ')}`));
  const v = c.validation;
  return el('li', { class: 'changelog-entry', 'data-kind': str(c.kind), 'data-change': str(c.id) },
    el('p', {},
      el('strong', {}, fmtTime(c.created)), ' · ', badge(str(c.kind)), ' ',
      `version ${str(c.version)}${c.workflow_version ? ` (workflow version ${str(c.workflow_version)})` : ''} by `,
      el('span', { class: 'changelog-author' }, str(c.author) || 'unknown'),
      c.reason ? [': ', el('span', { class: 'changelog-reason' }, str(c.reason))] : null),
    c.evidence_replay ? el('p', { class: c.override ? 'error-text small' : 'muted small' },
      `evidence: replay ${str(c.evidence_replay)}${c.override ? ' — applied by override, not verified' : ', verified'}`) : null,
    v ? el('p', { class: 'muted small changelog-validation' }, `validation replay: job ${str(v.job)}, `, badge(str(v.status))) : null,
    items.length ? el('ul', { class: 'changelog-diff small' }, items) : null);
}

function editForm(id, nodes, onDone) {
  const what = el('select', { id: 'edit-what' },
    nodes.map((k) => el('option', { value: `k:${str(k.id)}` }, `key node ${str(k.id)}`)),
    el('option', { value: 'step' }, 'step N'));
  const step = el('input', { type: 'number', id: 'edit-step', value: '1', class: 'narrow' });
  const yaml = el('textarea', { id: 'edit-yaml', placeholder: 'url: { include: "/shop/item.html" }' });
  const reason = el('input', { type: 'text', id: 'edit-reason', placeholder: 'reason (for the changelog)' });
  const out = el('p', { id: 'edit-result', role: 'status' });
  const form = el('form', { id: 'edit-form', class: 'edit-form' }, what, step, yaml, reason,
    el('button', { type: 'submit', id: 'edit-save', class: 'btn' }, 'Save as a new version'), out);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = { yaml: yaml.value };
    if (what.value === 'step') body.step = Number(step.value); else body.key_node = what.value.slice(2);
    if (reason.value.trim()) body.reason = reason.value.trim();
    try {
      const a = await api('POST', `/api/tasks/${seg(id)}/edits`, body);
      out.className = 'ok-text';
      out.textContent = `saved: version ${str(a.version)}${a.workflow_version ? `, workflow version ${str(a.workflow_version)}` : ''}; validation replay queued (job ${str(a.validation_job)})`;
      onDone();
    } catch (e) {
      out.className = 'error-text';
      out.textContent = `refused (${str(e.status)}): ${str(e.message)}${e.detail ? ` — ${str(e.detail)}` : ''}`;
    }
  });
  return form;
}

/** The "Changelog" card of task id: its versions, newest first, and the edit form. */
export async function changelogCard(id, nodes, signal, onDone) {
  let log;
  try {
    log = await api('GET', `/api/tasks/${seg(id)}/versions`, undefined, { signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return el('section', { class: 'card', id: 'task-changelog' }, el('h2', {}, 'Changelog'), el('p', { class: 'muted' }, `not available: ${str(e.message)}`));
  }
  const changes = Array.isArray(log.changes) ? log.changes : [];
  return el('section', { class: 'card', id: 'task-changelog' },
    el('h2', {}, `Changelog (${changes.length})`),
    changes.length ? el('ol', { class: 'changelog' }, changes.map(changeRow)) : el('p', { class: 'muted' }, 'no change recorded'),
    el('h3', {}, 'Edit a key node or a step'),
    editForm(id, nodes, onDone));
}
