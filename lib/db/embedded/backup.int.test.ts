/**
 * The embedded backup file, both ways, without a server: a backup written from disk (lib/db/embedded/archive.ts)
 * and one in the format backups had before (PGlite's dumpDataDir) both restore, their key ids checked; a restore
 * whose key ring would not read the backup, and a file that is not a backup, are refused and leave nothing behind;
 * the archive is written and read as a stream, its memory not growing with its size. The server-level journey:
 * test/security/backup.server.int.test.ts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { env } from '@/lib/core/env';
import { keyRing, newKeyBase64 } from '@/lib/core/crypto/keyring';
import { KeysUnreadableError } from '@/lib/core/crypto/key-check';
import { makeWorkspace } from '@/test/helpers/factories';
import { backupEmbedded, restoreEmbedded } from './backup';
import { startEmbeddedPostgres } from './pglite-server';
import { readArchive, writeArchive } from './archive';
import { peakGrowth } from '@/test/helpers/memory';

describe('embedded backup files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-archive-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the archive streams: 96 MB of photos go into a backup and back out with peak memory up by less than half of it (first: nothing else has been in this process)', async () => {
    // A data directory with one 96 MB file that does not compress (as encrypted photos do not). Written and
    // read whole in memory, as PGlite's dumpDataDir / loadDataDir hold an archive, it takes twice its size and more
    // (node-tar's streams, with their 1 MB reads: about 35 MB, whatever the size).
    const src = path.join(dir, 'big');
    fs.mkdirSync(path.join(src, 'base'), { recursive: true });
    fs.writeFileSync(path.join(src, 'PG_VERSION'), '17\n');
    const size = 96 << 20;
    const fd = fs.openSync(path.join(src, 'base', 'photos'), 'w');
    for (let at = 0; at < size; at += 4 << 20) fs.writeSync(fd, randomBytes(4 << 20));
    fs.closeSync(fd);
    const file = path.join(dir, 'big.tar.gz');
    const out = path.join(dir, 'big-restored');
    fs.mkdirSync(out);
    const written = await peakGrowth(() => writeArchive(src, file));
    const read = await peakGrowth(() => readArchive(file, out));
    expect(fs.statSync(file).size).toBeGreaterThan(size);
    expect(fs.statSync(path.join(out, 'base', 'photos')).size).toBe(size);
    expect(
      { written: written < size / 2, read: read < size / 2 },
      `peak growth ${written >> 20} MB writing, ${read >> 20} MB reading`,
    ).toEqual({ written: true, read: true });
    fs.rmSync(src, { recursive: true });
    fs.rmSync(out, { recursive: true });
    fs.rmSync(file);
  }, 60_000);

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
    for (const [name, file] of [
      ['current', current],
      ['earlier', earlier],
    ]) {
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
    const look = () => ({
      beside: fs.readdirSync(dir).sort(),
      inside: fs.readdirSync(target).map((f) => [f, fs.statSync(path.join(target, f)).mode]),
      mode: fs.statSync(target).mode,
    });
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
