/** The scripts' flags (cli-flags.ts): declared with their defaults, read strictly. */
import { describe, expect, it } from 'vitest';
import { parseFlags, UsageError } from './cli-flags';

const spec = { db: 'embedded', runs: '3', write: false };

describe('parseFlags', () => {
  it('reads the known flags, as --flag value and --flag=value', () => {
    expect(parseFlags(spec, ['--db', 'pg15', '--runs=1', '--write']).flags).toEqual({
      db: 'pg15',
      runs: '1',
      write: true,
    });
  });

  it('gives the defaults of the flags not given', () => {
    expect(parseFlags(spec, []).flags).toEqual({ db: 'embedded', runs: '3', write: false });
  });

  it('refuses an unknown flag, listing the known ones', () => {
    expect(() => parseFlags(spec, ['--run', '1'])).toThrow(
      new UsageError(
        "Unknown option '--run'\nknown flags: --db <value> (default embedded), --runs <value> (default 3), --write",
      ),
    );
  });

  it('refuses a flag without its value', () => {
    expect(() => parseFlags(spec, ['--runs'])).toThrow(/known flags: --db/);
  });

  it('takes as many words as allowed, and refuses one more', () => {
    expect(parseFlags(spec, ['photos', '--runs', '2'], 1)).toEqual({
      flags: { db: 'embedded', runs: '2', write: false },
      words: ['photos'],
    });
    expect(() => parseFlags(spec, ['photos', 'more'], 1)).toThrow(
      "unexpected 'more'\nknown flags: --db <value> (default embedded), --runs <value> (default 3), --write",
    );
  });
});
