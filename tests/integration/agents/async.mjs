// async.mjs — performs one task of the false-alarm corpus (tests/sites/async/tasks.yaml) in the browser's
// existing tab, the steps of async-tasks.mjs with a think time between them: the demonstrator that
// `keynode record` watches in tests/integration/falsealarm.sh. MODE is the task id.
import { connect, run, say, think, base, mode } from './lib.mjs';
import { tasks } from './async-tasks.mjs';

run(async () => {
  const body = tasks[mode];
  if (!body) throw new Error(`no task ${mode} in async-tasks.mjs`);
  const { page } = await connect();
  say(`task ${mode}`);
  await body(page, base, () => think());
});
