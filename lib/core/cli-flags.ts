/**
 * The command line of a script (the benchmarks, the evaluator): its flags declared once with their defaults, read
 * by node's `util.parseArgs` in strict mode. A flag whose default is a string takes a value (`--runs 3`,
 * `--runs=3`); one whose default is a boolean is a switch (`--write`). An unknown flag, a missing value or an
 * unexpected word is refused with the known flags listed. (The operator CLI has its own: server/ops-cli.ts.)
 */
import { parseArgs } from 'node:util';

type Spec = Record<string, string | boolean>;
export type Flags<F extends Spec> = { [K in keyof F]: F[K] extends boolean ? boolean : string };

/** A command line that does not match the declaration: its message names the fault and the known flags. */
export class UsageError extends Error {}

/** The flags of `argv` (and its words, where `words` allows them) over the declaration's defaults. */
export function parseFlags<const F extends Spec>(
  spec: F,
  argv: string[],
  words = 0,
): { flags: Flags<F>; words: string[] } {
  const options = Object.fromEntries(
    Object.entries(spec).map(([name, dflt]) => [
      name,
      typeof dflt === 'boolean'
        ? { type: 'boolean' as const, default: dflt }
        : { type: 'string' as const, default: dflt },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: words > 0 });
  } catch (e) {
    // node's advice on a positional that starts with '-' is dropped: the known flags follow.
    throw new UsageError(
      `${(e instanceof Error ? e.message : String(e)).replace(/\. To specify a positional argument[^]*$/, '')}\n${known(spec)}`,
    );
  }
  if (parsed.positionals.length > words)
    throw new UsageError(
      `unexpected ${parsed.positionals
        .slice(words)
        .map((w) => `'${w}'`)
        .join(', ')}\n${known(spec)}`,
    );
  return { flags: parsed.values as Flags<F>, words: parsed.positionals };
}

function known(spec: Spec): string {
  const list = Object.entries(spec).map(([name, dflt]) =>
    typeof dflt === 'boolean' ? `--${name}` : `--${name} <value>${dflt === '' ? '' : ` (default ${dflt})`}`,
  );
  return `known flags: ${list.length ? list.join(', ') : 'none'}`;
}

/**
 * parseFlags over this process's arguments; a usage error ends the process with its message and exit code 2.
 * `argv: []` gives the defaults (a script imported by another, whose flags are not its own).
 */
export function cliFlags<const F extends Spec>(
  spec: F,
  opts: { argv?: string[]; words?: number } = {},
): Flags<F> & { words: string[] } {
  try {
    const { flags, words } = parseFlags(spec, opts.argv ?? process.argv.slice(2), opts.words);
    return { ...flags, words };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
}
