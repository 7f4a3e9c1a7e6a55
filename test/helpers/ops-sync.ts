/**
 * The operator CLI for a server's environment (its data directory and port, or its DATABASE_URL), answered
 * synchronously as `execFileSync(tsx, ['server/ops.ts', …])` was, without a tsx start-up of seconds for each
 * command: server/ops.ts's main() runs in a worker thread kept for that environment (its own process.env, its
 * own module state: env cache, key ring, logger), which this thread waits for. `backup` and `restore` still run
 * as their own process: they set the process's umask, which a worker thread cannot.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

const root = path.resolve(import.meta.dirname, '../..');
const OWN_PROCESS = new Set(['backup', 'restore']);
/** As long as a command may take on a busy machine (a first connection, a migration): then the thread is stuck. */
const WAIT_MS = 300_000;

type Thread = { worker: Worker; port: MessagePort; flag: Int32Array };
const threads = new Map<string, Thread>();

function thread(env: NodeJS.ProcessEnv): Thread {
  const key = JSON.stringify(env);
  let t = threads.get(key);
  if (!t) {
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(path.join(root, 'test/helpers/ops-worker.mjs'), {
      env,
      workerData: {
        port: port2,
        flag,
        entry: path.join(root, 'server/ops.ts'),
        envModule: path.join(root, 'lib/core/env.ts'),
      },
      transferList: [port2],
    });
    worker.unref();
    port1.unref();
    t = { worker, port: port1, flag };
    threads.set(key, t);
  }
  return t;
}

/** Starts the thread for `env` (it loads server/ops.ts at once), so that the first command does not wait seconds for it. */
export function prewarmOps(env: NodeJS.ProcessEnv) {
  thread(env);
}

/**
 * `tsx server/ops.ts ...argv` in `env`: its stdout, or (exit status not 0) an error carrying `status` and
 * `stdout`, as execFileSync throws.
 */
export function opsSync(argv: string[], env: NodeJS.ProcessEnv): string {
  if (OWN_PROCESS.has(argv[0]))
    return execFileSync(path.join(root, 'node_modules/.bin/tsx'), ['server/ops.ts', ...argv], {
      cwd: root,
      env,
    }).toString();
  const t = thread(env);
  Atomics.store(t.flag, 0, 0);
  t.port.postMessage({ argv });
  if (Atomics.wait(t.flag, 0, 0, WAIT_MS) === 'timed-out') {
    threads.delete(JSON.stringify(env));
    void t.worker.terminate();
    throw new Error(`ops ${argv.join(' ')}: no answer in ${WAIT_MS / 1000} s`);
  }
  const answer = receiveMessageOnPort(t.port)!.message as
    { code: number; stdout: string; stderr: string } | { error: string };
  if ('error' in answer) throw new Error(`ops ${argv.join(' ')}: ${answer.error}`);
  if (answer.stderr) process.stderr.write(answer.stderr);
  if (answer.code !== 0) {
    throw Object.assign(new Error(`Command failed: ops ${argv.join(' ')}\n${answer.stdout}`), {
      status: answer.code,
      stdout: Buffer.from(answer.stdout),
      stderr: Buffer.from(answer.stderr),
    });
  }
  return answer.stdout;
}
