/**
 * Backup and restore of the embedded database (`npm run ops -- backup|restore`).
 *
 * A backup is a gzipped tar of the engine's data directory, taken between transactions after a CHECKPOINT:
 * every verification, its media (encrypted in `media_blobs`), keys (encrypted), webhooks and the audit log.
 * It does NOT hold the encryption key ($DATA_DIR/encryption.key, or ENCRYPTION_KEY): keep that apart, as
 * the backup without it reveals no media or secret, and both are needed to restore a working service.
 *
 * While the server runs, the launcher owns the engine: the CLI writes a request file and sends it SIGUSR2;
 * the launcher takes the backup in its engine and answers in a file beside the request. With no server,
 * the CLI opens the data directory itself. A restore needs the server stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { runningServer, RuntimeError, secureDataDir } from '../runtime';
import type { EmbeddedPostgres } from './pglite-server';
import { OwnerOnlyNodeFS } from './owner-only-fs';

const requestFile = (dataDir: string) => path.join(dataDir, 'backup-request.json');
const answerFile = (dataDir: string, id: string) => path.join(dataDir, `backup-${id}.done.json`);

async function writePrivate(file: string, blob: Blob) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()), { mode: 0o600 });
  fs.renameSync(tmp, file);
  return fs.statSync(file).size;
}

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
      .backup()
      .then((blob) => writePrivate(req.out, blob))
      .then(
        (bytes) => ({ ok: true, bytes, ms: Date.now() - started }),
        (e: Error) => ({ ok: false, error: e.message }),
      )
      .then((answer) => fs.writeFileSync(answerFile(dataDir, req.id), JSON.stringify(answer), { mode: 0o600 }));
  });
}

export async function backupEmbedded(dataDir: string, out: string, timeoutMs = 300_000): Promise<{ bytes: number; online: boolean }> {
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
  const db = await PGlite.create({ fs: new OwnerOnlyNodeFS(dbDir), extensions: { vector } });
  try {
    await db.exec('CHECKPOINT');
    return { bytes: await writePrivate(target, await db.dumpDataDir('gzip')), online: false };
  } finally {
    await db.close();
  }
}

/**
 * Restores a backup into $DATA_DIR/db (the server stopped). An existing database is refused unless `force`,
 * and then moved aside (db.before-restore-<time>), never deleted.
 */
export async function restoreEmbedded(
  dataDir: string,
  from: string,
  opts: { force?: boolean; encryptionKeyFile?: string } = {},
): Promise<{ verifications: number; media: number; movedAside: string | null }> {
  if (runningServer(dataDir)) throw new RuntimeError('Stop the server before restoring: it holds the database.');
  if (!fs.existsSync(from)) throw new RuntimeError(`No backup at ${from}.`);
  secureDataDir(dataDir);
  const dbDir = path.join(dataDir, 'db');
  let movedAside: string | null = null;
  if (fs.existsSync(dbDir) && fs.readdirSync(dbDir).length > 0) {
    if (!opts.force) throw new RuntimeError(`${dbDir} holds a database; pass --force to move it aside and restore.`);
    movedAside = `${dbDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(dbDir, movedAside);
  }
  const blob = new Blob([fs.readFileSync(from)]);
  const db = await PGlite.create({ fs: new OwnerOnlyNodeFS(dbDir), loadDataDir: blob, extensions: { vector } });
  let counts: { verifications: number; media: number };
  try {
    const r = await db.query<{ v: number; m: number }>('select (select count(*) from verifications)::int as v, (select count(*) from media)::int as m');
    counts = { verifications: r.rows[0].v, media: r.rows[0].m };
  } finally {
    await db.close();
  }
  if (opts.encryptionKeyFile) {
    const key = fs.readFileSync(opts.encryptionKeyFile, 'utf8').trim();
    if (Buffer.from(key, 'base64').length !== 32) throw new RuntimeError('The encryption key file must hold 32 bytes, base64.');
    fs.writeFileSync(path.join(dataDir, 'encryption.key'), key + '\n', { mode: 0o600 });
  }
  return { ...counts, movedAside };
}
