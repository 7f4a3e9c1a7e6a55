/**
 * The embedded backup file, both ways, without a server: a backup written from disk (db/embedded/archive.ts)
 * and one in the format backups had before (PGlite's dumpDataDir) both restore, their key ids checked; a restore
 * whose key ring would not read the backup, and a file that is not a backup, are refused and leave nothing behind. The server-level journey: test/security/backup.server.int.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@/db/client';
import { applyMigrations } from '@/db/migrate';
import { env } from '@/lib/env';
import { keyRing, newKeyBase64 } from '@/lib/crypto/keyring';
import { KeysUnreadableError } from '@/lib/crypto/key-check';
import { makeWorkspace } from '@/lib/testing/factories';
import { backupEmbedded, restoreEmbedded } from './backup';
import { startEmbeddedPostgres } from './pglite-server';

describe('embedded backup files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-archive-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a backup written from disk and one in the earlier format restore; what is not a backup is refused', async () => {
    const source = path.join(dir, 'source');
    fs.mkdirSync(source);
    const engine = await startEmbeddedPostgres({ dataDir: path.join(source, 'db') });
    await applyMigrations(engine.url);
    const h = connect(engine.url, { max: 1 });
    await makeWorkspace({}, { db: h.db }); // secret keys sealed under this process's ENCRYPTION_KEY
    await h.close();
    const earlier = path.join(dir, 'earlier.tar.gz');
    fs.writeFileSync(earlier, Buffer.from(await (await engine.db.dumpDataDir('gzip')).arrayBuffer()));
    await engine.stop();
    const current = path.join(dir, 'current.tar.gz');
    expect((await backupEmbedded(source, current)).online).toBe(false);

    const kid = keyRing().primary.id;
    for (const [name, file] of [['current', current], ['earlier', earlier]]) {
      const target = path.join(dir, name);
      const r = await restoreEmbedded(target, file, { env: env() });
      expect([name, r.keyIds, r.verifications]).toEqual([name, [kid], 0]);
      expect(fs.existsSync(path.join(target, 'db', 'PG_VERSION'))).toBe(true);
    }

    // A restore whose key ring would not read it (another ENCRYPTION_KEY in the environment) writes nothing: the
    // new machine's data directory, with a note in it, is exactly as it was, and nothing is left beside it.
    const target = path.join(dir, 'new-machine');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'NOTE'), 'restore here\n');
    // Modes set explicitly: a restore sets this process's umask to 077.
    fs.chmodSync(target, 0o755);
    fs.chmodSync(path.join(target, 'NOTE'), 0o644);
    const look = () => ({ beside: fs.readdirSync(dir).sort(), inside: fs.readdirSync(target).map((f) => [f, fs.statSync(path.join(target, f)).mode]), mode: fs.statSync(target).mode });
    const untouched = look();
    const refused = restoreEmbedded(target, current, { env: { ...env(), ENCRYPTION_KEY: newKeyBase64() } });
    await expect(refused).rejects.toBeInstanceOf(KeysUnreadableError);
    await expect(refused).rejects.toMatchObject({ check: { missing: [kid], needed: [kid] } });
    expect(look()).toEqual(untouched);

    const junk = path.join(dir, 'junk.tar.gz');
    fs.writeFileSync(junk, 'not a backup');
    const before = fs.readdirSync(dir).sort();
    await expect(restoreEmbedded(path.join(dir, 'junk'), junk, { env: env() })).rejects.toThrow(/not a backup/);
    expect(fs.readdirSync(dir).sort()).toEqual(before);
  }, 120_000);
});
