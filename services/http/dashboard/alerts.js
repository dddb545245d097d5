// alerts.js — the alerts page: GET /api/alerts?all=1 with severity colours, what each alert is
// about (a broken task's alert: its drift diff and whether a verified repair proposal waits there),
// its deliveries, and an Acknowledge button (POST /api/alerts/{id}/ack, needs the token).

import { el, badge, fmtTime, fmtAgo, taskHref, token } from './dom.js';
import { api, seg } from './api.js';
import { asText } from './task.js';

let showAcked = true;

function details(d) {
  if (!d || typeof d !== 'object') return el('span', { class: 'muted' }, asText(d));
  return el('dl', { class: 'kv' }, Object.entries(d).slice(0, 12).map(([k, v]) => [
    el('dt', {}, k),
    el('dd', { class: 'mono' }, k === 'task' && typeof v === 'string' ? el('a', { href: taskHref(v) }, v)
      : k === 'drift_page' && typeof v === 'string' && v.startsWith('/#/') ? el('a', { class: 'drift-link', href: v.slice(1) }, 'drift diff')
        : k === 'repair' && v && typeof v === 'object' // is a verified fix waiting on the drift diff?
          ? el('span', { class: `repair-flag ${v.verified > 0 ? 'ok-text' : 'muted'}` },
            v.verified > 0 ? `${asText(v.verified)} verified repair proposal(s): apply on the drift diff` : `no verified repair proposal (${asText(v.proposals)} proposed)`)
          : asText(v)),
  ]));
}

function deliveries(list) {
  if (!Array.isArray(list) || !list.length) return el('span', { class: 'muted' }, 'none');
  return list.map((d) => el('span', { class: `pill ${d.ok ? 'pill-ok' : 'pill-bad'}`, title: `${d.attempts ?? '?'} attempt(s)` },
    `${d.channel ?? '?'} ${d.ok ? '✓' : '✗'}`));
}

export async function render(view, _params, ctx) {
  const data = await api('GET', '/api/alerts?all=1', undefined, { signal: ctx.signal });
  const alerts = Array.isArray(data.alerts) ? data.alerts : [];
  const tbody = el('tbody');
  const count = el('span', { class: 'muted' });
  const toggle = el('input', { type: 'checkbox', id: 'show-acked', checked: showAcked });
  toggle.addEventListener('change', () => { showAcked = toggle.checked; paint(); });

  function row(a) {
    const ackCell = el('td', { class: 'ack-cell' });
    const paintAck = () => {
      if (a.acked) {
        ackCell.replaceChildren(el('span', { class: 'acked' }, 'acknowledged'));
        return;
      }
      const b = el('button', { type: 'button', class: 'btn ack-button', 'data-alert': a.id }, 'Acknowledge');
      b.addEventListener('click', async () => {
        b.disabled = true;
        try {
          const r = await api('POST', `/api/alerts/${seg(a.id)}/ack`);
          a.acked = r.acked !== false;
          tr.classList.toggle('is-acked', a.acked);
          tr.dataset.acked = String(a.acked);
          paintAck();
          ctx.flash(`alert ${a.id} acknowledged`);
          ctx.alertCount();
        } catch (e) {
          b.disabled = false;
          ctx.flash(`${e.message}${e.detail ? `: ${e.detail}` : ''}${e.status === 401 ? ' — set the API token' : ''}`, 'error');
        }
      });
      ackCell.replaceChildren(b);
    };
    const tr = el('tr', { 'data-alert': a.id, 'data-severity': token(a.severity), 'data-acked': String(!!a.acked),
      class: `sev-row sev-${token(a.severity)}${a.acked ? ' is-acked' : ''}` },
    el('td', {}, badge(a.severity ?? 'info', 'severity')),
    el('td', { class: 'alert-title' }, a.title ?? ''),
    el('td', {}, details(a.detail)),
    el('td', { title: fmtTime(a.created) }, fmtTime(a.created), el('br'), el('span', { class: 'muted small' }, fmtAgo(a.created))),
    el('td', {}, deliveries(a.deliveries)),
    ackCell);
    paintAck();
    return tr;
  }

  function paint() {
    const rows = alerts.filter((a) => showAcked || !a.acked);
    tbody.replaceChildren(...rows.map(row));
    if (!rows.length) tbody.append(el('tr', { class: 'empty' }, el('td', { colspan: 6 }, 'no alerts')));
    count.textContent = `${alerts.filter((a) => !a.acked).length} open, ${alerts.length} total`;
  }

  view.replaceChildren(
    el('h1', {}, 'Alerts'),
    el('section', { class: 'card' },
      el('div', { class: 'card-head' }, el('h2', {}, 'Alerts'),
        el('div', { class: 'filters' }, el('label', { for: 'show-acked' }, toggle, ' show acknowledged'), count)),
      el('div', { class: 'table-wrap' }, el('table', { id: 'alerts-table', class: 'table' },
        el('thead', {}, el('tr', {}, ['severity', 'title', 'detail', 'created', 'deliveries', ''].map((h) => el('th', { scope: 'col' }, h)))),
        tbody))));
  paint();
}
