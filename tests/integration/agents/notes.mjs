// notes.mjs — performs the Trailnotes tasks of tests/sites/notes/tasks.yaml, for record.sh (`keynode
// record` records their reference workflows from this demonstration). MODE:
//   open    notes-open-budget: goto /notes/ · click "Trail budget 2026"
//   new     notes-new-permit: goto /notes/ · click "New note" · fill the title · Create note
//   edit    notes-edit-packing: goto note 3 · click Edit · fill the text · Save note
//   permit  notes-permit-number: goto the editor of note 4 · fill the text · Save note
import { connect, mark, run, say, think, base, mode } from './lib.mjs';

run(async () => {
  const { page } = await connect();
  const go = async (path, ready) => {
    say(`goto ${path}`);
    await page.goto(`${base}${path}`);
    await page.locator(ready).waitFor();
    await think();
  };
  const save = async (sel, url) => {
    say(`click ${sel}`);
    await page.click(sel);
    await page.waitForURL(url);
  };
  if (mode === 'open') {
    await go('/notes/', '#notes a >> nth=0');
    say('click Trail budget 2026');
    await page.getByRole('link', { name: 'Trail budget 2026', exact: true }).click();
    await page.waitForURL(/note\.html\?id=1$/);
  } else if (mode === 'new') {
    await go('/notes/', '#new-note');
    say('click New note');
    await page.click('#new-note');
    await page.waitForURL(/new\.html$/);
    await page.locator('#new-title').waitFor();
    await think();
    await page.fill('#new-title', 'Permit renewal');
    await think();
    await save('#create-note', /saved\.html\?title=Permit\+renewal$/);
  } else if (mode === 'edit') {
    await go('/notes/note.html?id=3', '#edit-link');
    say('click Edit');
    await page.click('#edit-link');
    await page.waitForURL(/edit\.html\?id=3$/);
    await page.locator('#note-body').waitFor();
    await think();
    await page.fill('#note-body', 'take a headlamp');
    await think();
    await save('#save-note', /saved\.html\?id=3&body=take\+a\+headlamp$/);
  } else if (mode === 'permit') {
    await go('/notes/edit.html?id=4', '#note-body');
    await page.fill('#note-body', 'permit 4471');
    await think();
    await save('#save-note', /saved\.html\?id=4&body=permit\+4471$/);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  mark('last');
});
