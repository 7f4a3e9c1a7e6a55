/** The operator CLI run as its own process (`tsx server/ops.ts … --json`), as an operator runs it, on the tests' database. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { JsonBody } from './http';

const run = promisify(execFile);

/**
 * The exit code, the one JSON object the command printed (the test fails if it printed anything else) and its
 * raw text (an export or a receipt, as written).
 */
export async function opsProcess(...args: string[]): Promise<{ code: number; out: JsonBody; raw: string }> {
  const tsx = path.resolve('node_modules/.bin/tsx');
  try {
    const { stdout } = await run(tsx, ['server/ops.ts', ...args, '--json'], { env: { ...process.env, LOG_LEVEL: 'silent' }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: oneJsonLine(stdout), raw: stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: oneJsonLine(err.stdout), raw: err.stdout };
  }
}

function oneJsonLine(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object on stdout
  return JSON.parse(lines[0]);
}
