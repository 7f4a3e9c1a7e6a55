/** docs/api.md "Authentication", through the real routes. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { activateSecretKey, createSecretKey, deleteSecretKey, listSecretKeys } from './keys';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

const hmac = (secret: string, s: string) => createHmac('sha256', secret).update(s).digest('hex');

async function createIn(w: TestWorkspace, secret: string, body: object = {}) {
  const r = await call(create, { method: 'POST', path: '/v1/verifications', body, apiKey: w.apiKey, secret });
  expect(r.status).toBe(201);
  return r.json.data as { id: string; mode: string };
}

describe('authentication', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    await ensureConsent();
    w = await makeWorkspace();
  });

  it('a correctly signed create succeeds, and the signing key sets the mode', async () => {
    expect((await createIn(w, w.testSecret)).mode).toBe('test');
    expect((await createIn(w, w.liveSecret)).mode).toBe('live');
  });

  it('MISSING_API_KEY without X-API-Key', async () => {
    const r = await call(getConsent, { path: '/v1/consent', secret: w.testSecret });
    expect([r.status, r.json.error.code]).toEqual([401, 'MISSING_API_KEY']);
  });

  it('INVALID_API_KEY for an unknown key', async () => {
    const r = await call(getConsent, { path: '/v1/consent', apiKey: 'pk_nope', secret: w.testSecret });
    expect([r.status, r.json.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('MISSING_SIGNATURE when the header is absent', async () => {
    const r = await call(getConsent, { path: '/v1/consent', apiKey: w.apiKey });
    expect([r.status, r.json.error.code]).toEqual([401, 'MISSING_SIGNATURE']);
  });

  describe('INVALID_SIGNATURE for each mistake docs/api.md lists', () => {
    const body = JSON.stringify({ external_id: 'x', external_metadata: { a: 1 } });
    const cases: [string, () => string][] = [
      ['lowercase method', () => hmac(w.testSecret, 'post/v1/verifications' + body)],
      [
        're-serialized body',
        () => hmac(w.testSecret, 'POST/v1/verifications' + JSON.stringify(JSON.parse(body), null, 1)),
      ],
      ['full URL instead of path', () => hmac(w.testSecret, 'POSThttp://verify.test/v1/verifications' + body)],
      ['uppercase hex', () => hmac(w.testSecret, 'POST/v1/verifications' + body).toUpperCase()],
      ['wrong length', () => hmac(w.testSecret, 'POST/v1/verifications' + body).slice(0, 63)],
      ['not hex', () => 'z'.repeat(64)],
      ['another workspace’s key', () => hmac('sk_test_' + 'A'.repeat(56), 'POST/v1/verifications' + body)],
    ];
    for (const [name, sig] of cases) {
      it(name, async () => {
        const r = await call(create, {
          method: 'POST',
          path: '/v1/verifications',
          body,
          apiKey: w.apiKey,
          signature: sig(),
        });
        expect([r.status, r.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
      });
    }

    it('missing query string', async () => {
      const v = await createIn(w, w.testSecret);
      const path = `/v1/verifications/${v.id}?expand=consent`;
      const good = await call(getOne, {
        path,
        apiKey: w.apiKey,
        signature: hmac(w.testSecret, 'GET' + path),
        params: { id: v.id },
      });
      expect(good.status).toBe(200);
      const bad = await call(getOne, {
        path,
        apiKey: w.apiKey,
        signature: hmac(w.testSecret, `GET/v1/verifications/${v.id}`),
        params: { id: v.id },
      });
      expect([bad.status, bad.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    });

    it('a key of the other environment reads nothing of this one (404, not the object)', async () => {
      const live = await createIn(w, w.liveSecret);
      const r = await call(getOne, {
        path: `/v1/verifications/${live.id}`,
        apiKey: w.apiKey,
        secret: w.testSecret,
        params: { id: live.id },
      });
      expect([r.status, r.json.error.code]).toEqual([404, 'NOT_FOUND']);
    });
  });

  it('the signature covers the raw body bytes exactly as sent (unicode, escapes)', async () => {
    const raw = '{"external_id":"Zoë-\u00e9\\u00e9-👩‍💻","external_metadata":{"url":"a\\/b"}}';
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: raw,
      apiKey: w.apiKey,
      signature: hmac(w.testSecret, 'POST/v1/verifications' + raw),
    });
    expect(r.status).toBe(201);
    expect(r.json.data.external_id).toBe('Zoë-éé-👩‍💻');
    expect(r.json.data.external_metadata).toEqual({ url: 'a/b' });
    // The metadata is stored sealed under the verification's data key, never in clear (docs/privacy.md), and read
    // back as the object sent (above); the audit entry's data is a JSON object, not a double-encoded string.
    const rows = await getDb().execute<{ clear: unknown; sealed: boolean; a: string }>(
      sql`select v.external_metadata as clear, v.external_metadata_sealed is not null as sealed, jsonb_typeof(a.data) as a from verifications v join audit_log a on a.verification_id = v.id where v.id = ${r.json.data.id}`,
    );
    expect([...rows]).toEqual([{ clear: null, sealed: true, a: 'object' }]);
    const again = await call(getOne, {
      path: `/v1/verifications/${r.json.data.id}`,
      params: { id: r.json.data.id },
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect(again.json.data.external_metadata).toEqual({ url: 'a/b' });
  });

  it('any non-deleted key validates; a deleted one stops at once (rotation)', async () => {
    const ws = await makeWorkspace();
    const db = getDb();
    const k2 = await createSecretKey(db, { workspaceId: ws.workspace.id, mode: 'test' });
    await createIn(ws, ws.testSecret);
    await createIn(ws, k2.secret);
    await activateSecretKey(db, k2.id);
    await deleteSecretKey(db, ws.testKeyId);
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: ws.apiKey,
      secret: ws.testSecret,
    });
    expect(r.json.error.code).toBe('INVALID_SIGNATURE');
    await createIn(ws, k2.secret);
    const keys = await listSecretKeys(db, ws.workspace.id);
    expect(keys.filter((k) => k.active).map((k) => k.id)).toEqual([k2.id]);
  });

  it('NO_SECRET_KEYS when the workspace has none left', async () => {
    const ws = await makeWorkspace();
    await deleteSecretKey(getDb(), ws.testKeyId);
    // The active key cannot be deleted (KEY_ACTIVE): a workspace left without keys is written directly.
    await expect(deleteSecretKey(getDb(), ws.liveKeyId)).rejects.toMatchObject({ code: 'KEY_ACTIVE' });
    await getDb().execute(sql`update secret_keys set deleted_at = now(), is_active = false where id = ${ws.liveKeyId}`);
    const r = await call(getConsent, { path: '/v1/consent', apiKey: ws.apiKey, secret: ws.testSecret });
    expect([r.status, r.json.error.code]).toEqual([401, 'NO_SECRET_KEYS']);
  });

  describe('unsigned create', () => {
    it('refused with MISSING_SIGNATURE where the workspace enforces signatures (the default)', async () => {
      const r = await call(create, { method: 'POST', path: '/v1/verifications', body: {}, apiKey: w.apiKey });
      expect(r.json.error.code).toBe('MISSING_SIGNATURE');
    });

    it('allowed where not enforced: mode from the body, live by default; only for create', async () => {
      const ws = await makeWorkspace({ enforce_signature: false });
      const a = await call(create, { method: 'POST', path: '/v1/verifications', body: {}, apiKey: ws.apiKey });
      expect([a.status, a.json.data.mode]).toEqual([201, 'live']);
      const b = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: { mode: 'test' },
        apiKey: ws.apiKey,
      });
      expect([b.status, b.json.data.mode]).toEqual([201, 'test']);
      const g = await call(getOne, {
        path: `/v1/verifications/${a.json.data.id}`,
        apiKey: ws.apiKey,
        params: { id: a.json.data.id },
      });
      expect(g.json.error.code).toBe('MISSING_SIGNATURE');
      const c = await call(getConsent, { path: '/v1/consent', apiKey: ws.apiKey });
      expect(c.json.error.code).toBe('MISSING_SIGNATURE');
    });
  });

  describe('placeholder signature', () => {
    it('refused unless the workspace allows it', async () => {
      const r = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: {},
        apiKey: w.apiKey,
        signature: 'placeholder',
      });
      expect([r.status, r.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    });

    it('authenticates as test mode only where allowed', async () => {
      const ws = await makeWorkspace({ allow_placeholder_signature: true });
      const r = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: {},
        apiKey: ws.apiKey,
        signature: 'placeholder',
      });
      expect([r.status, r.json.data.mode]).toEqual([201, 'test']);
      const live = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: { mode: 'live' },
        apiKey: ws.apiKey,
        signature: 'placeholder',
      });
      expect(live.json.error.code).toBe('VALIDATION_ERROR');
      await updateWorkspaceSettings(getDb(), ws.workspace.id, { allow_placeholder_signature: false });
      const off = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: {},
        apiKey: ws.apiKey,
        signature: 'placeholder',
      });
      expect(off.json.error.code).toBe('INVALID_SIGNATURE');
    });
  });

  it('every response carries a request id, errors too', async () => {
    const ok = await call(getConsent, { path: '/v1/consent', apiKey: w.apiKey, secret: w.testSecret });
    const bad = await call(getConsent, { path: '/v1/consent', apiKey: w.apiKey, signature: 'f'.repeat(64) });
    expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
    expect(bad.json.error.request_id).toBe(bad.headers.get('x-request-id'));
  });
});
