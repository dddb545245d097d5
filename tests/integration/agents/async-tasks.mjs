// async-tasks.mjs — the tasks of the false-alarm corpus (tests/sites/async/tasks.yaml) as a person writes them
// with Playwright: the same steps as the reference workflow, each followed by a wait for the outcome the step
// produces (the URL it leads to, or the element the next step needs in the state it needs), never a fixed
// sleep. Playwright's own actionability checks do the rest (visible, stable, enabled — aria-disabled
// included — and receiving the click: a toast or a fading menu over the target is waited out).
// Used by agents/async.mjs (the demonstrator `keynode record` watches) and tests/bench/bench_replay_pw.mjs
// (the bare script keynode's replay time is compared with). No argv parsing, no side effect on import.
//
//   tasks[ID](page, base, pause)   page: a Playwright Page; base: http://127.0.0.1:PORT; pause(): awaited
//                                  between steps (the agent's think time; the benchmark passes a no-op)
export const tasks = {
  'timer-nav': async (page, base, pause) => {
    await page.goto(`${base}/timer-nav/item.html`);
    await pause();
    await page.selectOption('#size', 'L');
    await pause();
    await page.click('#add-to-cart');
    await page.waitForURL(/\/timer-nav\/cart\.html\?.*size=L/);
  },
  'fetch-nav': async (page, base, pause) => {
    await page.goto(`${base}/fetch-nav/item.html`);
    await pause();
    await page.click('#colour-blue');
    await pause();
    await page.click('#add-to-cart');
    await page.waitForURL(/\/fetch-nav\/cart\.html\?.*colour=blue/);
  },
  'spa-xhr': async (page, base, pause) => {
    await page.goto(`${base}/spa-xhr/`);
    await pause();
    await page.click('#order-1042');
    await page.waitForURL(/view=order&id=1042$/);
    await pause();
    await page.click('#track');
    await page.waitForURL(/view=track&id=1042$/);
  },
  'debounce-search': async (page, base, pause) => {
    await page.goto(`${base}/debounce-search/`);
    await pause();
    await page.fill('#q', 'headlamp');
    // the step's outcome: the results for it (the popular list's first link is another product)
    const first = page.locator('.results li:nth-child(1) a', { hasText: 'Glowworm Headlamp' });
    await first.waitFor();
    await pause();
    await first.click();
    await page.waitForURL(/\/debounce-search\/item\.html\?id=4$/);
  },
  skeleton: async (page, base, pause) => {
    await page.goto(`${base}/skeleton/item.html?id=2`);
    await pause();
    await page.selectOption('#size', '42'); // waits until the option exists and the select is enabled
    await pause();
    await page.click('#add');
    await page.waitForURL(/\/skeleton\/basket\.html\?.*size=42/);
  },
  'transition-menu': async (page, base, pause) => {
    await page.goto(`${base}/transition-menu/item.html`);
    await pause();
    await page.click('#colour-button');
    await pause();
    await page.click('#colour-forest');
    await pause();
    await page.click('#add'); // waits until the fading menu no longer takes the click
    await page.waitForURL(/\/transition-menu\/cart\.html\?.*colour=forest/);
  },
  'late-enabled': async (page, base, pause) => {
    await page.goto(`${base}/late-enabled/`);
    await pause();
    await page.click('#slot-morning');
    await pause();
    await page.click('#continue'); // waits until aria-disabled is gone
    await page.waitForURL(/\/late-enabled\/details\.html\?.*slot=morning/);
  },
  remount: async (page, base, pause) => {
    // the outcome of opening the page is the mounted app: the form shows the profile's data (its club),
    // rendered again as new nodes 200 ms after the fetch; typing before that would be lost
    await page.goto(`${base}/remount/`);
    await page.locator('#club[value="Ridge Walkers"]').waitFor({ state: 'attached' });
    await pause();
    await page.fill('#nickname', 'Trail Fox');
    await pause();
    await page.click('#save');
    await page.waitForURL(/\/remount\/saved\.html\?nickname=Trail\+Fox/);
  },
  overlay: async (page, base, pause) => {
    await page.goto(`${base}/overlay/item.html`);
    await pause();
    await page.click('#add');
    await pause();
    await page.click('#basket-link'); // waits until the toast no longer covers it
    await page.waitForURL(/\/overlay\/basket\.html$/);
  },
  'lazy-list': async (page, base, pause) => {
    await page.goto(`${base}/lazy-list/`);
    await pause();
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 800);
    await page.locator('#item-20').waitFor({ state: 'attached' }); // page 2 arrived
    await pause();
    await page.mouse.wheel(0, 800);
    await page.locator('#item-27').waitFor({ state: 'attached' }); // page 3 arrived
    await pause();
    await page.click('#item-27');
    await page.waitForURL(/\/lazy-list\/report\.html\?id=27$/);
  },
  'late-iframe': async (page, base, pause) => {
    await page.goto(`${base}/late-iframe/checkout.html`);
    await pause();
    const card = page.frameLocator('#card-frame');
    await card.locator('#card-number').fill('4242424242424242');
    await pause();
    await card.locator('#pay').click();
    await page.waitForURL(/\/late-iframe\/done\.html\?.*paid=1/);
  },
};
