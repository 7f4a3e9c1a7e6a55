/**
 * The operator CLI on the tests' database, with --json: `ops` calls server/ops.ts's main() in this process (the
 * same command line, parsing, commands and printing, without a tsx start-up of seconds for each call);
 * `opsProcess` runs it as its own process (`tsx server/ops.ts … --json`), as an operator runs it, for the
 * tests that prove the wrapper (exit status, stdout holding the one JSON object, --help).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { main } from '@/server/ops';
import { resetEnvCache } from '@/lib/core/env';
import type { JsonBody } from './http';

const run = promisify(execFile);
type OpsResult = { code: number; out: JsonBody; raw: string };

/**
 * The exit code, the one JSON object the command printed (the test fails if it printed anything else) and its
 * raw text (an export or a receipt, as written).
 */
export async function opsProcess(...args: string[]): Promise<OpsResult> {
  const tsx = path.resolve('node_modules/.bin/tsx');
  try {
    const { stdout } = await run(tsx, ['server/ops.ts', ...args, '--json'], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: oneJsonLine(stdout), raw: stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: oneJsonLine(err.stdout), raw: err.stdout };
  }
}

/**
 * The same answer from main() in this process. main() sets ENCRYPTION_KEY (and ENCRYPTION_KEY_FILE for an
 * embedded database) in process.env for the commands it runs: the test's environment is put back afterwards, so
 * each call starts from the environment a new process would have.
 */
export async function ops(...args: string[]): Promise<OpsResult> {
  const saved = { ...process.env };
  let stdout = '';
  try {
    const code = await main([...args, '--json'], { out: (s) => (stdout += s), err: () => {} });
    return { code, out: oneJsonLine(stdout), raw: stdout };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetEnvCache();
  }
}

function oneJsonLine(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object on stdout
  return JSON.parse(lines[0]);
}
