// taskset-page.mjs — the dashboard's task-set page (health.sh): opens BASE/#/tasksets/NAME in the
// Chromium at CDP and checks what it shows against WANT (JSON, worked out by health.sh): the statement
// and its data-validated / data-tasks, each month's bar (data-month, data-breaks), each survival step
// (data-t in seconds, data-survival; the first ones WANT lists, and how many there are), each break's row (data-task, data-detection in seconds, rounded to
// ms) and the detection summary's count; WANT.days {days, statement}: the window picker's answer; with SHOT set, a screenshot of the page goes there.
//   node taskset-page.mjs CDP_HTTP_URL BASE NAME WANT_JSON [SHOT]
import { drivePage } from './dashboard-page.mjs';

const [cdp, base, name, wantJson, shot] = process.argv.slice(2);
const want = JSON.parse(wantJson);
const ms = (x) => Math.round(Number(x) * 1000);
await drivePage(cdp, `task-set page ${name}`, async (page, check) => {
  await page.goto(`${base}/#/tasksets/${encodeURIComponent(name)}`);
  await page.waitForSelector('#view[data-page="taskset"][data-state="ready"]', { timeout: 30000 });
  const st = page.locator('#taskset-statement');
  const text = await st.textContent();
  check(`${name}: the statement`, text === want.statement, text);
  check(`${name}: validated and tasks`, `${await st.getAttribute('data-validated')} ${await st.getAttribute('data-tasks')}` === `${want.validated} ${want.tasks}`,
    `${await st.getAttribute('data-validated')} ${await st.getAttribute('data-tasks')}`);
  const months = await page.locator('#chart-breaks svg g.month').evaluateAll((gs) => gs.map((g) => `${g.dataset.month}:${g.dataset.breaks}`));
  const wm = want.months.map((m) => `${m.month}:${m.breaks}`);
  check(`${name}: breaks-per-month bars`, months.join(' ') === wm.join(' '), months.join(' '));
  const bars = await page.locator('#chart-breaks svg g.month rect').count();
  check(`${name}: one red bar per month with a break`, bars === want.months.filter((m) => m.breaks).length, bars);
  const steps = await page.locator('#chart-survival svg g.km-step').evaluateAll((gs) => gs.map((g) => [g.dataset.t, g.dataset.survival]));
  const got = steps.slice(0, want.steps.length).map(([t, s]) => `${ms(t)}:${s}`).join(' ');
  const ws = want.steps.map(([t, s]) => `${t}:${s}`).join(' ');
  check(`${name}: survival steps`, got === ws && steps.length === want.nsteps, `${steps.length} steps: ${got}`);
  const rows = await page.locator('#taskset-breaks tbody tr').evaluateAll((rs) => rs.map((r) => [r.dataset.task, r.dataset.detection]));
  const gotRows = rows.map(([t, d]) => `${t}:${d === '' ? '-' : ms(d)}`).join(' ');
  const wr = want.breaks.map(([t, d]) => `${t}:${d === null ? '-' : d}`).join(' ');
  check(`${name}: breaks and their detection times, newest first`, gotRows === wr, gotRows);
  const det = await page.locator('#taskset-detection').getAttribute('data-count');
  check(`${name}: detection summary over ${want.breaks.filter(([, d]) => d !== null).length} breaks`,
    Number(det) === want.breaks.filter(([, d]) => d !== null).length, det);
  if (want.days) { // the window picker: the route and the statement follow
    await page.selectOption('#taskset-days', String(want.days.days));
    await page.waitForSelector(`#taskset-statement[data-days="${want.days.days}"]`, { timeout: 30000 });
    await page.waitForSelector('#view[data-state="ready"]', { timeout: 30000 });
    const t2 = await page.locator('#taskset-statement').textContent();
    check(`${name}: the ${want.days.days}-day window`, t2 === want.days.statement && page.url().endsWith(`/d/${want.days.days}`), `${t2} at ${page.url()}`);
    await page.goto(`${base}/#/tasksets/${encodeURIComponent(name)}`);
    await page.waitForSelector('#view[data-page="taskset"][data-state="ready"]', { timeout: 30000 });
  }
  if (shot) {
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.locator('#view').screenshot({ path: shot });
    check(`screenshot written to ${shot}`, true);
  }
});
