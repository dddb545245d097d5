// maintenance-page.mjs — the dashboard's side of the maintenance loop, driven by maintenance.sh in
// headless Chromium (playwright-core over CDP):
//   apply      the alerts page says a verified repair proposal exists and links the drift diff; there, Apply
//              on proposal 1 (the key node) without a token is refused (401, said on the page); with the
//              token (set as the dashboard's token field does: localStorage keynode.token) and a reason it
//              answers with the new task version by its author; the page links the task's changelog
//   changelog  the task page's changelog: the repair by the author with its evidence replay and its
//              validation replay passed, the upload below it
// Console errors fail the run. Screenshots go to OUT_DIR.
//   node maintenance-page.mjs CDP_HTTP_URL BASE TASK_REF TOKEN OUT_DIR apply|changelog
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HERE, 'node', 'package.json'));
const { chromium } = require('playwright-core');

const [cdp, base, ref, token, outDir, mode] = process.argv.slice(2);
let fails = 0;
const check = (name, ok, got) => {
  console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${got}`);
  if (!ok) fails++;
};
const ready = (page, name) => page.waitForSelector(`#view[data-page="${name}"][data-state="ready"]`, { timeout: 30000 });
const setToken = (page, t) => page.evaluate((v) => { if (v) localStorage.setItem('keynode.token', v); else localStorage.removeItem('keynode.token'); }, t);
const browser = await chromium.connectOverCDP(cdp);
const errors = [];
try {
  const ctx = browser.contexts()[0] || await browser.newContext();
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 1360, height: 900 });
  page.on('console', (m) => {
    // the refused writes (401 without the token, 400 for the bad YAML) are logged by the browser as
    // failed resources; refusing them is the point of those checks
    if (m.type() === 'error' && !/status of 40[01] /.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const drift = `#/tasks/${encodeURIComponent(ref)}/drift`;
  if (mode === 'apply') {
    await page.goto(`${base}/#/alerts`);
    await setToken(page, '');
    await page.reload();
    await ready(page, 'alerts');
    const flag = await page.locator('.repair-flag').first().textContent().catch(() => '');
    check('the alerts page: the broken alert says a verified repair proposal exists', flag.startsWith('2 verified repair proposal(s)'), flag);
    await page.locator(`a.drift-link[href="${drift}"]`).first().click();
    await ready(page, 'drift');
    check('the alert leads to the drift diff', true);
    const forms = await page.locator('form.drift-apply-form').count();
    check('each proposal has an Apply form (the unverified one: "Apply anyway")', forms === 3 &&
      (await page.locator('#drift-apply-2').textContent()) === 'Apply anyway', forms);
    await page.locator('#drift-apply-1').click();
    const refused = page.locator('#drift-apply-result-1');
    await page.waitForFunction(() => /refused|applied/.test(document.getElementById('drift-apply-result-1').textContent), null, { timeout: 20000 });
    const rt = await refused.textContent();
    check('Apply without the token: refused (401) on the page', rt.startsWith('refused (401)'), rt);

    await setToken(page, token);
    await page.reload();
    await ready(page, 'drift');
    await page.locator('#drift-apply-reason-1').fill('#size renamed #shoe-size on the item page');
    await page.locator('#drift-apply-1').click();
    await page.waitForFunction(() => /refused|applied/.test(document.getElementById('drift-apply-result-1').textContent), null, { timeout: 20000 });
    const at = await page.locator('#drift-apply-result-1').textContent();
    check('Apply with the token: the new task version by its author, a validation replay queued',
      /^applied: task version 2 by alice; validation replay queued \(job \d+\)/.test(at), at);
    await page.locator('#view').screenshot({ path: path.join(outDir, 'maintenance-apply.png') });
    await page.locator('#drift-apply-task-1').click();
    await ready(page, 'task');
    const first = await page.locator('#task-changelog li.changelog-entry').first().textContent();
    check('the changelog link opens the task page with the repair on top', first.includes('repair') && first.includes('alice') &&
      first.includes('#size renamed #shoe-size on the item page'), first);
  } else {
    await page.goto(`${base}/#/tasks/${encodeURIComponent(ref)}`);
    await ready(page, 'task');
    const entries = await page.locator('#task-changelog li.changelog-entry').evaluateAll((l) => l.map((e) => ({ kind: e.dataset.kind, text: e.textContent })));
    check('the task page lists the changelog: repair above upload', entries.length === 2 && entries[0].kind === 'repair' && entries[1].kind === 'upload',
      JSON.stringify(entries.map((e) => e.kind)));
    const top = entries[0] ? entries[0].text : '';
    check('the repair: its author, evidence replay (verified), validation replay passed, the key node diff',
      top.includes('by alice') && /evidence: replay \d+, verified/.test(top) && /validation replay: job \d+, passed/.test(top) &&
      top.includes('key node size: path: #size → #shoe-size'), top);
    check('the edit form offers the key nodes and steps', await page.locator('#edit-what option').count() === 6, await page.locator('#edit-what option').count());
    // an edit with a YAML error: refused with the position in what was typed (nothing stored: maintenance.sh counts)
    await page.locator('#edit-what').selectOption('k:search');
    await page.locator('#edit-yaml').fill('url:\n  fuzzy: "/shop/search.html"');
    await page.locator('#edit-save').click();
    await page.waitForFunction(() => /refused|saved/.test(document.getElementById('edit-result').textContent), null, { timeout: 20000 });
    const er = await page.locator('#edit-result').textContent();
    check('an edit with a YAML error is refused on the page with its position', er.startsWith('refused (400): key node does not load — key_node:2:3: '), er);
    await page.locator('#task-changelog').screenshot({ path: path.join(outDir, 'maintenance-changelog.png') });
  }
  check('no console errors', errors.length === 0, errors.join(' | '));
  await page.close();
} catch (e) {
  check(`maintenance page (${mode})`, false, `${e.stack || e.message}; page errors: ${errors.join(' | ')}`);
} finally {
  await browser.close().catch(() => {});
}
process.exit(fails ? 1 : 0);
