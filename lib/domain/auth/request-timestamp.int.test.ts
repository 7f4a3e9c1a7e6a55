/**
 * Request timestamps, our extension against replays (docs/api.md "Request timestamps"): through the route
 * handlers, signed as a client signs. Off by default (a request without one is served; one with it is checked);
 * a workspace may require it; a stale, future or malformed one is 401 before the body is read; the timestamp is
 * signed, so a timestamped request stripped of its header (or given another) does not verify.
 */
import { and, desc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { POST as media } from '@/app/v1/verifications/[id]/media/route';
import { getDb } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { signJsonRequest, signMultipartRequest } from '@/lib/domain/auth/sign';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { selfie1280 } from '@/test/helpers/images';
import { TIMESTAMP_TOLERANCE_S } from './authenticate';

const now = () => Math.floor(Date.now() / 1000);

describe('request timestamps', () => {
  let off: TestWorkspace;
  let on: TestWorkspace;
  beforeAll(async () => {
    await ensureConsent();
    off = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    on = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    await updateWorkspaceSettings(getDb(), on.workspace.id, { require_request_timestamp: true }, 'admin:test');
  });

  /** GET /v1/consent with the timestamp header `header` (none when undefined), signed over `signedTs` (null: none). */
  const consent = (
    w: TestWorkspace,
    header: string | undefined,
    signedTs: number | null = header === undefined ? null : Number(header),
  ) =>
    call(getConsent, {
      path: '/v1/consent',
      apiKey: w.apiKey,
      signature: signJsonRequest(w.testSecret, 'GET', '/v1/consent', '', signedTs ?? undefined),
      headers: header === undefined ? {} : { 'x-request-timestamp': header },
    });

  it('off by default: served without one; when one is sent it is checked and must be signed', async () => {
    expect(off.workspace.requireRequestTimestamp).toBe(false);
    expect((await consent(off, undefined)).status).toBe(200);
    expect((await consent(off, String(now()))).status).toBe(200);
    // The header sent, but not signed (the plain canonical string): refused.
    const unsigned = await consent(off, String(now()), null);
    expect([unsigned.status, unsigned.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    const stale = await consent(off, String(now() - TIMESTAMP_TOLERANCE_S - 5));
    expect([stale.status, stale.json.error.code, stale.json.error.details.reason]).toEqual([
      401,
      'INVALID_TIMESTAMP',
      'too_old',
    ]);
  });

  it('required: missing 401 MISSING_TIMESTAMP; stale, future or malformed 401 INVALID_TIMESTAMP; within five minutes either way, served', async () => {
    const missing = await consent(on, undefined);
    expect([missing.status, missing.json.error.code]).toEqual([401, 'MISSING_TIMESTAMP']);
    for (const [header, reason] of [
      [String(now() - TIMESTAMP_TOLERANCE_S - 2), 'too_old'],
      [String(now() + TIMESTAMP_TOLERANCE_S + 2), 'in_the_future'],
      ['1.7e9', 'malformed'],
      ['-5', 'malformed'],
      ['', 'malformed'],
      [`${now()}0000000000`, 'malformed'],
    ] as const) {
      const r = await consent(on, header, Number(header) || 0);
      expect([header, r.status, r.json.error.code, r.json.error.details.reason]).toEqual([
        header,
        401,
        'INVALID_TIMESTAMP',
        reason,
      ]);
      expect(Math.abs(r.json.error.details.server_time - now())).toBeLessThanOrEqual(2);
    }
    for (const skew of [-(TIMESTAMP_TOLERANCE_S - 5), 0, TIMESTAMP_TOLERANCE_S - 5]) {
      expect((await consent(on, String(now() + skew))).status).toBe(200);
    }
  });

  it('a create replayed later is refused; stripped of its timestamp it verifies nowhere', async () => {
    const body = '{"external_id":"replayed"}';
    const ts = now();
    const sig = signJsonRequest(on.testSecret, 'POST', '/v1/verifications', body, ts);
    const send = (w: TestWorkspace, headers: Record<string, string>) =>
      call(create, { method: 'POST', path: '/v1/verifications', body, apiKey: w.apiKey, signature: sig, headers });
    expect((await send(on, { 'x-request-timestamp': String(ts) })).status).toBe(201);
    // The same bytes, the clock moved past five minutes: what a replay six minutes later gets.
    const later = signJsonRequest(on.testSecret, 'POST', '/v1/verifications', body, ts - TIMESTAMP_TOLERANCE_S - 60);
    const replay = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body,
      apiKey: on.apiKey,
      signature: later,
      headers: { 'x-request-timestamp': String(ts - TIMESTAMP_TOLERANCE_S - 60) },
    });
    expect([replay.status, replay.json.error.code]).toEqual([401, 'INVALID_TIMESTAMP']);
    // Header removed: refused where required; where not, the signature (over the timestamp) matches nothing.
    expect((await send(on, {})).json.error.code).toBe('MISSING_TIMESTAMP');
    const offSig = signJsonRequest(off.testSecret, 'POST', '/v1/verifications', body, ts);
    const stripped = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body,
      apiKey: off.apiKey,
      signature: offSig,
    });
    expect([stripped.status, stripped.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    // Another timestamp in the header than the one signed: refused.
    expect((await send(on, { 'x-request-timestamp': String(ts + 1) })).json.error.code).toBe('INVALID_SIGNATURE');
  });

  it('refused before the body is read; an upload is signed over the timestamp too', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled++;
          c.enqueue(new Uint8Array(65536));
        },
      },
      { highWaterMark: 0 },
    );
    const req = new Request('http://verify.test/v1/verifications', {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'content-type': 'application/json', 'x-api-key': on.apiKey, 'x-hmac-signature': 'a'.repeat(64) },
    } as RequestInit);
    const res = await create(req);
    expect([res.status, (await res.json()).error.code, pulled]).toEqual([401, 'MISSING_TIMESTAMP', 0]);

    const created = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: '{}',
      apiKey: on.apiKey,
      signature: signJsonRequest(on.testSecret, 'POST', '/v1/verifications', '{}', now()),
      headers: { 'x-request-timestamp': String(now()) },
    });
    const id = created.json.data.id as string;
    const path = `/v1/verifications/${id}/media`;
    const photo = await selfie1280();
    const upload = (ts: number, signedTs: number) => {
      const form = new FormData();
      form.append('type', 'selfie');
      form.append('file', new Blob([photo as BlobPart], { type: 'image/jpeg' }), 'selfie.jpg');
      return media(
        new Request('http://verify.test' + path, {
          method: 'POST',
          body: form,
          headers: {
            'x-api-key': on.apiKey,
            'x-hmac-signature': signMultipartRequest(
              on.testSecret,
              'POST',
              path,
              [['type', 'selfie']],
              [photo],
              signedTs,
            ),
            'x-request-timestamp': String(ts),
          },
        }),
        { params: Promise.resolve({ id }) },
      );
    };
    // Not consented: the signature passed, and the operation's own rule answers.
    const signed = await upload(now(), now());
    expect([signed.status, (await signed.json()).error.code]).toEqual([403, 'CONSENT_REQUIRED']);
    const wrong = await upload(now(), now() - 1);
    expect([wrong.status, (await wrong.json()).error.code]).toEqual([401, 'INVALID_SIGNATURE']);
  });

  it('the setting is audited like the others, before and after', async () => {
    const [row] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, on.workspace.id), eq(auditLog.action, 'workspace.settings_updated')))
      .orderBy(desc(auditLog.createdAt))
      .limit(1);
    expect(row.actor).toBe('admin:test');
    expect((row.data as { changes: unknown }).changes).toEqual({
      require_request_timestamp: { before: false, after: true },
    });
  });
});
