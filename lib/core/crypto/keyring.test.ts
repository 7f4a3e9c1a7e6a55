/** The key ring: key ids on every wrapped value, old keys accepted during a rotation, key files re-read. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv, resetEnvCache } from '../env';
import {
  KEY_FILE_RECHECK_MS,
  keyIdOf,
  keyRing,
  KeyUnavailableError,
  newKeyBase64,
  reloadKeyRing,
  writeKeyFiles,
} from './keyring';
import { aesGcmEncrypt, openWithKek, sealedKeyId, sealWithKek, unwrapWithKek, wrapWithKek } from './secretbox';

const saved = {
  key: process.env.ENCRYPTION_KEY,
  prev: process.env.ENCRYPTION_KEYS_PREVIOUS,
  file: process.env.ENCRYPTION_KEY_FILE,
};
function useEnv(vars: { ENCRYPTION_KEY?: string; ENCRYPTION_KEYS_PREVIOUS?: string; ENCRYPTION_KEY_FILE?: string }) {
  for (const k of ['ENCRYPTION_KEY', 'ENCRYPTION_KEYS_PREVIOUS', 'ENCRYPTION_KEY_FILE'] as const) {
    if (vars[k] === undefined) delete process.env[k];
    else process.env[k] = vars[k];
  }
  resetEnvCache();
  reloadKeyRing();
}
afterEach(() =>
  useEnv({ ENCRYPTION_KEY: saved.key, ENCRYPTION_KEYS_PREVIOUS: saved.prev, ENCRYPTION_KEY_FILE: saved.file }),
);

const K1 = newKeyBase64();
const K2 = newKeyBase64();
const id = (b64: string) => keyIdOf(Buffer.from(b64, 'base64'));

describe('key ring', () => {
  it('a key id is derived from the key: stable, distinct, and reveals nothing of it', () => {
    expect(id(K1)).toMatch(/^[0-9a-f]{16}$/);
    expect(id(K1)).toBe(id(K1));
    expect(id(K1)).not.toBe(id(K2));
    expect(Buffer.from(K1, 'base64').toString('hex')).not.toContain(id(K1));
  });

  it('every sealed value names its key; during a rotation the old key still opens what it sealed, and new values use the new key', () => {
    useEnv({ ENCRYPTION_KEY: K1 });
    const old = sealWithKek('sk_test_secret', 'secret_key:a');
    const wrapped = wrapWithKek(Buffer.from('data key'), 'data_key:v');
    expect(sealedKeyId(old)).toBe(id(K1));
    expect(wrapped.kekId).toBe(id(K1));

    useEnv({ ENCRYPTION_KEY: K2, ENCRYPTION_KEYS_PREVIOUS: K1 });
    expect(openWithKek(old, 'secret_key:a').toString()).toBe('sk_test_secret');
    expect(unwrapWithKek(wrapped.kekId, wrapped.wrapped, 'data_key:v').toString()).toBe('data key');
    expect(sealedKeyId(sealWithKek('x', 'y'))).toBe(id(K2));
    // The row binding holds: the same ciphertext on another row does not open.
    expect(() => openWithKek(old, 'secret_key:b')).toThrow();

    useEnv({ ENCRYPTION_KEY: K2 }); // the old key retired
    expect(() => openWithKek(old, 'secret_key:a')).toThrow(KeyUnavailableError);
    expect(() => unwrapWithKek(wrapped.kekId, wrapped.wrapped, 'data_key:v')).toThrow(KeyUnavailableError);
  });

  it('values from before key ids (plain base64) open with whichever accepted key sealed them', () => {
    useEnv({ ENCRYPTION_KEY: K2, ENCRYPTION_KEYS_PREVIOUS: K1 });
    const legacy = aesGcmEncrypt('sk_live_old', 'secret_key:k', Buffer.from(K1, 'base64')).toString('base64');
    expect(sealedKeyId(legacy)).toBeNull();
    expect(openWithKek(legacy, 'secret_key:k').toString()).toBe('sk_live_old');
    useEnv({ ENCRYPTION_KEY: K2 });
    expect(() => openWithKek(legacy, 'secret_key:k')).toThrow(KeyUnavailableError);
  });

  it('ENCRYPTION_KEYS_PREVIOUS must be keys of 32 bytes', () => {
    expect(parseEnv({ ENCRYPTION_KEY: K1, ENCRYPTION_KEYS_PREVIOUS: `${K2}, ${K1}` }).ENCRYPTION_KEYS_PREVIOUS).toEqual(
      [K2, K1],
    );
    expect(() => parseEnv({ ENCRYPTION_KEYS_PREVIOUS: 'c2hvcnQ=' })).toThrow(/ENCRYPTION_KEYS_PREVIOUS/);
  });

  it('a key file is re-read when it changes: a rotation reaches a running process without a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-keys-'));
    const file = path.join(dir, 'encryption.key');
    fs.writeFileSync(file, K1 + '\n');
    // The file wins over ENCRYPTION_KEY (the launcher sets both, from the same file, at start).
    useEnv({ ENCRYPTION_KEY: K2, ENCRYPTION_KEY_FILE: file });
    expect(keyRing()).toMatchObject({ source: 'file', primary: { id: id(K1) } });
    const sealed = sealWithKek('secret', 'aad');

    writeKeyFiles(file, K2, [K1]);
    expect(fs.readFileSync(file + '.previous', 'utf8').trim()).toBe(K1);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    // Another process notices within KEY_FILE_RECHECK_MS; this one was told (writeKeyFiles reloads).
    await new Promise((r) => setTimeout(r, KEY_FILE_RECHECK_MS + 50));
    expect(keyRing().primary.id).toBe(id(K2));
    expect([...keyRing().accepted.keys()]).toEqual([id(K2), id(K1)]);
    expect(openWithKek(sealed, 'aad').toString()).toBe('secret');

    writeKeyFiles(file, K2, []);
    expect(fs.existsSync(file + '.previous')).toBe(false);
    expect(() => openWithKek(sealed, 'aad')).toThrow(KeyUnavailableError);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
