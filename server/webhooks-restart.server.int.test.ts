/**
 * Killing the server between webhook attempts loses no delivery: the schedule lives in Postgres, so
 * after a restart the next attempt comes when it is due, with the same X-Webhook-Id.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '@/test/helpers/api-client';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { astronaut } from '@/test/helpers/images';
import { demoKeys, ensureBuild, freePort, opsCli, start, stop, type Server } from '@/test/helpers/server';

describe('webhook delivery across a server restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-restart-'));
  let server: Server | undefined;
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('attempt 1 fails, the server stops, restarts, and attempt 2 arrives on schedule', async () => {
    ensureBuild();
    const tls = selfSignedCert();
    const caFile = path.join(dataDir, 'receiver-ca.pem');
    fs.writeFileSync(caFile, tls.cert);
    const rx = await startReceiver(tls, [{ status: 500 }, { status: 200 }]);
    const extra = { WEBHOOK_RETRY_DELAYS: '4,4,4', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: caFile };
    const port = await freePort();
    try {
      server = await start(dataDir, port, extra);
      const out = server.out();
      const { apiKey, testSecret: secret } = demoKeys(out);
      const ws = /workspace id\s+(ws_\w+)/.exec(out)![1];
      const ops = opsCli(dataDir, port, extra);
      expect(ops('workspace:settings', '--workspace', ws, '--webhook-url', rx.url).workspace.webhook_url).toBe(rx.url);

      const api = apiClient(server.base, apiKey, secret);
      const id = await api.prepare({ selfie: astronaut() });
      // Test mode: submit → review, which fires a webhook.
      expect((await api.submit(id)).data.status).toBe('review');

      const waitFor = async (n: number, ms: number) => {
        const until = Date.now() + ms;
        while (rx.received.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        expect(rx.received.length).toBe(n);
      };
      await waitFor(1, 10_000);
      expect(await stop(server)).toBe(0);
      const stoppedAt = Date.now();
      server = await start(dataDir, port, extra);
      await waitFor(2, 20_000);

      const [a1, a2] = rx.received;
      expect(a2.headers['x-webhook-id']).toBe(a1.headers['x-webhook-id']);
      expect(a2.at - a1.at).toBeGreaterThanOrEqual(3900);
      expect(a2.at).toBeGreaterThan(stoppedAt);
      expect(JSON.parse(a2.body)).toMatchObject({ verification_id: id, status: 'review' });
      await new Promise((r) => setTimeout(r, 300));
      const list = ops('webhook:list', '--verification', id).webhook_events;
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ state: 'delivered', attempts: 2 });
      expect(list[0].attempt_log.map((x: { status_code: number }) => x.status_code)).toEqual([500, 200]);
    } finally {
      await rx.close();
    }
  }, 120_000);
});
