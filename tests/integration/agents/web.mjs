// web.mjs — a Playwright agent on the live-web structures of tests/sites/web. MODE:
//   pay     goto /pay/checkout.html · in the cross-origin iframe #card-frame: type the card number key by
//           key (pressSequentially), click "Pay now"
//   pay-late  the same, but the page is loaded first, then it waits for MARK_FILE.go (keynode watch attaches
//           to an already loaded page whose cross-origin iframe exists)
//   nested  goto /nest/top.html · three iframes deep (alternating sites): fill #deep-input, click #deep-button
//   shadow  goto /shadow/index.html · fill #q and click #go inside <search-box>'s open shadow root, click the
//           filter button two shadow roots deep, click the <secret-widget> (closed root)
//   newtab  goto /links/index.html · Ctrl+click #story, middle-click #map (new tabs, no opener) · back in the first tab: type
//           into #name, then scroll down with the mouse wheel while the typed field is still pending
//   hostile a page swallowing events in capture phase and replacing addEventListener / Event members: type,
//           click; a strict-CSP page: fill, submit; a contenteditable editor: click, type
//   hover   a CSS hover menu: hover a paragraph (nothing opens), hover "Gear" (its menu opens), click "Tents"
//   dialog  confirm (accepted), prompt (answered), alert (dismissed), each opened by a click
//   nav     a meta refresh then a location.replace chain; link, back (from the bfcache), forward, back, click
//   beforeunload  type into a page with unsaved-changes protection, leave it by a link, accept the dialog
//   redirects  goto an address that answers 301 → 302 → 307 → 308; click a link that answers 302; type an
//           email and submit a POST form that answers 303 (then a GET of the thanks page)
//   download goto /dl/index.html · click a link to a file Chromium downloads (octet-stream), click an
//           <a download> link · then goto /dl/after.html (a goto step, not the links' consequence)
//   drag    goto /drag/index.html · HTML5 drag of #task-tent onto #done-zone (dragAndDrop) · a pointer drag of
//           #card-1 into #col-b (mouse down, moves, up) · a text selection with the mouse · click #save
//   bfcache goto /bf/index.html (a page Chromium may keep in its back/forward cache), follow a link, go back:
//           the page must come back from the cache (else the agent fails and prints Chromium's reasons,
//           Page.backForwardCacheNotUsed); then click #book on the restored page
import fs from 'node:fs';
import { connect, mark, run, say, think, base, markFile, mode } from './lib.mjs';

run(async () => {
  const { context, page } = await connect();
  if (mode === 'pay' || mode === 'pay-late') {
    say('goto /pay/checkout.html');
    await page.goto(`${base}/pay/checkout.html`);
    const card = page.frameLocator('#card-frame');
    await card.locator('#pay-now').waitFor();
    if (mode === 'pay-late') {
      // the page and its iframe are loaded before keynode watch attaches: wait for MARK_FILE.go
      mark('loaded');
      for (let i = 0; !fs.existsSync(`${markFile}.go`); i++) {
        if (i > 1200) throw new Error('no go file after 60 s');
        await think(50);
      }
    }
    await think();
    say('type the card number in the iframe');
    await card.locator('#card-number').pressSequentially('4242424242424242');
    await think();
    say('click Pay now in the iframe');
    await card.locator('#pay-now').click();
    await card.locator('#status').filter({ hasText: 'Paid with card ending 4242' }).waitFor();
  } else if (mode === 'nested') {
    say('goto /nest/top.html');
    await page.goto(`${base}/nest/top.html`);
    const deep = page.frameLocator('#level1').frameLocator('#level2').frameLocator('#level3');
    await deep.locator('#deep-button').waitFor();
    await think();
    say('fill #deep-input three frames deep');
    await deep.locator('#deep-input').fill('ok');
    await think();
    say('click #deep-button');
    await deep.locator('#deep-button').click();
    await deep.locator('#deep-status').filter({ hasText: 'Confirmed: ok' }).waitFor();
  } else if (mode === 'shadow') {
    say('goto /shadow/index.html');
    await page.goto(`${base}/shadow/index.html`);
    await think();
    say('fill #q in the open shadow root');
    await page.locator('search-box #q').fill('boots');
    await think();
    say('click the Search button (on its inner span)');
    await page.locator('search-box #go span').click();
    await page.locator('#out').filter({ hasText: 'Results for boots' }).waitFor();
    await think();
    say('click Apply filter, two shadow roots deep');
    await page.locator('gear-filter button.apply').click();
    await think();
    say('click the closed widget');
    await page.locator('#secret').click();
    await page.locator('#out').filter({ hasText: 'Revealed' }).waitFor();
  } else if (mode === 'newtab') {
    say('goto /links/index.html');
    await page.goto(`${base}/links/index.html`);
    await think();
    say('Ctrl+click #story');
    const [tab] = await Promise.all([context.waitForEvent('page'), page.click('#story', { modifiers: ['Control'] })]);
    await tab.waitForLoadState('load');
    await think();
    say('middle-click #map');
    const [tab2] = await Promise.all([context.waitForEvent('page'), page.click('#map', { button: 'middle' })]);
    await tab2.waitForLoadState('load');
    await think();
    say('type into #name, then wheel down before the field is flushed');
    await page.bringToFront();
    await page.locator('#name').pressSequentially('Ada');
    await think(100);
    await page.mouse.move(300, 400);
    await page.mouse.wheel(0, 1500);
    await think(1200); // the scroll burst settles (debounce) while the typed field is still pending
  } else if (mode === 'hostile') {
    say('goto /hostile/index.html (swallows events, replaces addEventListener and Event members)');
    await page.goto(`${base}/hostile/index.html`);
    await think();
    await page.locator('#email').pressSequentially('ada@example.com');
    await think();
    await page.locator('#send').click();
    await page.locator('#out').filter({ hasText: 'sent' }).waitFor();
    say('goto /hostile/csp.html (strict CSP)');
    await page.goto(`${base}/hostile/csp.html`);
    await think();
    await page.locator('#coupon').fill('SPRING');
    await think();
    await page.locator('#apply').click();
    await page.waitForURL(/editor\.html/);
    await think();
    say('type in the contenteditable editor');
    await page.locator('#editor').click();
    await page.keyboard.type('Great boots');
    await think();
  } else if (mode === 'nav') {
    say('goto /refresh/a.html (meta refresh, then location.replace)');
    await page.goto(`${base}/refresh/a.html`);
    await page.waitForURL(/refresh\/c\.html/);
    await page.locator('#details').waitFor();
    await think();
    say('click #details, back (bfcache), forward, back, click #after-back');
    await page.click('#details');
    await page.waitForURL(/refresh\/d\.html/);
    await think();
    // waitUntil 'commit': a page restored from the back/forward cache fires no load event, and Playwright
    // over connectOverCDP then waits for it until its timeout (microsoft/playwright-mcp#1635)
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForURL(/refresh\/c\.html/, { waitUntil: 'commit' });
    await think();
    await page.goForward({ waitUntil: 'commit' });
    await page.waitForURL(/refresh\/d\.html/, { waitUntil: 'commit' });
    await think();
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForURL(/refresh\/c\.html/, { waitUntil: 'commit' });
    await page.locator('#after-back').waitFor();
    await think();
    say(`restored from the back/forward cache: ${/restored/.test(await page.title())}`);
    await page.click('#after-back');
    await think();
  } else if (mode === 'hover') {
    say('goto /menu/index.html');
    await page.goto(`${base}/menu/index.html`);
    await think();
    say('hover #intro (reveals nothing), then #gear-link (opens the Gear menu), click #tents');
    await page.hover('#intro');
    await think(900);
    await page.hover('#gear-link');
    await think(900);
    await page.click('#tents');
    await page.waitForURL(/tents\.html/);
    await think();
  } else if (mode === 'dialog') {
    say('goto /dialog/index.html; accept the confirm, answer the prompt, dismiss the alert');
    page.on('dialog', (d) => (d.type() === 'confirm' ? d.accept() : d.type() === 'prompt' ? d.accept('trip') : d.dismiss()));
    await page.goto(`${base}/dialog/index.html`);
    await think();
    await page.click('#delete');
    await page.locator('#out').filter({ hasText: 'deleted' }).waitFor();
    await think();
    await page.click('#rename');
    await page.locator('#out').filter({ hasText: 'renamed to trip' }).waitFor();
    await think();
    await page.click('#save');
    await page.locator('#out').filter({ hasText: 'saved' }).waitFor();
    await think();
  } else if (mode === 'beforeunload') {
    say('goto /dialog/leave.html; type notes; leave by the link; accept the beforeunload dialog');
    page.on('dialog', (d) => (d.type() === 'beforeunload' ? d.accept() : d.dismiss()));
    await page.goto(`${base}/dialog/leave.html`);
    await think();
    await page.locator('#notes').pressSequentially('rope');
    await think();
    await page.click('#leave');
    await page.waitForURL(/\/dialog\/index\.html$/);
    await think();
  } else if (mode === 'redirects') {
    say('goto /go/old-trail (301, 302, 307, 308)');
    await page.goto(`${base}/go/old-trail`);
    if (!/\/go\/trail\.html\?from=old$/.test(page.url())) throw new Error(`landed on ${page.url()}`);
    await think();
    say('click the sign-up link (302)');
    await page.click('#signup-link');
    await page.waitForURL(/\/go\/form\.html$/);
    await think();
    say('type the email, submit the POST form (303)');
    await page.locator('#email').pressSequentially('ada@example.com');
    await think();
    await page.click('#send');
    await page.waitForURL(/\/go\/thanks\.html$/);
    await page.locator('#thanks').waitFor();
    await think();
  } else if (mode === 'download') {
    say('goto /dl/index.html');
    await page.goto(`${base}/dl/index.html`);
    await think();
    for (const [sel, name] of [['#gpx', 'route.gpx'], ['#notes', 'haute-route-notes.txt']]) {
      say(`click ${sel}: a download`);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
      if (dl.suggestedFilename() !== name) throw new Error(`download named ${dl.suggestedFilename()}`);
      await dl.path(); // finished
      await think();
    }
    if (!/\/dl\/index\.html$/.test(page.url())) throw new Error(`the tab moved to ${page.url()}`);
    say('goto /dl/after.html');
    await page.goto(`${base}/dl/after.html`);
    await page.locator('#packing').waitFor();
    await think();
  } else if (mode === 'drag') {
    say('goto /drag/index.html');
    await page.goto(`${base}/drag/index.html`);
    await think();
    say('HTML5 drag: #task-tent onto #done-zone');
    await page.dragAndDrop('#task-tent', '#done-zone');
    await page.locator('#done-zone #task-tent').waitFor();
    await think();
    say('pointer drag: #card-1 into #col-b');
    const from = await page.locator('#card-1').boundingBox();
    const to = await page.locator('#col-b').boundingBox();
    const inner = await page.evaluate(() => innerHeight);
    if (to.y + to.height > inner) throw new Error(`the board is below the window (${to.y + to.height} > ${inner})`);
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
    await page.locator('#col-b #card-1').waitFor();
    await think();
    say('select text with the mouse (not a drag)');
    const note = await page.locator('#note').boundingBox();
    await page.mouse.move(note.x + 2, note.y + note.height / 2);
    await page.mouse.down();
    await page.mouse.move(note.x + 200, note.y + note.height / 2, { steps: 8 });
    await page.mouse.up();
    await think();
    say('click #save');
    await page.click('#save');
    await page.locator('#out').filter({ hasText: 'saved' }).waitFor();
    await think();
  } else if (mode === 'bfcache') {
    const cdp = await context.newCDPSession(page);
    const notUsed = [];
    cdp.on('Page.backForwardCacheNotUsed', (e) => notUsed.push(...e.notRestoredExplanations.map((x) => x.reason)));
    await cdp.send('Page.enable');
    say('goto /bf/index.html, follow the link to the hut');
    await page.goto(`${base}/bf/index.html`);
    await think();
    await page.click('#hut');
    await page.waitForURL(/\/bf\/hut\.html$/);
    await think();
    say('back (waitUntil commit: a restore from the back/forward cache fires no load event)');
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForURL(/\/bf\/index\.html$/, { waitUntil: 'commit' });
    for (let i = 0; !/restored/.test(await page.title()); i++) {
      if (notUsed.length) throw new Error(`not restored from the back/forward cache: ${notUsed.join(', ')}`);
      if (i > 600) throw new Error('the page did not say it was restored after 30 s');
      await think(50);
    }
    say('restored from the back/forward cache: true');
    await think();
    await page.click('#book');
    await page.locator('#out').filter({ hasText: 'booked' }).waitFor();
    await think();
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  mark('last');
});
