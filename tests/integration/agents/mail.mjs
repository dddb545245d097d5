// mail.mjs — Pinemail (hash routing; task spa-mail-dark-theme of tests/sites/tasks.yaml):
//   goto /spa/mail.html#/inbox · click #nav-settings (href="#/settings": a fragment navigation) ·
//   selectOption #theme dark · click #save-settings
// MODE: full; wander (goto, then ten clicks between Inbox and Starred, then the task's steps); partial (goto and the Settings click only, then mark "ready" and stay attached), or
// answer (task spa-mail-meeting-room): goto #/inbox · click the "Q3 report review" message (#/message/4) ·
// read the room and report it the way agents report answers, outside the browser: one line appended to
// the file named by $KN_AGENT_ANSWER (what `keynode watch --answer-file` reads)
import fs from 'node:fs';
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  if (mode === 'wander') {
    // eleven steps that reach nothing, then the task's own steps: past the step budget
    say('goto /spa/mail.html#/inbox');
    await page.goto(`${base}/spa/mail.html#/inbox`);
    await page.locator('.message-list').waitFor();
    for (let i = 0; i < 5; i++) {
      await think(150);
      say('click #nav-starred');
      await page.click('#nav-starred');
      await think(150);
      say('click #nav-inbox');
      await page.click('#nav-inbox');
    }
    mark('wandered');
  }
  if (mode === 'answer') {
    say('goto /spa/mail.html#/inbox');
    await page.goto(`${base}/spa/mail.html#/inbox`);
    await page.locator('.message-list').waitFor();
    await think();
    say('click the Q3 report message');
    await page.click('.message-list li:nth-child(3) a');
    await page.waitForURL(/#\/message\/4$/);
    // the URL changes before the page's hashchange handler renders the message: read it once shown
    await page.locator('#view', { hasText: /Room [0-9A-Z]+/ }).waitFor();
    const text = await page.textContent('#view');
    const room = (text.match(/Room [0-9A-Z]+/) || [''])[0];
    await think();
    say(`answer: ${room}`);
    fs.appendFileSync(process.env.KN_AGENT_ANSWER, `${room}\n`);
    mark('last');
    return;
  }
  say('goto /spa/mail.html#/inbox');
  await page.goto(`${base}/spa/mail.html#/inbox`);
  await page.locator('.message-list').waitFor();
  await think();
  say('click #nav-settings');
  await page.click('#nav-settings');
  await page.waitForURL(/#\/settings$/);
  await page.locator('#theme').waitFor();
  if (mode === 'partial') {
    await think(300);
    mark('ready');
    say('ready; staying attached');
    await new Promise(() => {});
  }
  await think();
  say('selectOption #theme dark');
  await page.selectOption('#theme', 'dark');
  await think();
  say('click #save-settings');
  await page.click('#save-settings');
  await page.locator('#settings-saved').waitFor();
  mark('last');
});
