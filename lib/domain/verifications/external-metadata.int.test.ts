/** docs/api.md: external_metadata is "returned unchanged": key order and number precision, in responses and webhooks. */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookEvents } from '@/lib/db/schema';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { transitionWithWebhook } from '@/test/helpers/transitions';
import { listWebhookEvents } from '../webhooks/list';

// jsonb would give {"a": …, "z": …} (shorter keys first, then by bytes) and JavaScript numbers would round.
const METADATA =
  '{"zeta":1,"alpha":{"b":2,"a":1},"big":12345678901234567890,"precise":0.1000000000000000055511,"exp":1.0E+2,"list":[3,2,1],"text":"a/b é"}';

describe('external_metadata as sent', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ webhook_url: 'https://hooks.example.com/meta' });
  });

  it('create, GET and the webhook body carry the same text, keys in order, numbers to the digit', async () => {
    const body = `{"external_id":"meta-1", "external_metadata": ${METADATA.replace(/,/g, ', ')}}`;
    const c = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body,
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect(c.status).toBe(201);
    expect(c.text).toContain(`"external_metadata":${METADATA}`);
    const id = c.json.data.id;
    const g = await call(getOne, {
      path: `/v1/verifications/${id}`,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id },
    });
    expect(g.text).toContain(`"external_metadata":${METADATA}`);
    await transitionWithWebhook(getDb(), { verificationId: id, trigger: 'expiry_timer' });
    // The body as it is sent (stored under the verification's data key, opened here as delivery opens it).
    const [event] = await listWebhookEvents(getDb(), id);
    expect(event.body).toContain(`"external_id":"meta-1","external_metadata":${METADATA},"reason":null`);
    // Still one JSON document whose value parses as what was sent.
    expect(JSON.parse(event.body).external_metadata).toEqual(JSON.parse(METADATA));
    // What is stored in the clear has no metadata (docs/privacy.md, "What is stored").
    const [stored] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
    expect(JSON.parse(stored.body).external_metadata).toBeNull();
    expect(stored.bodySealed).not.toBeNull();
  });

  it('absent or null: null', async () => {
    for (const body of ['{}', '{"external_metadata":null}']) {
      const c = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body,
        apiKey: w.apiKey,
        secret: w.testSecret,
      });
      expect(c.json.data.external_metadata).toBeNull();
      const id = c.json.data.id;
      const g = await call(getOne, {
        path: `/v1/verifications/${id}`,
        apiKey: w.apiKey,
        secret: w.testSecret,
        params: { id },
      });
      expect(g.json.data.external_metadata).toBeNull();
    }
  });
});
