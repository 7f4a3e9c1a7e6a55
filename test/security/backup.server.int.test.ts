/**
 * Backup and restore of the embedded database (issue #19): a backup taken while the server runs, the data
 * directory wiped, the backup restored with the encryption key kept apart: the verifications and their media
 * (decrypted byte for byte) are back, and what came after the backup is not.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { aesGcmDecrypt } from '@/lib/core/crypto/secretbox';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import * as I from '@/test/helpers/images';
import { keyIdOf, newKeyBase64 } from '@/lib/core/crypto/keyring';
import { childEnv, freePort, start, startRefused, stop } from '@/test/helpers/server';
import { opsSync } from '@/test/helpers/ops-sync';
import { makeWorkspace, raw, signedClient, startService, type Service } from './harness';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('backup and restore of the embedded database', () => {
  const keep = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-backup-'));
  let svc: Service | undefined;
  afterAll(async () => {
    await svc?.cleanup();
    fs.rmSync(keep, { recursive: true, force: true });
  });

  /** Every media blob of the database, decrypted with the key: id → SHA-256 of the image. */
  async function mediaHashes(dataDir: string) {
    const url = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).databaseUrl;
    const key = Buffer.from(fs.readFileSync(path.join(dataDir, 'encryption.key'), 'utf8').trim(), 'base64');
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // Each photo under its verification's data key, wrapped by the encryption key (lib/domain/media/storage.ts).
      const rows = await sql`
        select b.media_id, b.ciphertext, b.sealed_by, m.verification_id, k.wrapped
        from media_blobs b join media m on m.id = b.media_id left join data_keys k on k.verification_id = m.verification_id
        order by b.media_id`;
      const open = (r: (typeof rows)[number]) =>
        r.sealed_by === 'data_key'
          ? aesGcmDecrypt(
              r.ciphertext,
              `media:${r.media_id}`,
              aesGcmDecrypt(r.wrapped, `data_key:${r.verification_id}`, key),
            )
          : aesGcmDecrypt(r.ciphertext, `media:${r.media_id}`, key);
      return Object.fromEntries(rows.map((r) => [r.media_id, sha(open(r))]));
    } finally {
      await sql.end();
    }
  }
  /** The CLI on a data directory: its exit status and its one JSON object. */
  const opsAt = (dataDir: string, port: number, env: Record<string, string>, ...a: string[]) => {
    try {
      return { code: 0, out: JSON.parse(opsSync([...a, '--json'], childEnv(dataDir, port, env))) };
    } catch (e) {
      const err = e as { status: number; stdout: Buffer };
      return { code: err.status, out: JSON.parse(err.stdout.toString()) };
    }
  };
  const ops = (s: Service, ...a: string[]) => opsAt(s.dataDir, s.port, s.env, ...a).out;
  /** Every file under a directory: its mode, size and content hash (what "untouched" means). */
  const snapshot = (dir: string): Record<string, string> =>
    Object.fromEntries(
      fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => {
        const p = path.join(dir, f);
        const st = fs.statSync(p);
        return [f, `${st.mode.toString(8)} ${st.isFile() ? `${st.size} ${sha(fs.readFileSync(p))}` : 'dir'}`];
      }),
    );
  // What the first test made, for the last.
  let seeded: { w: ReturnType<typeof makeWorkspace>; inReview: string; key: string };

  it('online backup, wipe, restore with the key kept apart: verifications and media back; later changes not', async () => {
    svc = await startService();
    const w = makeWorkspace(svc);
    const api = signedClient(() => svc!.server.base, w.apiKey, w.test);
    const inReview = await api.prepare({ selfie: await I.selfie1280() });
    expect((await api.submit(inReview)).data.status).toBe('review');
    const started = await api.prepare({ selfie: I.astronaut() });
    const before = await mediaHashes(svc.dataDir);
    expect(Object.keys(before)).toHaveLength(2);

    // Online: the server keeps serving while the launcher takes the copy.
    const file = path.join(keep, 'open-verify.tar.gz');
    const b = ops(svc, 'backup', '--out', file);
    expect(b.backup).toMatchObject({ online: true, file });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).size).toBeGreaterThan(1000);
    // The backup does not carry the key: no trace of it in the archive's bytes.
    const key = fs.readFileSync(path.join(svc.dataDir, 'encryption.key'), 'utf8').trim();
    expect(
      execFileSync('sh', ['-c', `gzip -dc '${file}' | grep -c -F '${key}' || true`])
        .toString()
        .trim(),
    ).toBe('0');

    seeded = { w, inReview, key };
    const after = (await api.json('POST', '/v1/verifications', '{"external_id":"after-the-backup"}')).data.id as string;
    fs.copyFileSync(path.join(svc.dataDir, 'encryption.key'), path.join(keep, 'encryption.key'));

    // Wipe the whole data directory.
    expect(await stop(svc.server)).toBe(0);
    fs.rmSync(svc.dataDir, { recursive: true, force: true });
    const r = ops(svc, 'restore', '--from', file, '--encryption-key-file', path.join(keep, 'encryption.key'));
    expect(r.restored).toMatchObject({ verifications: 2, media: 2, moved_aside: null });
    svc.server = await start(svc.dataDir, svc.port, svc.env);

    const get = (id: string) =>
      raw(svc!.server.base, 'GET', `/v1/verifications/${id}`, {
        'x-api-key': w.apiKey,
        'x-hmac-signature': signJsonRequest(w.test, 'GET', `/v1/verifications/${id}`),
      });
    expect((await get(inReview)).json.data.status).toBe('review');
    expect((await get(started)).json.data.status).toBe('started');
    expect((await get(after)).status).toBe(404);
    expect(await mediaHashes(svc.dataDir)).toEqual(before);
    // And it works on: a new upload and submit on the restored database.
    expect((await api.submit(started)).data.status).toBe('review');
  }, 300_000);

  it('offline backup with the server stopped; a restore over an existing database needs --force and keeps the old one aside', async () => {
    expect(await stop(svc!.server)).toBe(0);
    const file = path.join(keep, 'offline.tar.gz');
    expect(ops(svc!, 'backup', '--out', file).backup).toMatchObject({ online: false });
    expect(ops(svc!, 'restore', '--from', file).error.code).toBe('BACKUP_FAILED');
    const r = ops(svc!, 'restore', '--from', file, '--force');
    expect(r.restored.moved_aside).toMatch(/db\.before-restore-/);
    expect(fs.existsSync(r.restored.moved_aside)).toBe(true);
    svc!.server = await start(svc!.dataDir, svc!.port, svc!.env);
    expect((await raw(svc!.server.base, 'GET', '/readyz')).status).toBe(200);
  }, 300_000);

  it('on a new machine, a restore without the key the backup needs writes nothing and names the key; a server without it refuses to start', async () => {
    await stop(svc!.server);
    const file = path.join(keep, 'open-verify.tar.gz');
    const kid = keyIdOf(Buffer.from(seeded.key, 'base64'));
    // A new machine: its data directory made ready (empty but for a note), no key.
    const fresh = path.join(keep, 'new-machine');
    fs.mkdirSync(fresh, { mode: 0o700 });
    fs.writeFileSync(path.join(fresh, 'NOTE'), 'restore here\n', { mode: 0o644 });
    const port = await freePort();
    const before = { dir: snapshot(fresh), beside: fs.readdirSync(keep).sort() };
    const untouched = () => expect({ dir: snapshot(fresh), beside: fs.readdirSync(keep).sort() }).toEqual(before);

    // Without --encryption-key-file (it used to succeed, generate a fresh key at start, and serve 500s).
    const bare = opsAt(fresh, port, {}, 'restore', '--from', file);
    expect([bare.code, bare.out.error?.code]).toEqual([1, 'ENCRYPTION_KEY_UNAVAILABLE']);
    expect(bare.out.error.details.missing_key_ids).toEqual([kid]);
    expect(bare.out.error.message).toContain(kid);
    expect(bare.out.error.message).toContain('--encryption-key-file');
    untouched();
    // With the wrong key file, or the wrong ENCRYPTION_KEY in the environment: the same.
    const other = path.join(keep, 'other.key');
    fs.writeFileSync(other, newKeyBase64() + '\n', { mode: 0o600 });
    before.beside = fs.readdirSync(keep).sort();
    const wrong = opsAt(fresh, port, {}, 'restore', '--from', file, '--encryption-key-file', other);
    expect([wrong.code, wrong.out.error?.code, wrong.out.error?.details.missing_key_ids]).toEqual([
      1,
      'ENCRYPTION_KEY_UNAVAILABLE',
      [kid],
    ]);
    const wrongEnv = opsAt(
      fresh,
      port,
      { ENCRYPTION_KEY: newKeyBase64() },
      'restore',
      '--from',
      file,
      '--encryption-key-file',
      path.join(keep, 'encryption.key'),
    );
    expect([wrongEnv.code, wrongEnv.out.error?.code]).toEqual([1, 'ENCRYPTION_KEY_UNAVAILABLE']);
    expect(wrongEnv.out.error.message).toContain('ENCRYPTION_KEY');
    untouched();

    // With the key: restored, and the key id checked is reported.
    const ok = opsAt(
      fresh,
      port,
      {},
      'restore',
      '--from',
      file,
      '--encryption-key-file',
      path.join(keep, 'encryption.key'),
    );
    expect([ok.code, ok.out.restored?.key_ids]).toEqual([0, [kid]]);
    expect(fs.readFileSync(path.join(fresh, 'NOTE'), 'utf8')).toBe('restore here\n');

    // The key lost afterwards: the launcher refuses to serve (exit status 1, the key id named), and leaves no
    // generated key behind; with another key in its place, the same.
    fs.rmSync(path.join(fresh, 'encryption.key'));
    const lost = await startRefused(fresh, port);
    expect(lost.code).toBe(1);
    expect(lost.out).toContain(kid);
    expect(lost.out).toMatch(/refus/i);
    expect(fs.existsSync(path.join(fresh, 'encryption.key'))).toBe(false);
    fs.copyFileSync(other, path.join(fresh, 'encryption.key'));
    const replaced = await startRefused(fresh, port);
    expect([replaced.code, replaced.out.includes(kid)]).toEqual([1, true]);

    // Restored again over it with a key file from a rotation (a new key, the backup's as previous): accepted; the
    // key file it replaces is moved aside, not overwritten.
    const rotated = path.join(keep, 'rotated.key');
    fs.writeFileSync(rotated, newKeyBase64() + '\n', { mode: 0o600 });
    fs.copyFileSync(path.join(keep, 'encryption.key'), `${rotated}.previous`);
    const again = opsAt(fresh, port, {}, 'restore', '--from', file, '--force', '--encryption-key-file', rotated);
    expect([again.code, again.out.restored?.key_ids]).toEqual([0, [kid]]);
    const read = (f: string) => fs.readFileSync(f, 'utf8').trim();
    expect([read(path.join(fresh, 'encryption.key')), read(path.join(fresh, 'encryption.key.previous'))]).toEqual([
      read(rotated),
      seeded.key,
    ]);
    const aside = fs.readdirSync(fresh).filter((f) => f.startsWith('encryption.key.before-restore-'));
    expect(aside.map((f) => read(path.join(fresh, f)))).toEqual([read(other)]);

    // It serves the restored data, reading the backup's values with the previous key.
    const server = await start(fresh, port);
    try {
      const p = `/v1/verifications/${seeded.inReview}`;
      const r = await raw(server.base, 'GET', p, {
        'x-api-key': seeded.w.apiKey,
        'x-hmac-signature': signJsonRequest(seeded.w.test, 'GET', p),
      });
      expect([r.status, r.json.data.status]).toEqual([200, 'review']);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 300_000);
});
