/**
 * The embedded database's backup file: a gzipped tar of the engine's data directory, written from disk and read
 * back onto disk as a stream, so a backup's size is bounded by the disk and not by memory. (PGlite's own
 * dumpDataDir / loadDataDir build the whole archive in memory: restoring 10,000 verifications with their photos,
 * a 2 GB archive, took 10 GB; docs/deploy.md, "Size, time and memory".) Archives written by dumpDataDir, as
 * backups were before, name their entries `/base/…`: they are read the same way, the leading `/` dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';

/** The size of each read from disk (node-tar's default is 16 MB): what a file costs in memory while it passes. */
const READ_SIZE = 1 << 20;

/** Writes `dir` as a gzipped tar to `out` (owner-only), atomically; its size in bytes. */
export async function writeArchive(dir: string, out: string): Promise<number> {
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    await tar.create({ gzip: true, file: tmp, cwd: dir, mode: 0o600, maxReadSize: READ_SIZE }, fs.readdirSync(dir));
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, out);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.statSync(out).size;
}

/** Unpacks an archive into `dir` (which exists); entries that would land outside it are refused. */
export async function readArchive(file: string, dir: string): Promise<void> {
  const problems: string[] = [];
  // Any warning but the note that a leading `/` was dropped (the earlier format) means this is not a whole backup.
  await tar.extract({
    file,
    cwd: dir,
    maxReadSize: READ_SIZE,
    onwarn: (code, message) => void (code !== 'TAR_ENTRY_INFO' && problems.push(`${code}: ${message}`)),
  });
  if (problems.length) throw new Error(problems.slice(0, 3).join('; '));
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) throw new Error('it holds no database (no PG_VERSION)');
}
