/**
 * Backing up and restoring a PostgreSQL deployment as docs/deploy.md tells an operator to: the production
 * server on Debian's PostgreSQL 15 (DATABASE_URL, ENCRYPTION_KEY), verifications with photos made through the
 * API, `pg_dump -Fc`, `pg_restore` into a fresh database, the server started on it with the key kept apart:
 * the data and the photos read back, a signed GET answers 200, new work goes on; with another key the start
 * is refused, naming the key id it lacks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { keyIdOf, newKeyBase64 } from '@/lib/core/crypto/keyring';
import * as I from '@/test/helpers/images';
import { startPg15, type Pg15 } from '@/test/helpers/pg15';
import { ensureBuild, freePort, opsCli, start, startRefused, stop, type Server } from '@/test/helpers/server';
import { PG15_BIN } from '@/test/setup/provision.mjs';
import { raw, signedClient } from './harness';

describe('PostgreSQL 15: pg_dump, pg_restore into a fresh database, start on it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-pgdump-'));
  let pg: Pg15 | undefined;
  let server: Server | undefined;
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await stop(server);
    await pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the dump restored with its key serves the same data; with another key the start is refused', async () => {
    ensureBuild();
    pg = await startPg15();
    const urlOf = (db: string) => pg!.url.replace(/\/postgres$/, `/${db}`);
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin`create database live`;
    await admin`create database restored`;
    await admin.end();

    const key = newKeyBase64();
    const env = { DATABASE_URL: urlOf('live'), ENCRYPTION_KEY: key };
    const port = await freePort();
    server = await start(dir, port, env);
    const ops = opsCli(dir, port, env);
    const created = ops('workspace:create', '--name', 'pg-backup');
    ops('workspace:settings', '--workspace', created.workspace.id, '--rate-limit-per-minute', '100000');
    const apiKey = created.workspace.api_key as string;
    const secret = created.secret_keys.find((k: { mode: string }) => k.mode === 'test').secret as string;
    const api = signedClient(() => server!.base, apiKey, secret);
    const inReview = await api.prepare({ selfie: await I.selfie1280() });
    expect((await api.submit(inReview)).data.status).toBe('review');
    const started = await api.prepare({ selfie: I.astronaut() });
    /** The photos of a verification, decrypted (verification:export). */
    const photos = (o: ReturnType<typeof opsCli>, id: string) =>
      o('verification:export', '--id', id).media.map((m: { photo_base64: string }) => m.photo_base64);
    const before = { inReview: photos(ops, inReview), started: photos(ops, started) };
    expect(before.inReview[0].length).toBeGreaterThan(10_000);
    expect(await stop(server)).toBe(0);

    // The operator's backup and restore (docs/deploy.md): a custom-format dump, restored into a fresh database.
    const dump = path.join(dir, 'open-verify.dump');
    execFileSync(`${PG15_BIN}/pg_dump`, ['--format=custom', '--dbname', urlOf('live'), '--file', dump]);
    execFileSync(`${PG15_BIN}/pg_restore`, ['--no-owner', '--exit-on-error', '--dbname', urlOf('restored'), dump]);

    const restoredEnv = { ...env, DATABASE_URL: urlOf('restored') };
    server = await start(dir, port, restoredEnv);
    const get = async (id: string) => {
      const p = `/v1/verifications/${id}`;
      return raw(server!.base, 'GET', p, {
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, 'GET', p),
      });
    };
    const r = await get(inReview);
    expect([r.status, r.json.data.status]).toEqual([200, 'review']);
    expect((await get(started)).json.data.status).toBe('started');
    const restoredOps = opsCli(dir, port, restoredEnv);
    expect({ inReview: photos(restoredOps, inReview), started: photos(restoredOps, started) }).toEqual(before);
    // And it works on: the restored verification is submitted and decided.
    expect((await api.submit(started)).data.status).toBe('review');
    expect(await stop(server)).toBe(0);

    // Restored with the wrong key: the launcher refuses to serve, naming the key the database needs.
    const refused = await startRefused(dir, port, { ...restoredEnv, ENCRYPTION_KEY: newKeyBase64() });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(keyIdOf(Buffer.from(key, 'base64')));
    expect(refused.out).toMatch(/refus/i);
  }, 480_000);
});
