// workflow-page.mjs — the dashboard's task page (services/http/dashboard/task.js) as a person sees it:
// opens BASE/#/tasks/TASK in the browser at CDP_URL and prints what its "Reference workflow" card
// shows as one JSON line: {has, workflow, recorded, task_version, versions, replays,
// replay_workflows (the workflow column of the replay history, newest first)}. Exit 0, or 1
// when the card does not render within 30 s. For workflow_api.sh.
// usage: node workflow-page.mjs CDP_URL BASE TASK
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), 'node', 'package.json'));
const { chromium } = require('playwright-core');
const [cdp, base, task] = process.argv.slice(2);
const browser = await chromium.connectOverCDP(cdp);
try {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${base}/#/tasks/${encodeURIComponent(task)}`);
  await page.locator('#task-workflow #workflow-has').waitFor({ timeout: 30000 });
  const text = async (sel) => ((await page.locator(sel).count()) ? (await page.locator(sel).first().textContent()) : null);
  console.log(JSON.stringify({
    has: await page.locator('#workflow-has').getAttribute('data-has'),
    workflow: await text('#workflow-has'),
    recorded: await text('#workflow-recorded'),
    task_version: await text('#workflow-task-version'),
    versions: await page.locator('#workflow-versions li').count(),
    replays: await page.locator('#workflow-replays tbody tr').count(),
    replay_workflows: await page.locator('#workflow-replays tbody td.replay-workflow').allTextContents(),
  }));
  await ctx.close();
  process.exit(0);
} catch (e) {
  console.error(`workflow-page: ${String(e && e.message || e).split('\n')[0]}`);
  process.exit(1);
}
