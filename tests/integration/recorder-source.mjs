// recorder-source.mjs — the recorder's source as the monitor embeds it: the files named by
// services/recorder/recorder.parts, concatenated in that order (cmake/embed.cmake does the same).
import fs from 'node:fs';
import path from 'node:path';

export function recorderSource(repo) {
  const dir = path.join(repo, 'services', 'recorder');
  return fs.readFileSync(path.join(dir, 'recorder.parts'), 'utf8')
    .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((name) => fs.readFileSync(path.join(dir, name), 'utf8')).join('');
}
