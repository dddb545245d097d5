// reference-run.js — a scripted agent for the test sites: runs each task's reference steps in a
// real headless Chromium through Playwright (the way agents in the wild drive browsers) and writes
// one JSONL trajectory per task (docs/formats.md §2) for `keynode score`. It proves that the sites
// and tasks.yaml fit together (README.md's table is what scoring these trajectories gives); it is
// not keynode's recorder: event kinds and `how` are what this script itself observed.
//
// usage: node reference-run.js TASKS.json OUT_DIR [TASK_ID…]
//   TASKS.json  tasks.yaml converted to JSON, with the port already substituted
// needs: playwright-core (npm), /usr/lib/chromium/chromium (or $KN_CHROMIUM)
// exit: 0 every task's steps ran, 1 a step failed (reported on stdout), 2 usage
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [tasksFile, outDir, ...only] = process.argv.slice(2);
if (!tasksFile || !outDir) {
	console.error('usage: node reference-run.js TASKS.json OUT_DIR [TASK_ID...]');
	process.exit(2);
}
const tasks = JSON.parse(fs.readFileSync(tasksFile, 'utf8')).tasks
	.filter((t) => !only.length || only.includes(t.id));

const POPUP_WAIT_MS = 2500; // a new tab shows up 0.7–1.1 s after the click in headless Chromium

async function settle(page) {
	await page.waitForLoadState('load').catch(() => {});
	await page.waitForTimeout(150);
}

// Mark the current document so a later look can tell a same-document URL change (hash or
// pushState) from a new page load.
async function mark(page) {
	await page.evaluate(() => { window.__knRefDoc = 1; }).catch(() => {});
}
async function sameDocument(page) {
	return page.evaluate(() => window.__knRefDoc === 1).catch(() => false);
}

async function runTask(browser, task) {
	const ctx = await browser.newContext();
	let page = await ctx.newPage();
	const t0 = Date.now();
	const lines = [JSON.stringify({ run: 'ref-' + task.id, task: task.id, started: new Date().toISOString() })];
	let tab = 'T1', tabs = 1, lastUrl = null;
	const ev = (o) => lines.push(JSON.stringify(Object.assign({ t: (Date.now() - t0) / 1000, tab }, o)));
	// After an action: record the navigation it caused, if any.
	const consequence = async (cause) => {
		const url = page.url();
		if (url !== lastUrl) {
			let how = cause;
			if (await sameDocument(page))
				how = url.split('#')[0] === (lastUrl || '').split('#')[0] ? 'hash' : 'history';
			ev({ type: 'navigate', url, how });
			lastUrl = url;
		}
		await mark(page);
	};
	let error = null;
	try {
		for (const [i, step] of task.steps.entries()) {
			const verb = typeof step === 'string' ? step : Object.keys(step)[0];
			const a = typeof step === 'string' ? null : step[verb];
			const where = `step ${i + 1} (${verb})`;
			if (verb === 'goto' || verb === 'back' || verb === 'forward') {
				if (verb === 'goto')
					await page.goto(a);
				else if (verb === 'back')
					await page.goBack();
				else
					await page.goForward();
				await settle(page);
				ev({ type: 'navigate', url: page.url(), how: verb });
				lastUrl = page.url();
				await mark(page);
			} else if (verb === 'click') {
				const loc = page.locator(a.selector).first();
				const text = ((await loc.textContent({ timeout: 5000 })) || '').trim().replace(/\s+/g, ' ');
				if (a.text && !text.includes(a.text))
					throw new Error(`${where}: ${a.selector} reads '${text}', not '${a.text}'`);
				const popup = ctx.waitForEvent('page', { timeout: POPUP_WAIT_MS }).catch(() => null);
				ev({ type: 'click', url: page.url(), selector: a.selector, text });
				await loc.click({ timeout: 5000 });
				await settle(page);
				const np = await popup;
				if (np) {
					page = np;
					await settle(page);
					tab = 'T' + (++tabs);
					ev({ type: 'tab_open', url: page.url() });
					ev({ type: 'navigate', url: page.url(), how: 'popup' });
					lastUrl = page.url();
					await mark(page);
				} else {
					await consequence('link');
				}
			} else if (verb === 'type') {
				const loc = page.locator(a.selector).first();
				await loc.fill(a.value, { timeout: 5000 });
				ev({ type: 'type', url: page.url(), selector: a.selector, value: a.value });
				if (a.enter) {
					ev({ type: 'press', url: page.url(), selector: a.selector, key: 'Enter' });
					await loc.press('Enter');
					await settle(page);
					await consequence('form');
				}
			} else if (verb === 'press') {
				ev({ type: 'press', url: page.url(), key: a });
				await page.keyboard.press(a);
				await settle(page);
				await consequence('form');
			} else if (verb === 'select') {
				const loc = page.locator(a.selector).first();
				await loc.selectOption(a.value, { timeout: 5000 });
				const text = await loc.evaluate((s) => s.options[s.selectedIndex].text);
				ev({ type: 'select', url: page.url(), selector: a.selector, value: a.value, text });
			} else if (verb === 'answer') {
				ev({ type: 'answer', text: String(a) });
			} else {
				throw new Error(`${where}: this script does not do '${verb}'`);
			}
		}
	} catch (e) {
		error = e.message.split('\n')[0];
	}
	fs.writeFileSync(path.join(outDir, task.id + '.jsonl'), lines.join('\n') + '\n');
	const end = page.url();
	await ctx.close();
	return { error, end };
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.KN_CHROMIUM || '/usr/lib/chromium/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	let failed = 0;
	for (const task of tasks) {
		const r = await runTask(browser, task);
		if (r.error) {
			failed++;
			console.log(`FAIL reference ${task.id}: ${r.error}`);
		} else {
			console.log(`ok   reference ${task.id}: ${task.steps.length} steps, ends on ${r.end}`);
		}
	}
	await browser.close();
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log('FAIL reference-run: ' + e.message.split('\n')[0]);
	process.exit(1);
});
