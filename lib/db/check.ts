import postgres from 'postgres';
import { RuntimeError } from './runtime';
import { checkKeyRing, KeysUnreadableError } from '../core/crypto/key-check';
import type { KeyRing } from '../core/crypto/keyring';

/** Fails with a clear message when the database is unreachable or lacks pgvector. */
export async function checkDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const rows = await sql`select 1 from pg_available_extensions where name = 'vector'`.catch((e: Error) => {
      throw new RuntimeError(`Cannot connect to the database: ${e.message}`);
    });
    if (rows.length === 0) {
      throw new RuntimeError('The database has no pgvector extension available; install pgvector on the server.');
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/**
 * Refuses a start whose key ring cannot read the database's encrypted values (a restore without its key, a key
 * file lost or replaced, a server deployed without the key the others rotated to): without this it would serve,
 * and answer every signed request with a 500. docs/deploy.md, "Backing up and restoring".
 */
export async function checkEncryptionKeys(url: string, ring: KeyRing, from: string, generated?: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const check = await checkKeyRing(async (text) => Array.from(await sql.unsafe(text)), ring.accepted);
    if (check.missing.length === 0) return;
    throw new KeysUnreadableError(
      `Refusing to start: the database holds values encrypted under key id ${check.missing.join(', ')}, which this server's key ring ` +
        `(${generated ? `none: ${generated} did not exist, and the key generated for it at this start is removed again` : `${from}: key id ${[...ring.accepted.keys()].join(', ')}`}) ` +
        'does not have; every signed request would fail. ' +
        'Give the server the key it was encrypted with: the embedded default reads $DATA_DIR/encryption.key (and encryption.key.previous), ' +
        'a deployment with DATABASE_URL reads ENCRYPTION_KEY and ENCRYPTION_KEYS_PREVIOUS (or ENCRYPTION_KEY_FILE).',
      check,
      [...ring.accepted.keys()],
    );
  } finally {
    await sql.end({ timeout: 2 });
  }
}
