/**
 * The operator CLI's command line (docs/cli.md): every command declares its flags once (name, type, required,
 * help), and parsing, validation, `--help` and the usage errors all follow from that declaration.
 *
 * Parsing: node's `util.parseArgs` reads the words (`--flag value`, `--flag=value`, `-h`, `--`) with `tokens: true`,
 * the way its documentation gives for behaviour of one's own; the strictness is ours, from the declaration,
 * because parseArgs' `strict: true` cannot express two things the CLI has always accepted and scripts use: a
 * boolean flag bare or with `true|false` after it (`--rebuild`, `--rebuild false`, `--operator true`), and it
 * names the offending flag only inside its message text, where `--json` needs it as a field.
 *
 * A command line that does not match the declaration is a usage error: exit status 2, nothing done, no database
 * opened. A value of the right shape that the command refuses (not a number, out of range, unknown id) stays
 * what it was: exit status 1, the same `{ "error": ... }` as before.
 */
import { parseArgs } from 'node:util';
import { DomainError } from '../lib/core/errors';

export type FlagType = 'string' | 'int' | 'number' | 'bool';
export type FlagSpec = {
  /** string: a value; int / number: a value checked to be one; bool: bare (true) or followed by true|false. */
  type: FlagType;
  required?: boolean;
  /** The value's name in the help: ID, FILE, test|live. */
  value?: string;
  /** One line: what the flag does. */
  help: string;
  /** string: an empty value (`--flag ''`) is a value (a list flag's "none"), not a missing one. */
  allowEmpty?: boolean;
};
export type FlagDecl = Record<string, FlagSpec>;

type ValueOf<S extends FlagSpec> = S['type'] extends 'string' ? string : S['type'] extends 'bool' ? boolean : number;
/** The parsed values of a declaration: a required flag is always there, any other may be undefined. */
export type FlagValues<F extends FlagDecl> = {
  [K in keyof F]: F[K] extends { required: true } ? ValueOf<F[K]> : ValueOf<F[K]> | undefined;
};

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  json: { type: 'bool', help: 'print exactly one JSON object on stdout (errors included)' },
  help: { type: 'bool', help: "print the command's flags and exit" },
} as const satisfies FlagDecl;

/** A command line that does not match the command's declaration: exit status 2. */
export class UsageError extends Error {
  constructor(
    readonly code:
      | 'UNKNOWN_COMMAND'
      | 'UNKNOWN_FLAG'
      | 'MISSING_VALUE'
      | 'DUPLICATE_FLAG'
      | 'UNEXPECTED_ARGUMENT'
      | 'VALIDATION_ERROR',
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The closest of `names` to `given` when it looks like a misspelling of it (edit distance ≤ 2, or a third). */
export function closest(given: string, names: string[]): string | undefined {
  const d = (a: string, b: string) => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++)
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  };
  let best: { name: string; dist: number } | undefined;
  for (const name of names) {
    const dist = d(given, name);
    if (dist <= Math.max(2, Math.floor(name.length / 3)) && (!best || dist < best.dist)) best = { name, dist };
  }
  return best?.name;
}

const dashed = (name: string) => `--${name}`;

/** Whether the words ask for help or JSON, read before (and whatever) the parse says: a usage error is printed as asked. */
export function wants(args: string[]): { help: boolean; json: boolean } {
  return {
    help: args.some((a) => a === '--help' || a === '-h' || a === '--help=true'),
    json: args.some((a) => a === '--json' || a === '--json=true'),
  };
}

function convert(name: string, spec: FlagSpec, raw: string | true): string | number | boolean {
  const fields = (msg: string) => ({ fields: { [name]: [msg] } });
  switch (spec.type) {
    case 'bool':
      if (raw === true || raw === 'true') return true;
      if (raw === 'false') return false;
      throw new DomainError('VALIDATION_ERROR', `--${name} takes true or false.`, fields('true or false'));
    case 'int': {
      const n = raw === true || raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isInteger(n))
        throw new DomainError('VALIDATION_ERROR', `--${name} takes an integer.`, fields('integer'));
      return n;
    }
    case 'number': {
      const n = raw === true || raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw new DomainError('VALIDATION_ERROR', `--${name} takes a number.`, fields('number'));
      return n;
    }
    case 'string':
      if (raw === true || (raw === '' && !spec.allowEmpty))
        throw new DomainError('VALIDATION_ERROR', `--${name} needs a value.`, fields('Required.'));
      return raw;
  }
}

/**
 * The words after the command name, checked against its declared flags (and the global ones) and converted to
 * their types. Throws UsageError (exit 2) for what does not fit the declaration, DomainError VALIDATION_ERROR
 * (exit 1) for a value of the wrong kind.
 */
export function parseCommandLine<F extends FlagDecl>(
  command: string,
  flags: F,
  args: string[],
): FlagValues<F> & { json: boolean; help: boolean } {
  const all: FlagDecl = { ...flags, ...GLOBAL_FLAGS };
  const valid = Object.keys(all).map(dashed);
  // Value flags as strings, so parseArgs hands over the word after them whatever it is; booleans bare, so a
  // `true|false` after one arrives as the next (positional) token, paired with it below.
  const options = Object.fromEntries(
    Object.entries(all).map(([n, s]) => [n, { type: s.type === 'bool' ? ('boolean' as const) : ('string' as const) }]),
  );
  const { tokens } = parseArgs({
    args,
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });

  const raw = new Map<string, string | true>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      throw new UsageError(
        'UNEXPECTED_ARGUMENT',
        `${command} takes no argument "${t.value}" (flags only: ${valid.join(' ')}).`,
        { argument: t.value, valid },
      );
    }
    const spec = all[t.name];
    if (!spec) {
      const suggestion = closest(t.rawName, valid);
      throw new UsageError(
        'UNKNOWN_FLAG',
        `Unknown flag ${t.rawName} for ${command}${suggestion ? ` (did you mean ${suggestion}?)` : ''}. Valid flags: ${valid.join(' ')}.`,
        { flag: t.rawName, valid, ...(suggestion ? { suggestion } : {}) },
      );
    }
    if (raw.has(t.name))
      throw new UsageError('DUPLICATE_FLAG', `${dashed(t.name)} is given twice.`, { flag: dashed(t.name), valid });
    let value: string | true;
    if (spec.type === 'bool') {
      const next = tokens[i + 1];
      if (t.value !== undefined) value = t.value;
      else if (next?.kind === 'positional' && next.index === t.index + 1) {
        value = next.value;
        i++;
      } else value = true;
    } else {
      // parseArgs takes the next word as the value whatever it is: one that is itself a flag means none was given.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) {
        throw new UsageError(
          'MISSING_VALUE',
          `${dashed(t.name)} needs a value${spec.value ? ` (${spec.value})` : ''}.`,
          { flag: dashed(t.name), valid },
        );
      }
      value = t.value;
    }
    raw.set(t.name, value);
  }

  const out: Record<string, string | number | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(all)) {
    const r = raw.get(name);
    if (r === undefined) {
      if (spec.required) {
        throw new UsageError('VALIDATION_ERROR', `--${name} is required.`, {
          fields: { [name]: ['Required.'] },
          flag: dashed(name),
          valid,
        });
      }
      continue;
    }
    out[name] = convert(name, spec, r);
  }
  return { ...(out as FlagValues<F>), json: out.json === true, help: out.help === true };
}

function flagLine(name: string, spec: FlagSpec): [string, string] {
  const left = `${dashed(name)}${name === 'help' ? ', -h' : ''}${spec.type === 'bool' ? (spec.value ? ` [${spec.value}]` : '') : ` ${spec.value ?? spec.type.toUpperCase()}`}`;
  return [left, `${spec.required ? '(required) ' : ''}${spec.help}`];
}

function columns(rows: [string, string][], indent = '  '): string[] {
  const width = Math.min(40, Math.max(...rows.map(([l]) => l.length)) + 2);
  return rows.map(([l, r]) =>
    l.length + 2 > width ? `${indent}${l}\n${indent}${' '.repeat(width)}${r}` : `${indent}${l.padEnd(width)}${r}`,
  );
}

export const USAGE = 'npm run ops -- <command> [flags] [--json]';
export const EXIT_CODES_TEXT =
  'Exit status: 0 done; 1 the command failed (the error says why); 2 the command line is wrong (nothing was done).';

export function commandHelp(name: string, c: { summary: string; flags: FlagDecl }): string {
  const flags: FlagDecl = { ...c.flags, ...GLOBAL_FLAGS };
  return [
    `Usage: npm run ops -- ${name} [flags]`,
    '',
    c.summary,
    '',
    'Flags:',
    ...columns(Object.entries(flags).map(([n, s]) => flagLine(n, s))),
    '',
    EXIT_CODES_TEXT,
    '',
  ].join('\n');
}

export function commandHelpJson(name: string, c: { summary: string; flags: FlagDecl }) {
  const flags: FlagDecl = { ...c.flags, ...GLOBAL_FLAGS };
  return {
    command: {
      name,
      summary: c.summary,
      flags: Object.entries(flags).map(([n, s]) => ({
        flag: dashed(n),
        type: s.type,
        required: s.required === true,
        ...(s.value ? { value: s.value } : {}),
        help: s.help,
      })),
    },
  };
}

export function overview(commands: Record<string, { summary: string }>): string {
  return [
    `Usage: ${USAGE}`,
    "       npm run ops -- <command> --help    (the command's flags)",
    '',
    'Commands:',
    ...columns(Object.entries(commands).map(([n, c]) => [n, c.summary])),
    '',
    EXIT_CODES_TEXT,
    'Every command: docs/cli.md.',
    '',
  ].join('\n');
}
