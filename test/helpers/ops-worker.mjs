/**
 * The worker thread of test/helpers/ops-sync.ts: server/ops.ts loaded once (through tsx), then main() for each
 * command line it is sent, in this thread's own copy of the environment, put back after each command.
 */
import { pathToFileURL } from 'node:url';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

const { port, flag, entry, envModule } = workerData;
const done = (answer) => {
  port.postMessage(answer);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
let loaded;
try {
  register();
  loaded = {
    main: (await import(pathToFileURL(entry).href)).main,
    resetEnvCache: (await import(pathToFileURL(envModule).href)).resetEnvCache,
  };
} catch (e) {
  loaded = { error: String(e?.stack ?? e) };
}
port.on('message', async ({ argv }) => {
  if (loaded.error) return done({ error: loaded.error });
  const saved = { ...process.env };
  let stdout = '';
  let stderr = '';
  try {
    const code = await loaded.main(argv, { out: (s) => (stdout += s), err: (s) => (stderr += s) });
    done({ code, stdout, stderr });
  } catch (e) {
    done({ error: String(e?.stack ?? e) });
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    loaded.resetEnvCache();
  }
});
