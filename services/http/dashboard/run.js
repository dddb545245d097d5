// run.js — one run, live or finished. It reads GET /api/runs/{id} (result, key nodes, events); while
// the run is "running" it also opens the websocket /api/stream?run=ID and applies its messages
// ("run", "event", "end"): each key node's <li> gets the class "reached" as the run reaches it,
// the score and steps update and the event log grows. The same view serves a finished run.
// GET /api/runs/{id} holds only the first page of events: the rest is read on demand, one page of
// GET /api/runs/{id}/events?after=SEQ at a time, by the "load more" button under the log (pages go
// in seq order before any event the live feed added).
// The requests the run's pages sent or a guard rule held (request events) are listed in their
// own card above the log, in the order they came (held ones with a "held by keynode" badge).
// A run of a task with `purchase:` carries `reward` and `reward_parts` (or `reward_error`): shown
// as a stat and a list of parts, hidden for other runs.

import { el, svg, badge, fmtTime, fmtScore, taskHref, token } from './dom.js';
import { api, seg, wsUrl } from './api.js';
import { asText } from './task.js';

const MAX_LOG = 1000; // events the live feed keeps in the log (pages loaded on demand stay)
const PAGE = 1000;

// what a request or websocket event sent (its `request` or `websocket` object), else null
function wire(e) {
  const q = e.type === 'websocket' ? e.websocket : e.request;
  return q && typeof q === 'object' ? q : null;
}

function eventKey(e) {
  const w = wire(e);
  const q = w ? `|${w.method ?? w.direction ?? ''} ${w.url ?? ''}|${w.size ?? ''}` : '';
  return `${e.t}|${e.type}|${e.url ?? ''}|${e.selector ?? ''}|${e.value ?? ''}|${e.text ?? ''}${q}`;
}

// a request (or WebSocket message) the run's pages sent or a guard rule held: method (a message: WS and
// its direction), URL, a "held by keynode" badge, "sent", or for a message keynode could only watch
// "not holdable", the key nodes it matched (the event's `matched`) and its fields as written (secrets
// already redacted)
export function requestItem(e, attrs = {}) {
  const q = wire(e);
  const held = q.held === true;
  const ws = e.type === 'websocket';
  const matched = Array.isArray(e.matched) ? e.matched.map(asText) : [];
  const fields = Array.isArray(q.fields) ? q.fields.filter((f) => Array.isArray(f)) : [];
  return el('li', { class: `req${held ? ' req-is-held' : ''}`, 'data-held': String(held), ...attrs },
    held ? el('span', { class: 'badge req-held' }, 'held by keynode')
      : q.watched_only === true ? el('span', { class: 'badge req-held', title: 'seen on the network only: keynode could not have held it' }, 'not holdable')
        : el('span', { class: 'badge req-sent' }, ws && q.direction === 'received' ? 'received' : 'sent'),
    el('span', { class: 'req-method mono' }, asText(ws ? `WS ${q.direction ?? ''}` : (q.method ?? '?'))),
    el('span', { class: 'req-url mono' }, asText(q.url ?? '')),
    el('span', { class: matched.length ? 'req-matched' : 'req-matched req-none' },
      matched.length ? `matched ${matched.join(', ')}` : 'no key node matched'),
    fields.length ? el('span', { class: 'req-fields mono muted' },
      fields.slice(0, 12).map((f) => `${asText(f[0])}=${asText(f[1])}`).join('  ') + (fields.length > 12 ? ` … +${fields.length - 12}` : '')) : null);
}

function stepChart(scores) {
  const W = 560, H = 90, L = 30, R = 8, T = 8, B = 18;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': 'step scores' });
  for (const v of [0, 1]) {
    const y = T + (H - T - B) * (1 - v);
    root.append(svg('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }),
      svg('text', { x: L - 4, y: y + 4, class: 'axis', 'text-anchor': 'end' }, String(v)));
  }
  if (!scores.length) return root;
  const n = scores.length;
  const x = (i) => L + (n === 1 ? (W - L - R) / 2 : (W - L - R) * i / (n - 1));
  const y = (v) => T + (H - T - B) * (1 - Math.max(0, Math.min(1, v)));
  root.append(svg('polyline', { points: scores.map((v, i) => `${x(i)},${y(v)}`).join(' '), class: 'line' }));
  scores.forEach((v, i) => root.append(svg('circle', { cx: x(i), cy: y(v), r: 3, class: 'dot' }, svg('title', {}, `step ${i + 1}: ${fmtScore(v)}`))));
  root.append(svg('text', { x: W - R, y: H - 4, class: 'axis', 'text-anchor': 'end' }, `step ${n}`));
  return root;
}

/** Status unjudged: the judge and each key node whose judgement failed, in the judge's words. */
function unjudgedLine(r) {
  const u = r.unjudged;
  if (!u || typeof u !== 'object' || !Array.isArray(u.key_nodes)) return null;
  return el('p', { id: 'run-unjudged', class: 'muted' }, `unjudged: the judge ${asText(u.judge)} failed on `,
    u.key_nodes.map((k, i) => el('span', { class: 'mono' }, `${i ? '; ' : ''}${asText(k.id)}: ${asText(k.error)}`)),
    ' — left out of the metrics until it is scored again');
}

/** each time a person took the replay's (a blocked agent attempt's) page over from the live
 * view, and what they did (the report's replay.takeovers, the attempt's takeovers: human steps, never
 * the replay's or the agent's own); null when nobody did. */
function takeoverCard(r) {
  const list = r && r.replay && Array.isArray(r.replay.takeovers) ? r.replay.takeovers
    : r && Array.isArray(r.takeovers) ? r.takeovers : []; // a worker's agent attempt: result.json's
  if (!list.length) return null;
  const act = (a) => (a.type === 'text' ? `typed "${a.text}"` : a.type === 'key' ? `pressed ${a.key}`
    : a.type === 'wheel' ? `scrolled ${Math.round(a.dy)} px` : `${a.type} at ${Math.round(a.x)},${Math.round(a.y)}`);
  return el('section', { class: 'card', id: 'run-takeovers' },
    el('h2', {}, 'Taken over from the live view'),
    el('ol', {}, list.map((t) => el('li', { class: 'takeover', 'data-actions': (t.actions || []).length },
      `${fmtTime(t.at)} – ${fmtTime(t.until)}`, t.before_step ? `, held before step ${t.before_step}` : '',
      typeof t.after_steps === 'number' ? `, the agent paused after ${t.after_steps} steps` : '',
      t.ended ? ` (${t.ended})` : '',
      el('ul', {}, (t.actions || []).map((a) => el('li', { class: 'human-step' }, `human: ${act(a)}`)))))));
}

export async function render(view, params, ctx) {
  const id = params.id;
  const r = await api('GET', `/api/runs/${seg(id)}`, undefined, { signal: ctx.signal });

  const st = {
    status: r.status ?? 'unknown', score: r.score, steps: r.steps, reached: new Set(), total: r.total,
    nodes: new Map(), stepScores: Array.isArray(r.step_scores) ? r.step_scores.slice() : [],
    seen: new Set(), events: 0, total: r.events_total, next: r.events_next ?? null, firstLive: null,
  };
  const nodeList = el('ol', { id: 'run-keynodes', class: 'keynodes' });
  const reqList = el('ol', { id: 'run-requests', class: 'reqs' });
  const reqCard = el('section', { class: 'card', id: 'run-requests-card', hidden: true },
    el('h2', {}, 'Requests'), reqList);
  const log = el('ol', { id: 'run-log', class: 'log' });
  const statusBox = el('span', { id: 'run-status' });
  const liveBox = el('span', { id: 'run-live', class: 'live' });
  const scoreBox = el('span', { id: 'run-score', class: 'big' });
  const reachedBox = el('span', { id: 'run-reached', class: 'big' });
  const stepsBox = el('span', { id: 'run-steps', class: 'big' });
  const chartBox = el('div', { id: 'run-step-scores', class: 'chart-box' });
  const endBox = el('p', { id: 'run-end', class: 'muted' });
  const endedBox = el('dd', { id: 'run-ended' }, fmtTime(r.ended));
  const rewardBox = el('span', { id: 'run-reward', class: 'big' });
  const rewardStat = el('div', { class: 'stat', id: 'run-reward-stat', hidden: true }, rewardBox,
    el('span', { class: 'stat-label' }, 'purchase reward'));
  const rewardParts = el('dl', { id: 'run-reward-parts', class: 'facts', hidden: true });

  function setNodes(list) {
    for (const k of list || []) {
      if (!k || k.id === undefined) continue;
      const prev = st.nodes.get(String(k.id)) || {};
      st.nodes.set(String(k.id), { ...prev, ...k });
      if ((typeof k.score === 'number' && k.score > 0) || k.reached_at_step) st.reached.add(String(k.id));
    }
  }

  function paintNodes() {
    nodeList.replaceChildren(...[...st.nodes.values()].map((k) => {
      const hit = st.reached.has(String(k.id));
      return el('li', { class: `kn${hit ? ' reached' : ''}`, 'data-node': k.id },
        el('span', { class: 'kn-mark', 'aria-hidden': 'true' }, hit ? '✓' : '○'),
        el('span', { class: 'kn-id mono' }, k.id),
        el('span', { class: 'kn-fn muted mono' }, k.function ?? ''),
        k.expect !== undefined ? el('span', { class: 'kn-expect mono' }, asText(k.expect)) : null,
        k.reached_at_step ? el('span', { class: 'kn-step muted' }, `step ${k.reached_at_step}`) : null);
    }));
  }

  function paintHead() {
    statusBox.replaceChildren(badge(st.status));
    scoreBox.textContent = fmtScore(st.score);
    const total = st.total ?? st.nodes.size;
    reachedBox.textContent = `${st.reached.size}/${total}`;
    stepsBox.textContent = String(st.steps ?? 0);
    chartBox.replaceChildren(stepChart(st.stepScores));
    paintReward();
  }

  // the purchase reward and its parts (attribute, option, price, type, what was read), as text
  function paintReward() {
    const has = typeof st.reward === 'number';
    rewardStat.hidden = !has;
    rewardParts.hidden = !has;
    if (!has) return;
    rewardBox.textContent = fmtScore(st.reward);
    const rows = [];
    const parts = st.rewardParts && typeof st.rewardParts === 'object' ? st.rewardParts : {};
    for (const [k, v] of Object.entries(parts)) {
      rows.push(el('dt', {}, k), el('dd', { class: 'mono', 'data-part': k }, asText(v)));
    }
    if (st.rewardError) rows.push(el('dt', {}, 'error'), el('dd', { 'data-part': 'error' }, asText(st.rewardError)));
    rewardParts.replaceChildren(...rows);
  }

  // live: from the feed (appended, the log trimmed to MAX_LOG); else stored (before the live ones)
  function addEvent(e, live) {
    if (!e || typeof e !== 'object') return;
    if (e.run !== undefined && e.type === undefined) return; // the trajectory's first line
    const key = eventKey(e);
    if (st.seen.has(key)) return;
    st.seen.add(key);
    st.events++;
    const matched = Array.isArray(e.matched) && e.matched.length ? e.matched : null;
    const req = e.type === 'request' || e.type === 'websocket' ? wire(e) : null;
    const what = e.type === 'answer' ? e.text : req ? `${req.method ?? `WS ${req.direction ?? ''}`} ${req.url ?? ''}` : (e.selector ?? e.url ?? '');
    if (req) {
      reqCard.hidden = false;
      reqList.append(requestItem(e));
    }
    const li = el('li', { class: `ev ev-${token(e.type)}`, 'data-type': token(e.type) },
      el('span', { class: 'ev-t mono muted' }, typeof e.t === 'number' ? `${e.t.toFixed(3)} s` : ''),
      el('span', { class: 'ev-type' }, e.type ?? '?', e.how ? ` (${e.how})` : ''),
      el('span', { class: 'ev-what mono' }, asText(what)),
      e.value !== undefined && e.type !== 'answer' ? el('span', { class: 'ev-value mono' }, `= ${asText(e.value)}`) : null,
      req && req.held === true ? el('span', { class: 'badge req-held' }, 'held by keynode') : null,
      e.human === true ? el('span', { class: 'badge human-event', title: 'a person did it, taken over from the live view: never the agent\'s step' }, 'human') : null,
      matched ? el('span', { class: 'ev-matched' }, `matched ${matched.join(', ')}`) : null);
    if (!live) {
      log.insertBefore(li, st.firstLive && st.firstLive.isConnected ? st.firstLive : null);
      return;
    }
    if (!st.firstLive || !st.firstLive.isConnected) st.firstLive = li;
    log.append(li);
    while (log.childElementCount > MAX_LOG) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  const more = el('button', { id: 'run-more', type: 'button', class: 'btn', hidden: true }, 'load more events');
  function paintMore() {
    more.hidden = !st.next;
    if (st.next) more.textContent = `load more events (${st.events} of ${st.total ?? '?'} shown)`;
  }
  more.addEventListener('click', async () => {
    if (!st.next || more.disabled) return;
    more.disabled = true;
    try {
      const after = new URL(st.next, location.href).searchParams.get('after') ?? '0';
      const page = await api('GET', `/api/runs/${seg(id)}/events?after=${seg(after)}&limit=${PAGE}`,
        undefined, { signal: ctx.signal });
      if (!ctx.live()) return;
      for (const p of page.events || []) addEvent(p && p.event, false);
      st.next = page.next_after === null || page.next_after === undefined ? null
        : `/api/runs/${seg(id)}/events?after=${page.next_after}`;
    } catch (e) {
      if (e.name === 'AbortError') return;
      more.textContent = `could not load more events: ${e.message}`;
    } finally {
      more.disabled = false;
    }
    if (ctx.live()) paintMore();
  });

  function applyResult(res) {
    if (!res || typeof res !== 'object') return;
    if (res.status) st.status = res.status;
    if (typeof res.score === 'number') st.score = res.score;
    if (typeof res.steps === 'number') st.steps = res.steps;
    if (typeof res.total === 'number') st.total = res.total;
    if (Array.isArray(res.step_scores)) st.stepScores = res.step_scores.slice();
    if (typeof res.reward === 'number') st.reward = res.reward;
    if (res.reward_parts && typeof res.reward_parts === 'object') st.rewardParts = res.reward_parts;
    if (res.reward_error !== undefined) st.rewardError = res.reward_error;
    setNodes(res.key_nodes);
    if (Array.isArray(res.events)) res.events.forEach((e) => addEvent(e, false));
    if (typeof res.events_total === 'number') st.total = res.events_total;
    if (res.ended && endedBox) endedBox.textContent = fmtTime(res.ended);
  }

  applyResult(r);
  // the task's key nodes give the expected values and the full list before any is reached
  if (r.task !== undefined && r.task !== null) {
    try {
      const t = await api('GET', `/api/tasks/${seg(r.task)}`, undefined, { signal: ctx.signal });
      const known = new Map(st.nodes);
      st.nodes = new Map();
      for (const k of t.key_nodes || []) {
        if (k.id === undefined) continue;
        st.nodes.set(String(k.id), { id: k.id, function: k.function, expect: k.expect, ...(known.get(String(k.id)) || {}) });
      }
      for (const [kid, k] of known) if (!st.nodes.has(kid)) st.nodes.set(kid, k);
    } catch (e) {
      if (e.name === 'AbortError') throw e;
    }
  }

  view.replaceChildren(
    el('div', { class: 'page-head' },
      el('div', {},
        el('p', { class: 'crumbs' }, el('a', { href: '#/runs' }, 'Runs'), ' / run',
          ' · ', el('a', { id: 'run-trace-link', href: `#/runs/${encodeURIComponent(id)}/trace` }, 'trace')),
        el('h1', { class: 'mono', id: 'run-id' }, r.id ?? id, ' ', statusBox)),
      el('div', { class: 'actions' }, liveBox)),
    el('section', { class: 'card' },
      el('dl', { class: 'facts' },
        el('dt', {}, 'task'), el('dd', { class: 'mono' }, el('a', { href: taskHref(r.task ?? ''), id: 'run-task' }, asText(r.task))),
        el('dt', {}, 'kind'), el('dd', {}, r.kind ?? '—'),
        el('dt', {}, 'browser'), el('dd', { class: 'mono' }, r.browser ?? '—'),
        el('dt', {}, 'started'), el('dd', {}, fmtTime(r.started)),
        el('dt', {}, 'ended'), endedBox,
        r.fault ? [el('dt', {}, 'whose'), el('dd', { id: 'run-fault' }, asText(r.fault))] : null),
      el('div', { class: 'stats' },
        el('div', { class: 'stat' }, scoreBox, el('span', { class: 'stat-label' }, 'score')),
        el('div', { class: 'stat' }, reachedBox, el('span', { class: 'stat-label' }, 'key nodes reached')),
        el('div', { class: 'stat' }, stepsBox, el('span', { class: 'stat-label' }, 'steps')),
        rewardStat),
      rewardParts,
      unjudgedLine(r),
      endBox),
    el('section', { class: 'grid2' },
      el('div', { class: 'card' }, el('h2', {}, 'Key nodes'), nodeList),
      el('div', { class: 'card' }, el('h2', {}, 'Step score'), chartBox)),
    reqCard,
    takeoverCard(r),
    r.status === 'running' && r.browser ? el('p', {}, el('a', { id: 'run-watch-live', href: `#/live/${encodeURIComponent(id)}` }, 'Watch the page live')) : null,
    el('section', { class: 'card' }, el('h2', {}, 'Events'), log, more));
  paintNodes();
  paintHead();
  paintMore();

  if (st.status !== 'running') {
    liveBox.textContent = 'finished run';
    liveBox.className = 'live live-off';
    return;
  }

  liveBox.textContent = 'connecting…';
  liveBox.className = 'live live-connecting';
  let ws;
  try {
    ws = new WebSocket(wsUrl(`/api/stream?run=${seg(id)}`));
  } catch (e) {
    liveBox.textContent = `no live feed: ${e.message}`;
    return;
  }
  let ended = false;
  ctx.onCleanup(() => { ended = true; ws.close(); });
  ws.addEventListener('open', async () => {
    liveBox.textContent = 'live';
    liveBox.className = 'live live-on';
    // catch up on anything between the first read and the subscription
    try {
      applyResult(await api('GET', `/api/runs/${seg(id)}`, undefined, { signal: ctx.signal }));
      if (ctx.live()) { paintNodes(); paintHead(); }
      if (st.status !== 'running') finish(null);
    } catch { /* the feed still works */ }
  });
  function finish(reason) {
    if (ended) return;
    ended = true;
    liveBox.textContent = reason ? `ended: ${reason}` : 'ended';
    liveBox.className = 'live live-off';
    endBox.textContent = reason ? `run ended (${reason})` : 'run ended';
    ws.close();
  }
  ws.addEventListener('message', (m) => {
    if (!ctx.live()) return;
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    if (!msg || (msg.run !== undefined && String(msg.run) !== String(id))) return;
    if (msg.type === 'run') {
      if (typeof msg.total === 'number') st.total = msg.total;
      setNodes((msg.key_nodes || []).map((k) => ({ id: k.id, function: k.function, expect: k.expect })));
    } else if (msg.type === 'event') {
      addEvent(msg.event, true);
      if (typeof msg.score === 'number') st.score = msg.score;
      if (typeof msg.steps === 'number') st.steps = msg.steps;
      // step_scores has one entry per step: the score after that step
      if (typeof msg.steps === 'number' && msg.steps > 0 && typeof msg.score === 'number') {
        while (st.stepScores.length < msg.steps) st.stepScores.push(st.stepScores.at(-1) ?? 0);
        st.stepScores[msg.steps - 1] = msg.score;
      }
      for (const k of msg.reached || []) st.reached.add(String(k));
    } else if (msg.type === 'score') { // a verdict of the LLM judge came: the score with it
      if (typeof msg.score === 'number') st.score = msg.score;
      if (Array.isArray(msg.step_scores)) st.stepScores = msg.step_scores.slice();
      for (const k of msg.reached || []) st.reached.add(String(k));
    } else if (msg.type === 'end') {
      applyResult(msg.result);
      if (st.status === 'running') st.status = 'ended';
      if (!msg.result || !msg.result.ended) endedBox.textContent = fmtTime(new Date().toISOString());
      finish(msg.reason);
    } else {
      return;
    }
    paintNodes();
    paintHead();
  });
  ws.addEventListener('close', () => {
    if (!ended && ctx.live()) {
      liveBox.textContent = 'feed closed — reload to update';
      liveBox.className = 'live live-off';
    }
  });
}
