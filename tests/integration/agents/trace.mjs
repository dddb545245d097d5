// trace.mjs — the agent of trace.sh: part of the shop task, then a page with a hostile title, then an
// answer with markup in it. Takes CDP_URL BASE_URL MARK_FILE ANSWER_FILE ("-": the caller posts the answer).
//   goto /shop/ · fill #q · press Enter · click "Red Runner" · goto /xss.html · click #go · answer
import fs from 'node:fs';
import { connect, mark, run, say, think, base } from './lib.mjs';

const answerFile = process.argv[5];
export const XSS_ANSWER = '<img src=x onerror="window.__pwned=2">answer & "quotes"';

run(async () => {
  const { page } = await connect();
  say('goto /shop/');
  await page.goto(`${base}/shop/`);
  await think();
  say('fill #q');
  await page.fill('#q', 'red running shoes');
  await think();
  say('press Enter');
  await page.press('#q', 'Enter');
  await page.waitForURL(/\/shop\/search\.html\?q=/);
  await page.waitForLoadState('load');
  await think();
  say('click Red Runner');
  await page.getByRole('link', { name: 'Red Runner' }).click();
  await page.waitForURL(/\/shop\/item\.html\?id=3$/);
  await page.waitForLoadState('load');
  await think();
  say('goto /xss.html');
  await page.goto(`${base}/xss.html`);
  await think();
  say('click #go');
  await page.click('#go');
  await think();
  if (answerFile && answerFile !== '-') {
    say('answer');
    fs.appendFileSync(answerFile, XSS_ANSWER + '\n');
  }
  mark('last');
});
