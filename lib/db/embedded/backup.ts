/**
 * Backup and restore of the embedded database (`npm run ops -- backup|restore`).
 *
 * A backup is a gzipped tar of the engine's data directory (./archive.ts), taken between transactions after a CHECKPOINT:
 * every verification, its media (encrypted in `media_blobs`), keys (encrypted), webhooks and the audit log.
 * It does NOT hold the encryption key ($DATA_DIR/encryption.key, or ENCRYPTION_KEY): keep that apart, as
 * the backup without it reveals no media or secret, and both are needed to restore a working service; a restore
 * checks that it has the keys before it writes anything (docs/deploy.md, "Backing up and restoring").
 *
 * While the server runs, the launcher owns the engine: the CLI writes a request file and sends it SIGUSR2;
 * the launcher takes the backup in its engine and answers in a file beside the request. With no server,
 * the CLI opens the data directory itself. A restore needs the server stopped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { runningServer, RuntimeError, secureDataDir } from '../runtime';
import type { EmbeddedPostgres } from './pglite-server';
import { readArchive, writeArchive } from './archive';
import type { Env } from '../../core/env';
import { previousKeyFile, readKeyFiles, startupKeyRing, writeKeyFiles } from '../../core/crypto/keyring';
import { checkKeyRing, KeysUnreadableError } from '../../core/crypto/key-check';
import { OwnerOnlyNodeFS } from './owner-only-fs';

const requestFile = (dataDir: string) => path.join(dataDir, 'backup-request.json');
const answerFile = (dataDir: string, id: string) => path.join(dataDir, `backup-${id}.done.json`);

/** The launcher's side: answers backup requests (SIGUSR2) with its own engine. */
export function serveBackupRequests(dataDir: string, engine: EmbeddedPostgres) {
  process.on('SIGUSR2', () => {
    let req: { id: string; out: string };
    try {
      req = JSON.parse(fs.readFileSync(requestFile(dataDir), 'utf8'));
      fs.rmSync(requestFile(dataDir), { force: true });
    } catch {
      return;
    }
    const started = Date.now();
    engine
      .backup(req.out)
      .then(
        (bytes) => ({ ok: true, bytes, ms: Date.now() - started }),
        (e: Error) => ({ ok: false, error: e.message }),
      )
      .then((answer) => fs.writeFileSync(answerFile(dataDir, req.id), JSON.stringify(answer), { mode: 0o600 }));
  });
}

export async function backupEmbedded(
  dataDir: string,
  out: string,
  timeoutMs = 300_000,
): Promise<{ bytes: number; online: boolean }> {
  const target = path.resolve(out);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const running = runningServer(dataDir);
  if (running) {
    const id = randomBytes(8).toString('hex');
    fs.writeFileSync(requestFile(dataDir), JSON.stringify({ id, out: target }), { mode: 0o600 });
    process.kill(running.pid, 'SIGUSR2');
    const until = Date.now() + timeoutMs;
    while (!fs.existsSync(answerFile(dataDir, id))) {
      if (Date.now() > until) throw new RuntimeError('The server did not answer the backup request in time.');
      await new Promise((r) => setTimeout(r, 100));
    }
    const answer = JSON.parse(fs.readFileSync(answerFile(dataDir, id), 'utf8'));
    fs.rmSync(answerFile(dataDir, id), { force: true });
    if (!answer.ok) throw new RuntimeError(`Backup failed: ${answer.error}`);
    return { bytes: answer.bytes, online: true };
  }
  const dbDir = path.join(dataDir, 'db');
  if (!fs.existsSync(path.join(dbDir, 'PG_VERSION'))) throw new RuntimeError(`No embedded database in ${dataDir}.`);
  secureDataDir(dataDir);
  // Opened and closed cleanly (a checkpoint), then its files copied: nothing else holds them.
  const db = await PGlite.create({ fs: new OwnerOnlyNodeFS(dbDir), extensions: { vector } });
  try {
    await db.exec('CHECKPOINT');
  } finally {
    await db.close();
  }
  return { bytes: await writeArchive(dbDir, target), online: false };
}

/** Where a backup is unpacked and checked before it goes anywhere: beside the data directory (same file system, so
 * it then moves into place with one rename), or in the temporary directory when that is not writable. */
function stagingDir(dataDir: string): string {
  const name = `.${path.basename(dataDir)}.restore-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.mkdirSync(path.join(path.dirname(dataDir), name), { mode: 0o700 });
    return path.join(path.dirname(dataDir), name);
  } catch {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'open-verify-restore-'));
  }
}

function moveDir(from: string, to: string) {
  try {
    fs.renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    fs.cpSync(from, to, { recursive: true, preserveTimestamps: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
}

/** The key file given to a restore: its keys (and its .previous), checked to be keys before anything is written. */
function readGivenKeyFile(file: string): { primary: string; previous: string[] } {
  let keys;
  try {
    keys = readKeyFiles(path.resolve(file));
  } catch (e) {
    throw new RuntimeError(`Cannot read the encryption key file ${file}: ${(e as Error).message}`);
  }
  for (const k of [keys.primary, ...keys.previous]) {
    if (Buffer.from(k, 'base64').length !== 32)
      throw new RuntimeError('The encryption key file must hold 32 bytes, base64 (one key a line).');
  }
  return keys;
}

/** Whether a key file (and its .previous) already holds exactly these keys. */
function sameKeys(file: string, keys: { primary: string; previous: string[] }): boolean {
  try {
    const cur = readKeyFiles(file);
    return cur.primary === keys.primary && cur.previous.join('\n') === keys.previous.join('\n');
  } catch {
    return false;
  }
}

/**
 * Restores a backup into $DATA_DIR/db (the server stopped). Nothing is written until the backup, unpacked apart,
 * is known to be readable by the key ring the restored server will run with (lib/core/crypto/key-check.ts): otherwise
 * KeysUnreadableError, naming the missing key ids, and the data directory is as it was. An existing database is
 * refused unless `force`, and then moved aside (db.before-restore-<time>), never deleted; so is a key file that
 * the one given replaces.
 */
export async function restoreEmbedded(
  dataDir: string,
  from: string,
  opts: { force?: boolean; encryptionKeyFile?: string; env: Env },
): Promise<{ verifications: number; media: number; movedAside: string | null; keyIds: string[] }> {
  if (runningServer(dataDir)) throw new RuntimeError('Stop the server before restoring: it holds the database.');
  if (!fs.existsSync(from)) throw new RuntimeError(`No backup at ${from}.`);
  const dbDir = path.join(dataDir, 'db');
  const occupied = fs.existsSync(dbDir) && fs.readdirSync(dbDir).length > 0;
  if (occupied && !opts.force)
    throw new RuntimeError(`${dbDir} holds a database; pass --force to move it aside and restore.`);
  const given = opts.encryptionKeyFile ? readGivenKeyFile(opts.encryptionKeyFile) : undefined;
  const { ring, from: ringFrom } = startupKeyRing(opts.env, given);

  process.umask(0o077);
  const stage = stagingDir(dataDir);
  try {
    await readArchive(from, stage).catch((e: Error) => {
      throw new RuntimeError(`${from} is not a backup of this service: ${e.message}`);
    });
    const db = await PGlite.create({ fs: new OwnerOnlyNodeFS(stage), extensions: { vector } });
    let counts: { verifications: number; media: number };
    let keyIds: string[];
    try {
      const r = await db.query<{ v: number; m: number }>(
        'select (select count(*) from verifications)::int as v, (select count(*) from media)::int as m',
      );
      counts = { verifications: r.rows[0].v, media: r.rows[0].m };
      const check = await checkKeyRing(
        async (text) => (await db.query<Record<string, unknown>>(text)).rows,
        ring?.accepted ?? new Map(),
      );
      if (check.missing.length) {
        const ringIds = ring ? [...ring.accepted.keys()] : [];
        throw new KeysUnreadableError(
          `The backup's values are encrypted under key id ${check.missing.join(', ')}, which the restored server would not hold ` +
            `(${ringFrom}${ringIds.length ? `: key id ${ringIds.join(', ')}` : ''}). ` +
            'Pass the key file kept with the backup: --encryption-key-file FILE (the encryption.key of the data directory it was taken from; ' +
            'its encryption.key.previous beside it is read too). Nothing was written.',
          check,
          ringIds,
        );
      }
      keyIds = check.needed;
    } finally {
      await db.close();
    }

    // Checked: now the data directory changes.
    secureDataDir(dataDir);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    let movedAside: string | null = null;
    if (occupied) {
      movedAside = `${dbDir}.before-restore-${stamp}`;
      fs.renameSync(dbDir, movedAside);
    } else {
      fs.rmSync(dbDir, { recursive: true, force: true });
    }
    moveDir(stage, dbDir);
    const keyFile = path.join(dataDir, 'encryption.key');
    if (given && !sameKeys(keyFile, given)) {
      // A different key file already there belongs with the database moved aside (or an older one): kept, not overwritten.
      for (const f of [keyFile, previousKeyFile(keyFile)]) {
        if (fs.existsSync(f)) fs.renameSync(f, `${f}.before-restore-${stamp}`);
      }
      writeKeyFiles(keyFile, given.primary, given.previous);
    }
    return { ...counts, movedAside, keyIds };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}
