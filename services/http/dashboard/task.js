// task.js — one task: intent, key nodes, run history, the replay timeline with drift warnings,
// the last failure screenshot, health transitions and a "replay now" button (POST /api/replays).
// Reads GET /api/tasks/{id}, /api/tasks/{id}/health, /api/tasks/{id}/workflow (its reference workflow
// versions: whether it has one, when it was recorded, against which task version) and /api/replays?task=…;
// the changelog and edit form come from changelog.js (GET /api/tasks/{id}/versions)

import { el, svg, badge, scoreBar, fmtTime, fmtAgo, fmtDuration, runHref, token } from './dom.js';
import { api, seg } from './api.js';
import { changelogCard } from './changelog.js';
import { recordButton, recordingsCard } from './recordings.js';

const TARGETS = ['url', 'element_path', 'element_value', 'answer'];
const MATCHERS = ['exact', 'include', 'semantic', 'regex'];

/** Any JSON value as one line of text. */
export function asText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join('; ');
  return JSON.stringify(v);
}

/** A key node in either shape: canonical {target, matcher, expect} or the file's {url: {include: …}}. */
function nodeParts(k) {
  let target = k.target, matcher = k.matcher, expect = k.expect;
  if (!target) {
    target = TARGETS.find((t) => k[t] && typeof k[t] === 'object');
    const m = target ? k[target] : {};
    matcher = MATCHERS.find((x) => x in m);
    expect = matcher ? m[matcher] : undefined;
  }
  const opts = ['key', 'netloc', 'path'].filter((o) => k[o] !== undefined && k[o] !== null)
    .map((o) => `${o}=${asText(k[o])}`).join(' ');
  return { target, matcher, expect, opts };
}

function keyNodeTable(nodes) {
  return el('table', { id: 'keynode-table', class: 'table' },
    el('thead', {}, el('tr', {}, ['id', 'target', 'matcher', 'expect', 'options', 'function'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, nodes.map((k) => {
      const p = nodeParts(k);
      return el('tr', { 'data-node': k.id ?? '' },
        el('td', { class: 'mono' }, k.id ?? ''),
        el('td', {}, el('span', { class: 'pill' }, p.target ?? '?')),
        el('td', {}, p.matcher ?? '?'),
        el('td', { class: 'mono expect' }, asText(p.expect)),
        el('td', { class: 'mono muted' }, p.opts),
        el('td', { class: 'mono muted' }, k.function ?? ''));
    })));
}

export function runTable(runs, id = 'task-runs') {
  if (!runs.length) return el('p', { id, class: 'muted' }, 'no runs yet');
  return el('table', { id, class: 'table' },
    el('thead', {}, el('tr', {}, ['run', 'kind', 'status', 'steps', 'reached', 'score', 'started', 'duration'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, runs.map((r) => el('tr', { 'data-run': r.id, 'data-status': token(r.status) },
      el('td', { class: 'mono' }, el('a', { href: runHref(r.id) }, r.id)),
      el('td', {}, r.kind ?? ''),
      el('td', {}, badge(r.status)),
      el('td', { class: 'num' }, r.steps ?? '—'),
      el('td', { class: 'num' }, `${r.reached ?? '?'}/${r.total ?? '?'}`),
      el('td', { class: 'num' }, scoreBar(r.score)),
      el('td', { title: fmtTime(r.started) }, fmtAgo(r.started)),
      el('td', { class: 'num' }, fmtDuration(r.started, r.ended))))));
}

function timeline(replays) {
  const W = 560, H = 56, L = 12, R = 12;
  const pts = replays.map((r) => ({ r, t: new Date(r.created).getTime() }))
    .filter((p) => Number.isFinite(p.t)).sort((a, b) => a.t - b.t);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart timeline', role: 'img', 'aria-label': 'replay timeline' });
  root.append(svg('line', { x1: L, x2: W - R, y1: 24, y2: 24, class: 'grid' }));
  if (!pts.length) {
    root.append(svg('text', { x: W / 2, y: 48, class: 'axis', 'text-anchor': 'middle' }, 'no replays yet'));
    return root;
  }
  const t0 = pts[0].t, t1 = pts[pts.length - 1].t;
  pts.forEach(({ r, t }, i) => {
    const x = t1 > t0 ? L + (W - L - R) * (t - t0) / (t1 - t0) : (pts.length === 1 ? W / 2 : L + (W - L - R) * i / (pts.length - 1));
    const drift = r.drift && !(Array.isArray(r.drift) && !r.drift.length);
    root.append(svg('circle', { cx: x, cy: 24, r: drift ? 8 : 6, class: `tdot replay-${token(r.status)}${drift ? ' drift' : ''}`, 'data-replay': r.id },
      svg('title', {}, `${fmtTime(r.created)} — ${r.status}${drift ? ` — drift: ${asText(r.drift)}` : ''}`)));
  });
  root.append(svg('text', { x: L, y: 50, class: 'axis' }, fmtTime(pts[0].r.created)));
  if (pts.length > 1) root.append(svg('text', { x: W - R, y: 50, class: 'axis', 'text-anchor': 'end' }, fmtTime(pts[pts.length - 1].r.created)));
  return root;
}

function replayList(replays) {
  const drifts = replays.filter((r) => r.drift && !(Array.isArray(r.drift) && !r.drift.length));
  const failed = replays.filter((r) => r.broken);
  return el('div', {},
    el('ul', { id: 'drift-warnings', class: 'warnings' }, drifts.map((r) =>
      el('li', { class: 'warning', 'data-replay': r.id }, el('strong', {}, 'drift '), `${fmtTime(r.created)}: ${asText(r.drift)}`))),
    el('ul', { id: 'replay-failures', class: 'warnings' }, failed.slice(0, 5).map((r) => {
      const b = r.broken || {};
      return el('li', { class: 'failure', 'data-replay': r.id }, el('strong', {}, `${r.status} `),
        `${fmtTime(r.created)}: `, typeof b === 'object'
          ? `step ${b.step ?? '?'} — ${b.reason ?? 'unknown reason'}${b.selector ? ` (${b.selector})` : ''}`
          : asText(b));
    })));
}

function screenshot(replays) {
  const sorted = [...replays].sort((a, b) => String(b.created).localeCompare(String(a.created)));
  // the replay summary says "screenshot": true when one is stored (older shapes: broken.screenshot)
  const last = sorted.find((r) => r.status !== 'passed' &&
    (r.screenshot === true || (r.broken && typeof r.broken === 'object' && r.broken.screenshot)));
  if (!last) return el('p', { id: 'failure-screenshot-none', class: 'muted' }, 'no failure screenshot');
  const img = el('img', { id: 'failure-screenshot', class: 'shot', alt: `screenshot of replay ${last.id}`, src: `/api/replays/${seg(last.id)}/screenshot`, loading: 'lazy' });
  const fig = el('figure', {}, img, el('figcaption', { class: 'muted small' }, `replay ${last.id}, ${fmtTime(last.created)}`));
  img.addEventListener('error', () => fig.replaceChildren(el('p', { class: 'muted' }, 'the screenshot could not be loaded')));
  return fig;
}

/** Which workflow a replay drove (its report's "workflow"): "version N" for one uploaded through
 *  the API, the file of `worker --workflows`, "inline steps", "—" for replays older than that. */
function replayedWorkflow(w) {
  if (!w || typeof w !== 'object') return '—';
  if (w.source === 'stored') return `version ${asText(w.version)}`;
  if (w.source === 'file') return `file ${asText(w.file)}`;
  return w.source === 'inline' ? 'inline steps' : asText(w.source);
}

/** The reference workflow (POST /api/workflows): the latest version, when it was recorded and
 *  uploaded, against which task version, the older versions, and the replay history it was judged by. */
export function workflowCard(wf, replays) {
  const versions = wf && Array.isArray(wf.versions) ? wf.versions : [];
  const head = el('h2', {}, 'Reference workflow');
  if (wf && wf.error) return el('section', { id: 'task-workflow', class: 'card' }, head,
    el('p', { class: 'muted' }, `workflow versions unavailable: ${asText(wf.error.message || wf.error)}`));
  const latest = versions[0];
  const facts = latest
    ? el('dl', { class: 'facts', id: 'workflow-facts' },
      el('dt', {}, 'workflow'), el('dd', { id: 'workflow-has', 'data-has': 'yes' }, `version ${latest.version} of ${versions.length}, ${latest.steps ?? '?'} steps`),
      el('dt', {}, 'recorded'), el('dd', { id: 'workflow-recorded' }, latest.recorded_at ? fmtTime(latest.recorded_at) : 'not said'),
      el('dt', {}, 'uploaded'), el('dd', {}, fmtTime(latest.uploaded)),
      el('dt', {}, 'task version'), el('dd', { id: 'workflow-task-version' }, `${latest.task_version ?? '?'}`,
        latest.current ? ' (current)' : ` (the task is now at version ${wf.task_version ?? '?'}: re-record it)`),
      el('dt', {}, 'viewport'), el('dd', {}, latest.viewport || '—'))
    : el('p', { id: 'workflow-has', 'data-has': 'no', class: 'muted' },
      'no reference workflow uploaded (keynode record, then POST /api/workflows); replays use the task\'s inline steps');
  const older = versions.slice(1).map((v) => el('li', { 'data-version': v.version },
    `version ${v.version}: recorded ${v.recorded_at ? fmtTime(v.recorded_at) : '—'}, uploaded ${fmtTime(v.uploaded)}, task version ${v.task_version ?? '?'}`));
  const hist = [...replays].sort((a, b) => String(b.created).localeCompare(String(a.created))).slice(0, 10);
  const history = hist.length
    ? el('table', { id: 'workflow-replays', class: 'table' },
      el('thead', {}, el('tr', {}, ['replay', 'when', 'status', 'step', 'drift', 'workflow'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, hist.map((r) => el('tr', { 'data-replay': r.id, 'data-status': token(r.status) },
        el('td', { class: 'mono' }, asText(r.id)),
        el('td', { title: fmtTime(r.created) }, fmtAgo(r.created)),
        el('td', {}, badge(r.status)),
        el('td', { class: 'num' }, r.broken && typeof r.broken === 'object' ? asText(r.broken.step ?? '—') : '—'),
        el('td', { class: 'num' }, Array.isArray(r.drift) ? r.drift.length : (r.drift ? 1 : 0)),
        el('td', { class: 'replay-workflow' }, replayedWorkflow(r.workflow))))))
    : el('p', { id: 'workflow-replays', class: 'muted' }, 'no replays yet');
  return el('section', { id: 'task-workflow', class: 'card' }, head, facts,
    older.length ? el('ul', { id: 'workflow-versions', class: 'small' }, older) : null,
    el('h3', {}, 'Replay history'), history);
}

/** A transition's evidence in words: its reason and replay when it has them, else the JSON. */
function evidenceText(ev) {
  if (!ev || typeof ev !== 'object' || Array.isArray(ev)) return asText(ev);
  const parts = [];
  if (ev.reason) parts.push(asText(ev.reason));
  if (ev.replay !== undefined) parts.push(`replay ${asText(ev.replay)}`);
  if (ev.run !== undefined) parts.push(`run ${asText(ev.run)}`);
  if (ev.consecutive_failures !== undefined) parts.push(`${asText(ev.consecutive_failures)} consecutive failure(s)`);
  return parts.length ? parts.join(' · ') : asText(ev);
}

function transitions(health) {
  const tr = Array.isArray(health.transitions) ? health.transitions : [];
  if (!tr.length) return el('p', { id: 'health-transitions', class: 'muted' }, 'no transitions yet');
  return el('table', { id: 'health-transitions', class: 'table' },
    el('thead', {}, el('tr', {}, ['at', 'from', 'to', 'evidence'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, tr.map((t) => el('tr', {},
      el('td', { class: 'nowrap' }, fmtTime(t.at)),
      el('td', {}, badge(t.from || 'unknown', 'health')),
      el('td', {}, badge(t.to || 'unknown', 'health')),
      el('td', { class: 'small', title: asText(t.evidence) }, evidenceText(t.evidence))))));
}

export async function render(view, params, ctx) {
  const id = params.id;
  const o = { signal: ctx.signal };
  const [t, health, wf] = await Promise.all([
    api('GET', `/api/tasks/${seg(id)}`, undefined, o),
    api('GET', `/api/tasks/${seg(id)}/health`, undefined, o).catch((e) => {
      if (e.name === 'AbortError') throw e;
      return { transitions: [], error: e };
    }),
    api('GET', `/api/tasks/${seg(id)}/workflow`, undefined, o).catch((e) => {
      if (e.name === 'AbortError') throw e;
      return { versions: [], error: e };
    }),
  ]);
  // the task carries its latest replays; GET /api/replays only when it does not
  let replays = Array.isArray(t.replays) ? t.replays : null;
  if (!replays) {
    const rep = await api('GET', `/api/replays?task=${seg(id)}`, undefined, o).catch((e) => {
      if (e.name === 'AbortError') throw e;
      return null;
    });
    replays = rep && Array.isArray(rep.replays) ? rep.replays : [];
  }
  const runs = Array.isArray(t.runs) ? t.runs : [];
  const nodes = Array.isArray(t.key_nodes) ? t.key_nodes : [];
  const changelog = await changelogCard(id, nodes, ctx.signal, () => ctx.flash(`task ${id} saved`));
  const recorded = await recordingsCard(id, ctx.signal);

  const msg = el('span', { id: 'replay-message', class: 'muted' });
  const btn = el('button', { id: 'replay-now', type: 'button', class: 'btn primary' }, 'Replay now');
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    msg.textContent = 'queuing…';
    try {
      const j = await api('POST', '/api/replays', { task: id });
      msg.textContent = `queued job ${j.job} (${j.status})`;
      msg.className = 'ok-text';
      ctx.flash(`replay of ${id} queued`);
    } catch (e) {
      msg.textContent = `${e.message}${e.detail ? `: ${e.detail}` : ''}${e.status === 401 ? ' — set the API token' : ''}`;
      msg.className = 'error-text';
    } finally {
      btn.disabled = false;
    }
  });

  view.replaceChildren(
    el('div', { class: 'page-head' },
      el('div', {},
        el('p', { class: 'crumbs' }, el('a', { href: '#/' }, 'Overview'), ' / task'),
        el('h1', { id: 'task-id', class: 'mono' }, t.id ?? id, ' ', badge(t.health || 'unknown', 'health'))),
      el('div', { class: 'actions' },
        replays.some((r) => r && r.status === 'broken')
          ? el('a', { id: 'task-drift-link', class: 'btn', href: `#/tasks/${encodeURIComponent(id)}/drift` }, 'Drift diff') : null,
        btn, recordButton(id, ctx), msg)),
    el('section', { class: 'card' },
      el('p', { id: 'task-intent', class: 'intent' }, t.intent ?? ''),
      el('dl', { class: 'facts' },
        el('dt', {}, 'start url'), el('dd', { class: 'mono', id: 'task-start-url' }, t.start_url ?? '—'),
        el('dt', {}, 'task set'), el('dd', {}, t.taskset ? el('a', { id: 'task-taskset-link', href: `#/tasksets/${encodeURIComponent(asText(t.taskset))}` }, asText(t.taskset)) : '—'),
        el('dt', {}, 'version'), el('dd', {}, `${t.version ?? '?'} of ${t.versions ?? '?'}`),
        el('dt', {}, 'reference length'), el('dd', {}, asText(t.reference_length) || '—'),
        t.answer !== undefined && t.answer !== null ? [el('dt', {}, 'answer'), el('dd', { class: 'mono' }, asText(t.answer))] : null,
        el('dt', {}, 'health'), el('dd', {}, `${health.state ?? t.health ?? 'unknown'}`,
          health.consecutive_failures ? `, ${health.consecutive_failures} consecutive failures` : '',
          health.since ? ` since ${fmtTime(health.since)}` : ''))),
    el('section', { class: 'card' }, el('h2', {}, `Key nodes (${nodes.length})`), el('div', { class: 'table-wrap' }, keyNodeTable(nodes))),
    workflowCard(wf, replays),
    changelog,
    recorded,
    el('section', { class: 'grid2' },
      el('div', { class: 'card' }, el('h2', {}, 'Replay timeline'),
        el('div', { id: 'replay-timeline', class: 'chart-box' }, timeline(replays)),
        el('p', { class: 'legend small' },
          el('span', { class: 'ldot replay-passed' }), 'passed ', el('span', { class: 'ldot replay-broken' }), 'broken ',
          el('span', { class: 'ldot replay-error' }), 'error ', el('span', { class: 'ldot replay-queued' }), 'queued/running'),
        replayList(replays)),
      el('div', { class: 'card' }, el('h2', {}, 'Last failure'), screenshot(replays))),
    el('section', { class: 'card' }, el('h2', {}, `Runs (${runs.length})`), el('div', { class: 'table-wrap' }, runTable(runs))),
    el('section', { class: 'card' }, el('h2', {}, 'Health transitions'),
      health.error ? ctx.errorBox(health.error) : transitions(health)));
}
