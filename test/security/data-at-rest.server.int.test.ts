/**
 * What is left on disk, read as an attacker with the data directory would read it (SECURITY.md, "What the suites
 * prove"; docs/privacy.md):
 * - after an erasure, a byte search of the whole data directory (tables, write-ahead log, everything) and of a
 *   backup taken before the erasure finds none of the personal fields the verifications carried: a marker in
 *   external_metadata (so in the webhook body too), in the document's fields (read by the real pipeline from a
 *   licence's barcode), in the receiver's answer and in a reviewer's note in the audit trail; the ciphertexts that
 *   are still there open with nothing the service holds; a backup from before the erasure opens only with the
 *   ENCRYPTION_KEY of its time, and no longer once that key is rotated out;
 * - every file the server, the embedded engine, the CLI, a backup and a restore create under the data directory
 *   is the owner's only (files 0600 or stricter, directories 0700).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import postgres from 'postgres';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesGcmDecrypt } from '@/lib/core/crypto/secretbox';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import { makeWorkspace, signedClient, startService, type Service } from './harness';

const rand = (n = 10) =>
  Math.random()
    .toString(36)
    .slice(2, 2 + n);
const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');

/** Every file under `dir`, recursively (symbolic links not followed). */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    else if (st.isFile()) out.push(p);
  };
  walk(dir);
  return out;
}

/** Where each needle occurs in these files, as raw bytes (file → needles found). */
function search(
  paths: string[],
  needles: Record<string, Buffer>,
  read: (p: string) => Buffer = (p) => fs.readFileSync(p),
) {
  const found: Record<string, string[]> = {};
  for (const p of paths) {
    const bytes = read(p);
    for (const [name, needle] of Object.entries(needles)) if (bytes.indexOf(needle) >= 0) (found[name] ??= []).push(p);
  }
  return found;
}

/** Files with any bit for the group or others (or an execute bit), and directories not 0700, under `dir`. */
function openModes(dir: string): string[] {
  const bad: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) bad.push(`${mode.toString(8)} ${p}`);
      for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    } else if (mode & 0o177) bad.push(`${mode.toString(8)} ${p}`);
  };
  walk(dir);
  return bad;
}

describe('data at rest', () => {
  const keep = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-at-rest-'));
  const tls = selfSignedCert();
  fs.writeFileSync(path.join(keep, 'receiver.pem'), tls.cert);
  let svc: Service;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const M = {
    metadata: `meta-${rand()}`,
    reviewMetadata: `meta-${rand()}`,
    surname: `Q${letters(9)}`,
    givenNames: `Z${letters(7)}`,
    answer: `answer-${rand()}`,
    note: `note-${rand()}`,
  };
  const externalId = `kept-in-clear-${rand()}`;
  const backup = path.join(keep, 'before-erasure.tar.gz');
  // The key file kept with the backup (docs/deploy.md, "Backing up and restoring"): the data directory's is rotated below.
  const backupKey = path.join(keep, 'before-erasure.key');

  beforeAll(async () => {
    receiver = await startReceiver(tls, [{ status: 200, body: `{"received":"${M.answer}"}` }]);
    svc = await startService({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      NODE_EXTRA_CA_CERTS: path.join(keep, 'receiver.pem'),
    });
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    await svc?.cleanup();
    fs.rmSync(keep, { recursive: true, force: true });
  });

  it(
    'after erasure, no personal field is anywhere on disk (WAL included) nor in a backup from before; what is left opens with nothing the service holds',
    { timeout: 600_000 },
    async () => {
      // A fresh database (the engine unpacked it at the first start) is the owner's only already.
      expect(openModes(svc.dataDir)).toEqual([]);
      const w = makeWorkspace(svc, ['--flow', 'kyc']);
      svc.ops('workspace:settings', '--workspace', w.id, '--webhook-url', receiver.url);
      const live = signedClient(() => svc.server.base, w.apiKey, w.live);
      const age = makeWorkspace(svc);
      const test = signedClient(() => svc.server.base, age.apiKey, age.test);

      // A KYC verification through the real upload and pipeline: a driving licence whose barcode names the person.
      const person = { surname: M.surname, givenNames: M.givenNames };
      const kyc = await live.prepare(
        {
          selfie: await I.cameraFrame(),
          front: ['driving_licence', await I.renderDocument('driving_licence', 'front', I.astronaut(), person)],
          back: await I.renderDocument('driving_licence', 'back', undefined, person),
        },
        { external_id: externalId, external_metadata: { marker: M.metadata } },
      );
      expect((await live.submit(kyc)).data.status).toBe('submitted');
      const decided = await live.waitDecided(kyc, 180_000, 200);
      expect(decided.status, JSON.stringify(decided)).toBe('approved');
      expect(decided.result.person).toMatchObject({ surname: M.surname, given_names: M.givenNames });
      expect(decided.external_metadata).toEqual({ marker: M.metadata });
      // Its webhook carried the metadata, and the receiver's answer was recorded.
      for (let i = 0; i < 200 && !receiver.received.some((r) => r.body.includes(kyc)); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(receiver.received.find((r) => r.body.includes(kyc))?.body).toContain(M.metadata);
      let attempts: { response_body: string | null }[] = [];
      for (let i = 0; i < 20 && attempts.length === 0; i++)
        attempts = svc.ops('webhook:list', '--verification', kyc).webhook_events[0]?.attempt_log ?? [];
      expect(attempts[0]?.response_body).toContain(M.answer);

      // A test-mode case (age estimation) decided by the operator with a note about the person.
      const review = await test.prepare(
        { selfie: await I.cameraFrame() },
        { external_metadata: { marker: M.reviewMetadata } },
      );
      expect((await test.submit(review)).data.status).toBe('review');
      expect(
        svc.ops('verification:decide', '--id', review, '--status', 'approved', '--note', `checked ${M.note}`)
          .verification.status,
      ).toBe('approved');
      const exportFile = path.join(keep, 'export.json');
      svc.ops('verification:export', '--id', review, '--out', exportFile);
      expect(fs.readFileSync(exportFile, 'utf8')).toContain(M.note);
      fs.rmSync(exportFile);

      // The ciphertexts as stored, and the key that wraps the data keys, before anything is erased.
      const url = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl as string;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      const [sealed] =
        await sql`select external_metadata_sealed as c, external_metadata, external_metadata_raw from verifications where id = ${kyc}`;
      expect([sealed.external_metadata, sealed.external_metadata_raw, Buffer.isBuffer(sealed.c)]).toEqual([
        null,
        null,
        true,
      ]);
      const oldKey = fs.readFileSync(path.join(svc.dataDir, 'encryption.key'), 'utf8').trim();
      fs.writeFileSync(backupKey, oldKey + '\n', { mode: 0o600 });

      // A backup while the server runs, before the erasure.
      expect(svc.ops('backup', '--out', backup).backup).toMatchObject({ online: true });

      for (const [api, id] of [
        [live, kyc],
        [test, review],
      ] as const) {
        const r = await api.json('DELETE', `/v1/verifications/${id}/data`);
        expect(r.data?.data_erased_at, JSON.stringify(r)).toEqual(expect.any(String));
      }
      expect((await live.get(kyc)).external_metadata).toBeNull();
      expect((await test.get(review)).result ?? null).toBeNull();

      // Nothing the service holds opens what is left: the data key is gone, and neither ENCRYPTION_KEY nor any
      // other verification's data key opens the ciphertext.
      expect(await sql`select 1 from data_keys where verification_id = ${kyc}`).toHaveLength(0);
      const others = await sql`select verification_id, wrapped from data_keys`;
      const candidates = [
        Buffer.from(oldKey, 'base64'),
        ...others.map((k) => aesGcmDecrypt(k.wrapped, `data_key:${k.verification_id}`, Buffer.from(oldKey, 'base64'))),
      ];
      for (const key of candidates) expect(() => aesGcmDecrypt(sealed.c, `external_metadata:${kyc}`, key)).toThrow();
      await sql.end();

      // Retire the key the backup's data keys are wrapped with: encryption:rotate, then encryption:retire.
      svc.ops('encryption:rotate');
      expect(svc.ops('encryption:retire')).not.toHaveProperty('error');
      // The server writes its last pages at a clean stop: then every byte it holds is on disk.
      expect(await svc.stop()).toBe(0);

      const needles = Object.fromEntries(Object.entries(M).map(([k, v]) => [k, Buffer.from(v, 'utf8')]));
      const onDisk = files(svc.dataDir);
      expect(onDisk.some((f) => f.includes(`${path.sep}pg_wal${path.sep}`))).toBe(true);
      // The search is not blind: what stays in the clear by design (external_id) is found.
      expect(Object.keys(search(onDisk, { externalId: Buffer.from(externalId) }))).toEqual(['externalId']);
      expect(search(onDisk, needles)).toEqual({});
      const tar = zlib.gunzipSync(fs.readFileSync(backup));
      expect(tar.indexOf(Buffer.from(externalId))).toBeGreaterThanOrEqual(0);
      expect(search([backup], needles, () => tar)).toEqual({});

      // The backup from before the erasure still holds the erased case's data key, wrapped: it opens with the
      // ENCRYPTION_KEY of its time (what a backup cannot undo), and with nothing this deployment now holds.
      const copy = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(backup)]), extensions: { vector } });
      try {
        const { rows } = await copy.query<{ wrapped: Uint8Array; c: Uint8Array }>(
          'select k.wrapped, v.external_metadata_sealed as c from verifications v join data_keys k on k.verification_id = v.id where v.id = $1',
          [kyc],
        );
        const dataKey = aesGcmDecrypt(rows[0].wrapped, `data_key:${kyc}`, Buffer.from(oldKey, 'base64'));
        expect(aesGcmDecrypt(rows[0].c, `external_metadata:${kyc}`, dataKey).toString()).toContain(M.metadata);
        const now = fs.readFileSync(path.join(svc.dataDir, 'encryption.key'), 'utf8').trim();
        expect(now).not.toBe(oldKey);
        expect(
          fs.existsSync(path.join(svc.dataDir, 'encryption.key.previous'))
            ? fs.readFileSync(path.join(svc.dataDir, 'encryption.key.previous'), 'utf8')
            : '',
        ).not.toContain(oldKey);
        expect(() => aesGcmDecrypt(rows[0].wrapped, `data_key:${kyc}`, Buffer.from(now, 'base64'))).toThrow();
      } finally {
        await copy.close();
      }
    },
  );

  it(
    'every file the server, the engine, the CLI, a backup and a restore left under the data directory is the owner’s only',
    { timeout: 300_000 },
    async () => {
      // The server is stopped (above): restore the backup over the database (the old one is moved aside), then
      // start on it again (the engine rewrites its caches at start).
      if (svc.server.proc.exitCode === null) await svc.stop();
      // The backup's data keys are wrapped under the key retired above: the restore needs the key file kept with it.
      const restored = svc.ops('restore', '--from', backup, '--force', '--encryption-key-file', backupKey);
      expect(restored.restored.moved_aside).toEqual(expect.any(String));
      await svc.restart();
      // Work on the restored database, through the API and the CLI, then a backup into the data directory itself.
      const w = makeWorkspace(svc);
      const api = signedClient(() => svc.server.base, w.apiKey, w.test);
      await api.prepare({ selfie: await I.cameraFrame() }, { external_metadata: { n: 1 } });
      svc.ops('backup', '--out', path.join(svc.dataDir, 'backups', 'again.tar.gz'));
      expect(openModes(svc.dataDir)).toEqual([]);
      expect(await svc.stop()).toBe(0);
      expect(openModes(svc.dataDir)).toEqual([]);
      expect(files(svc.dataDir).length).toBeGreaterThan(900);
      // And as another local user sees it: nothing to read (the tests run as root).
      const r = execFileSync('runuser', [
        '-u',
        'nobody',
        '--',
        'sh',
        '-c',
        `cat '${path.join(svc.dataDir, 'db', 'PG_VERSION')}' 2>&1 || true`,
      ]).toString();
      expect(r).toMatch(/Permission denied/);
    },
  );
});
