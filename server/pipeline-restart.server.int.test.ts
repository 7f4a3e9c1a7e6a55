/**
 * Killing the server mid-pipeline loses nothing: jobs are rows with leases, so after a crash (SIGKILL
 * to launcher, Next and the embedded database) and a restart every submission is decided, exactly once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '@/test/helpers/api-client';
import { ensureBuild, freePort, kill, opsCli, start, stop, type Server } from '@/test/helpers/server';
import * as I from '@/test/helpers/images';

describe('decision pipeline across a crash', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-pipeline-crash-'));
  let server: Server | undefined;
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a server killed while jobs run finishes every job after restart, each decided once', async () => {
    ensureBuild();
    // A ten-minute lease: the decisions resume at once anyway, because the launcher owns the embedded
    // database and releases the leases of the process that died (lib/domain/jobs/recover.ts).
    const extra = { PIPELINE_LEASE_MS: '600000' };
    const port = await freePort();
    server = await start(dataDir, port, extra);
    const ops = opsCli(dataDir, port, extra);
    const created = ops('workspace:create', '--name', 'crash', '--check-method', 'document_verification');
    ops('workspace:settings', '--workspace', created.workspace.id, '--rate-limit-per-minute', '100000');
    const live = created.secret_keys.find((k: { mode: string }) => k.mode === 'live').secret;
    const api = apiClient(server.base, created.workspace.api_key, live);
    // Passport flows whose reads were not kept at upload (as uploads made before reads were kept): the pipeline
    // reads each MRZ itself, about a second, so the kill lands mid-job.
    const portraits = [I.astronaut(), I.graceHopper(), await I.selfie1280()];
    const ids: string[] = [];
    for (const p of portraits)
      ids.push(await api.prepare({ selfie: p, front: ['passport', await I.renderDocument('passport', 'front', p)] }));
    const sql = postgres(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).databaseUrl as string, {
      max: 1,
      onnotice: () => {},
    });
    try {
      await sql`update media set read_sealed = null`;
    } finally {
      await sql.end();
    }
    for (const id of ids) expect((await api.submit(id)).data.status).toBe('submitted');
    await new Promise((r) => setTimeout(r, 600));
    const before = await Promise.all(ids.map((id) => api.get(id)));
    await kill(server);
    expect(before.filter((v) => v.status === 'submitted').length).toBeGreaterThan(0);

    server = await start(dataDir, port, extra);
    const after = await Promise.all(ids.map((id) => api.waitDecided(id, 60_000))).catch((e) => {
      throw new Error(`${e.message}\nserver output:\n${server!.out().slice(-3000)}`);
    });
    // Decided by the checks, not by an error: the production build reads the MRZ (it once could not find
    // its traineddata there, and every passport ended in processing_error).
    for (const v of after) expect(v.reason).not.toBe('processing_error');
    expect(after.slice(0, 2).map((v) => v.status)).toEqual(['approved', 'approved']);
    // One decision each: one webhook event per verification (the outbox row of its one transition).
    for (const id of ids) expect(ops('webhook:list', '--verification', id).webhook_events).toHaveLength(1);
  }, 240_000);
});
