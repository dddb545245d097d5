// blocked.mjs — an agent meeting a site that refuses service (tests/sites/blocked, blocked.sh): it opens
// MODE (a path such as /f/403/) and tries to click #go, giving up after a short wait as an agent does when
// a challenge, a CAPTCHA or a consent wall stands in its way. Exit 0 either way: whether the run was
// blocked is keynode's verdict, not the agent's. Marks: "clicked" or "gave-up", then "done".
// Env KN_AGENT_LATE=FILE: after the goto, mark "loaded" and wait until FILE exists (keynode watch attaches
// to a start page that was blocked before it came).
import fs from 'node:fs';
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  say(`goto ${mode}`);
  await page.goto(`${base}${mode}`);
  const late = process.env.KN_AGENT_LATE;
  if (late) {
    mark('loaded');
    for (let i = 0; !fs.existsSync(late); i++) {
      if (i > 1200) throw new Error(`no ${late} after 60 s`);
      await think(50);
    }
  }
  await think();
  try {
    await page.click('#go', { timeout: 1500 });
    await page.waitForURL(/done\.html$/, { timeout: 5000 });
    mark('clicked');
    say('clicked #go');
  } catch (e) {
    mark('gave-up');
    say('gave up: the page does not let me through');
  }
});
