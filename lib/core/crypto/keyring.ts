/**
 * The key-encryption keys: ENCRYPTION_KEY, which encrypts everything new, and the keys a rotation still
 * accepts for reading (ENCRYPTION_KEYS_PREVIOUS). Every value wrapped by one of them carries its key id, so a
 * reader picks the right key and `npm run ops -- encryption:rotate` finds what is still under an old one.
 *
 * Where the keys come from: the environment, or a key file (ENCRYPTION_KEY_FILE: its first line encrypts,
 * `<file>.previous` lists keys still accepted) that is re-read when it changes, so a rotation needs no restart.
 * The embedded default keeps its key in $DATA_DIR/encryption.key and uses it this way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { env, type Env } from '../env';

export type Kek = { id: string; key: Buffer };
export type KeyRing = {
  /** The key that encrypts. */
  primary: Kek;
  /** Every key accepted for reading, the primary included, by key id. */
  accepted: ReadonlyMap<string, Kek>;
  source: 'environment' | 'file';
};

export const KEY_BYTES = 32;

/** A value wrapped by a key this process does not hold (retired, or not yet deployed here). */
export class KeyUnavailableError extends Error {
  constructor(readonly keyId: string) {
    super(
      `Encryption key ${keyId} is not in this server's key ring (ENCRYPTION_KEY, ENCRYPTION_KEYS_PREVIOUS or the key file).`,
    );
    this.name = 'KeyUnavailableError';
  }
}

/** A key's public name: derived from the key (HMAC), so it says nothing about the key and needs no registry. */
export const keyIdOf = (key: Buffer) =>
  createHmac('sha256', key).update('open-verify/key-id/v1').digest('hex').slice(0, 16);

export const newKeyBase64 = () => randomBytes(KEY_BYTES).toString('base64');

function decodeKey(b64: string, where: string): Buffer {
  const key = Buffer.from(b64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${where}: a key must be ${KEY_BYTES} bytes, base64-encoded`);
  return key;
}

function makeRing(primary: Buffer, others: Buffer[], source: KeyRing['source']): KeyRing {
  const p = { id: keyIdOf(primary), key: primary };
  const accepted = new Map<string, Kek>([[p.id, p]]);
  for (const k of others) {
    const id = keyIdOf(k);
    if (!accepted.has(id)) accepted.set(id, { id, key: k });
  }
  return { primary: p, accepted, source };
}

let envCache: { stamp: string; ring: KeyRing } | undefined;
let fileCache: { file: string; stamp: string; checkedAt: number; ring: KeyRing } | undefined;
/** How often a key file is looked at again (one stat of two files). */
export const KEY_FILE_RECHECK_MS = 1000;

export function keyRing(): KeyRing {
  const e = env();
  if (e.ENCRYPTION_KEY_FILE) return fileRing(path.resolve(e.ENCRYPTION_KEY_FILE));
  if (!e.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is not set (the launcher sets it for the embedded database)');
  const previous = e.ENCRYPTION_KEYS_PREVIOUS ?? [];
  const stamp = `${e.ENCRYPTION_KEY}|${previous.join(',')}`;
  if (envCache?.stamp !== stamp) {
    envCache = {
      stamp,
      ring: makeRing(
        decodeKey(e.ENCRYPTION_KEY, 'ENCRYPTION_KEY'),
        previous.map((k) => decodeKey(k, 'ENCRYPTION_KEYS_PREVIOUS')),
        'environment',
      ),
    };
  }
  return envCache.ring;
}

export const previousKeyFile = (file: string) => `${file}.previous`;

function statStamp(f: string) {
  try {
    const s = fs.statSync(f);
    return `${s.ino}:${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
}

function keyLines(f: string): string[] {
  if (!fs.existsSync(f)) return [];
  return fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

function fileRing(file: string): KeyRing {
  const now = Date.now();
  if (fileCache?.file === file && now - fileCache.checkedAt < KEY_FILE_RECHECK_MS) return fileCache.ring;
  const stamp = `${statStamp(file)}|${statStamp(previousKeyFile(file))}`;
  if (fileCache?.file === file && fileCache.stamp === stamp) {
    fileCache.checkedAt = now;
    return fileCache.ring;
  }
  const main = keyLines(file);
  if (main.length === 0) throw new Error(`ENCRYPTION_KEY_FILE ${file}: no key in it`);
  const others = [...main.slice(1), ...keyLines(previousKeyFile(file))].map((k) => decodeKey(k, previousKeyFile(file)));
  const ring = makeRing(decodeKey(main[0], file), others, 'file');
  fileCache = { file, stamp, checkedAt: now, ring };
  return ring;
}

/** Forgets what was read (tests change the environment or the files and want it seen at once). */
export function reloadKeyRing() {
  envCache = undefined;
  fileCache = undefined;
}

/**
 * The key file of the embedded default ($DATA_DIR/encryption.key), when the key comes from it rather than from
 * ENCRYPTION_KEY: the launcher and the CLI then hand its path on as ENCRYPTION_KEY_FILE.
 */
export function embeddedKeyFile(e: Env): string | undefined {
  if (e.ENCRYPTION_KEY_FILE) return path.resolve(e.ENCRYPTION_KEY_FILE);
  if (e.DATABASE_URL || e.ENCRYPTION_KEY) return undefined;
  return path.resolve(e.DATA_DIR, 'encryption.key');
}

/**
 * A rotation of a key file: the old keys are written to `<file>.previous` first (still accepted), then the new
 * key replaces the file at once (rename), so every reader sees either the old ring or the new one, whole.
 */
export function writeKeyFiles(file: string, primaryB64: string, previousB64: string[]) {
  const prev = previousKeyFile(file);
  const tmp = (f: string) => `${f}.${process.pid}.tmp`;
  if (previousB64.length) {
    fs.writeFileSync(tmp(prev), previousB64.join('\n') + '\n', { mode: 0o600 });
    fs.renameSync(tmp(prev), prev);
  } else {
    fs.rmSync(prev, { force: true });
  }
  fs.writeFileSync(tmp(file), primaryB64 + '\n', { mode: 0o600 });
  fs.renameSync(tmp(file), file);
  reloadKeyRing();
}

/**
 * The key ring a server started with this environment would hold (server/launch.ts: ENCRYPTION_KEY_FILE, else
 * ENCRYPTION_KEY with ENCRYPTION_KEYS_PREVIOUS, else the data directory's encryption.key and its .previous), read
 * now without generating or caching anything. `dataDirKeys`: a key file about to become the data directory's own
 * (restore --encryption-key-file). `ring` is null when there is no key at all (a first start generates one).
 */
export function startupKeyRing(
  e: Env,
  dataDirKeys?: { primary: string; previous: string[] },
): { ring: KeyRing | null; from: string } {
  // `from`: where the server's keys would come from, as a clause for an error message.
  const ring = (k: { primary: string; previous: string[] }, where: string, source: KeyRing['source']) =>
    makeRing(
      decodeKey(k.primary, where),
      k.previous.map((p) => decodeKey(p, where)),
      source,
    );
  if (e.ENCRYPTION_KEY_FILE) {
    const file = path.resolve(e.ENCRYPTION_KEY_FILE);
    return {
      ring: ring(readKeyFiles(file), file, 'file'),
      from: `its keys would come from ENCRYPTION_KEY_FILE (${file})`,
    };
  }
  if (e.ENCRYPTION_KEY) {
    return {
      ring: ring(
        { primary: e.ENCRYPTION_KEY, previous: e.ENCRYPTION_KEYS_PREVIOUS ?? [] },
        'ENCRYPTION_KEY',
        'environment',
      ),
      from: 'its keys would come from ENCRYPTION_KEY and ENCRYPTION_KEYS_PREVIOUS, set in this environment',
    };
  }
  const file = path.resolve(e.DATA_DIR, 'encryption.key');
  if (dataDirKeys)
    return {
      ring: ring(dataDirKeys, '--encryption-key-file', 'file'),
      from: `its keys would come from the key file given (to become ${file})`,
    };
  if (!fs.existsSync(file))
    return {
      ring: null,
      from: `it would have no key: ${file} does not exist, and a new key would be generated at its start`,
    };
  return {
    ring: ring(readKeyFiles(file), file, 'file'),
    from: `its keys would come from the data directory's key file (${file})`,
  };
}

/** The base64 keys of a key file: the primary and the previous ones. */
export function readKeyFiles(file: string): { primary: string; previous: string[] } {
  const main = keyLines(file);
  if (main.length === 0) throw new Error(`${file}: no key in it`);
  return { primary: main[0], previous: [...main.slice(1), ...keyLines(previousKeyFile(file))] };
}
