/** Minimal structured logger: one JSON line per event on stderr. Never pass secrets or tokens. */
import { env } from './env';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

function threshold(): number {
  try {
    return LEVELS[env().LOG_LEVEL];
  } catch {
    return LEVELS.info; // an invalid environment is reported by whoever reads it first; logging goes on
  }
}

function serialize(fields: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = v instanceof Error ? errorFields(v) : v;
  }
  return out;
}

function errorFields(e: Error, depth = 0): Record<string, unknown> {
  const f: Record<string, unknown> = { name: e.name, message: e.message, stack: e.stack };
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) f.code = code;
  if (e.cause instanceof Error && depth < 3) f.cause = errorFields(e.cause, depth + 1);
  return f;
}

function write(level: Level, msg: string, fields: Record<string, unknown> = {}) {
  if (LEVELS[level] < threshold()) return;
  process.stderr.write(JSON.stringify({ t: new Date().toISOString(), level, msg, ...serialize(fields) }) + '\n');
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write('debug', m, f),
  info: (m: string, f?: Record<string, unknown>) => write('info', m, f),
  warn: (m: string, f?: Record<string, unknown>) => write('warn', m, f),
  error: (m: string, f?: Record<string, unknown>) => write('error', m, f),
};
