/**
 * The embedded database is the owner's alone (issue #19): it listens with a password generated at each
 * start (SCRAM-SHA-256), and the data directory (the engine's files, server.json with the URL, the
 * encryption key) is closed to every other user, including one left world-readable by an older version.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuild, freePort, start, stop, type Server } from '@/test/helpers/server';

/** Runs a command as the unprivileged `nobody` user (the tests run as root). */
const asNobody = (cmd: string[]) => spawnSync('runuser', ['-u', 'nobody', '--', ...cmd], { encoding: 'utf8' });

describe('embedded database: credentials and file modes', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-embedded-'));
  let server: Server | undefined;
  let workspaceId = '';
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a data directory left world-readable is closed at start; server.json and the key are 0600', async () => {
    ensureBuild();
    // What an earlier version left: a world-readable directory and server.json.
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(
      path.join(dataDir, 'server.json'),
      '{"pid":999999,"databaseUrl":"postgres://postgres:postgres@127.0.0.1:1/postgres"}',
      { mode: 0o644 },
    );
    fs.chmodSync(path.join(dataDir, 'server.json'), 0o644);
    server = await start(dataDir, await freePort());
    workspaceId = /workspace id\s+(ws_\w+)/.exec(server.out())![1];

    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'server.json'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'encryption.key'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'db'))).toBe(0o700);

    // Another local user can read none of it.
    for (const f of ['server.json', 'encryption.key', 'db/PG_VERSION']) {
      const r = asNobody(['cat', path.join(dataDir, f)]);
      expect([f, r.status, r.stderr]).toEqual([f, 1, expect.stringMatching(/Permission denied/)]);
    }
    expect(asNobody(['ls', dataDir]).status).not.toBe(0);
  });

  it('the engine refuses the old fixed credentials and a wrong password; the owner’s URL works', async () => {
    const url = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).databaseUrl as string;
    const u = new URL(url);
    expect(u.hostname).toBe('127.0.0.1');
    expect(decodeURIComponent(u.password)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const attempt = async (href: string) => {
      const sql = postgres(href, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        return await sql`select count(*)::int as n from workspaces`.then(
          (r) => `ok ${r[0].n}`,
          (e: { code?: string }) => e.code ?? String(e),
        );
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    const fixed = new URL(url);
    fixed.password = 'postgres';
    expect(await attempt(fixed.href)).toBe('28P01');
    const anyUser = new URL(url);
    anyUser.username = 'reader';
    anyUser.password = 'x';
    expect(await attempt(anyUser.href)).toBe('28P01');
    expect(await attempt(url)).toBe('ok 1'); // the demo workspace
  });

  it('a restart generates a new password: the old URL no longer opens the database', async () => {
    const before = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).databaseUrl as string;
    const port = Number(new URL(server!.base).port);
    expect(await stop(server!)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'server.json'))).toBe(false);
    server = await start(dataDir, port);
    const after = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).databaseUrl as string;
    expect(new URL(after).password).not.toBe(new URL(before).password);
    const stale = new URL(after);
    stale.password = new URL(before).password;
    const sql = postgres(stale.href, { max: 1, onnotice: () => {}, connect_timeout: 5 });
    await expect(sql`select 1`).rejects.toMatchObject({ code: '28P01' });
    await sql.end({ timeout: 1 });
    // The CLI, same user, reads the URL and works while the server runs.
    const out = execFileSync(
      'node_modules/.bin/tsx',
      ['server/ops.ts', 'key:list', '--workspace', workspaceId, '--json'],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ENCRYPTION_KEY: '', LOG_LEVEL: 'silent' },
      },
    ).toString();
    expect(JSON.parse(out).secret_keys).toHaveLength(2);
  }, 120_000);
});
