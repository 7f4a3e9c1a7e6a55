/**
 * kill -9 on the embedded default (issue #19): the launcher owns its database, so at the next start it
 * releases whatever the dead process held: a webhook sent but not recorded goes again at once (same event
 * id), without waiting for its lease. (Decisions: server/pipeline-restart.server.int.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import { kill } from '@/test/helpers/server';
import { makeWorkspace, raw, signedClient, startService, type Service } from './harness';

describe('kill -9 on the embedded database', () => {
  const tls = selfSignedCert();
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-ca-'));
  let svc: Service | undefined;
  afterAll(async () => {
    await svc?.cleanup();
    fs.rmSync(caDir, { recursive: true, force: true });
  });

  it('a webhook sent but not recorded when the server dies is sent again right after the restart, same event id', async () => {
    fs.writeFileSync(path.join(caDir, 'ca.pem'), tls.cert);
    const rx = await startReceiver(tls, [{ status: 200, delayMs: 5000 }, { status: 200 }]);
    try {
      svc = await startService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: path.join(caDir, 'ca.pem') });
      const w = makeWorkspace(svc);
      svc.ops('workspace:settings', '--workspace', w.id, '--webhook-url', rx.url);
      const api = signedClient(() => svc!.server.base, w.apiKey, w.test);
      const id = await api.prepare({ selfie: await I.selfie1280() });
      expect((await api.submit(id)).data.status).toBe('review');
      const until = Date.now() + 60_000;
      while (rx.received.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(rx.received).toHaveLength(1);
      await kill(svc.server); // while the receiver holds its answer: nothing recorded
      const restarted = Date.now();
      await svc.restart();
      const ready = Date.now();
      while (rx.received.length < 2 && Date.now() < ready + 60_000) await new Promise((r) => setTimeout(r, 50));
      console.log(
        `embedded: webhook delivered again ${((Date.now() - ready) / 1000).toFixed(1)} s after the server was ready (${((ready - restarted) / 1000).toFixed(1)} s to restart)`,
      );
      expect(rx.received.length).toBe(2);
      // Well within its 25 s lease: released at start, not waited out.
      expect(rx.received[1].at - ready).toBeLessThan(10_000);
      expect(rx.received[1].headers['x-webhook-id']).toBe(rx.received[0].headers['x-webhook-id']);
      const url = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const until2 = Date.now() + 20_000;
        let row;
        do {
          [row] = await sql`select state, attempts from webhook_events where verification_id = ${id}`;
          if (row.state !== 'delivered') await new Promise((r) => setTimeout(r, 100));
        } while (row.state !== 'delivered' && Date.now() < until2);
        expect([row.state, row.attempts]).toEqual(['delivered', 1]);
      } finally {
        await sql.end();
      }
      const g = await raw(svc.server.base, 'GET', `/v1/verifications/${id}`, {
        'x-api-key': w.apiKey,
        'x-hmac-signature': signJsonRequest(w.test, 'GET', `/v1/verifications/${id}`),
      });
      expect(g.json.data.status).toBe('review');
    } finally {
      await rx.close();
    }
  }, 240_000);
});
