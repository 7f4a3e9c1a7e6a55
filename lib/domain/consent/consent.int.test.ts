/** docs/api.md "Consent" and the consent errors, both request and response shapes. */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { POST as consent } from '@/app/v1/verifications/[id]/consent/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { GET as consentText } from '@/app/consent/[file]/route';
import { GET as consentTextIn } from '@/app/consent/[file]/[locale]/route';
import { LOCALES } from '@/lib/core/i18n/locales';
import { makeAdmin } from '@/test/helpers/admin-factories';
import { loadCase } from '@/lib/domain/admin/case';
import { timeline } from '@/lib/domain/admin/timeline';
import { consentHistory } from '@/lib/domain/admin/consent';
import { getDb } from '@/lib/db/client';
import { consentRecords, verifications } from '@/lib/db/schema';
import { publishConsent } from '.';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

const TEXT = 'Zustimmung — I agree to “face” checks.\r\nLine two ✓\n';
const sha = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

describe('consent', () => {
  let w: TestWorkspace;
  let version: { id: number; version: string; textSha256: string };
  let vid: string;

  const accept = (body: object, id = vid) =>
    call(consent, {
      method: 'POST',
      path: `/v1/verifications/${id}/consent`,
      body,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id },
    });

  beforeEach(async () => {
    version = await publishConsent(getDb(), { text: TEXT, version: `2026-11-${Math.floor(Math.random() * 1e6)}` });
    w = await makeWorkspace();
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    vid = r.json.data.id;
  });

  it('GET /v1/consent returns the active version; its url serves the exact bytes as text/plain; charset=utf-8', async () => {
    const r = await call(getConsent, { path: '/v1/consent', apiKey: w.apiKey, secret: w.testSecret });
    expect(r.json.data).toEqual({
      id: version.id,
      version: version.version,
      text_sha256: sha(TEXT),
      url: `http://verify.test/consent/${version.id}.txt`,
      locale: 'en',
      locales: ['en'],
      consent_text: TEXT,
    });
    const t = await consentText(new Request(r.json.data.url), {
      params: Promise.resolve({ file: `${version.id}.txt` }),
    });
    expect(t.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const bytes = Buffer.from(await t.arrayBuffer());
    expect(bytes.equals(Buffer.from(TEXT, 'utf8'))).toBe(true);
    const missing = await consentText(new Request('http://verify.test/consent/999999.txt'), {
      params: Promise.resolve({ file: '999999.txt' }),
    });
    expect(missing.status).toBe(404);
  });

  it('accepts by id and hash; repeating it returns the same record and creates no duplicate', async () => {
    const a = await accept({ consent_version_id: version.id, text_sha256: sha(TEXT) });
    expect(a.status).toBe(200);
    expect(a.json.data.id).toBe(vid);
    expect(a.json.data.consent).toEqual({
      version_id: version.id,
      version: version.version,
      accepted_at: expect.any(String),
      locale: 'en',
    });
    const b = await accept({ consent_version_id: version.id, text_sha256: sha(TEXT) });
    expect(b.json.data.consent.accepted_at).toBe(a.json.data.consent.accepted_at);
    const rows = await getDb().select().from(consentRecords).where(eq(consentRecords.verificationId, vid));
    expect(rows).toHaveLength(1);
  });

  it('accepts the alternative shape { consent_version, accepted: true }', async () => {
    const a = await accept({ consent_version: version.version, accepted: true });
    expect(a.status).toBe(200);
    expect(a.json.data.consent_accepted).toBe(true);
    expect(a.json.data.consent_version).toBe(version.version);
    const no = await accept({ consent_version: version.version, accepted: false }, vid);
    expect(no.json.error.code).toBe('VALIDATION_ERROR'); // never an acceptance, whatever came before
  });

  it('accepted: false is VALIDATION_ERROR when nothing was accepted yet', async () => {
    const r = await accept({ consent_version: version.version, accepted: false });
    expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
  });

  it('GET verification returns both consent shapes', async () => {
    await accept({ consent_version_id: version.id, text_sha256: sha(TEXT) });
    const g = await call(getOne, {
      path: `/v1/verifications/${vid}`,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id: vid },
    });
    const d = g.json.data;
    expect(d.consent.version_id).toBe(version.id);
    expect(d.consent_accepted).toBe(true);
    expect(d.consent_version).toBe(version.version);
    expect(d.consented_at).toBe(d.consent.accepted_at);
  });

  it('CONSENT_SHA256_MISMATCH when the hash is not the active text’s (409)', async () => {
    const r = await accept({ consent_version_id: version.id, text_sha256: sha(TEXT + ' ') });
    expect([r.status, r.json.error.code]).toEqual([409, 'CONSENT_SHA256_MISMATCH']);
  });

  it('uppercase hex of the right hash is accepted (64 hex chars)', async () => {
    const r = await accept({ consent_version_id: version.id, text_sha256: sha(TEXT).toUpperCase() });
    expect(r.status).toBe(200);
  });

  it('CONSENT_VERSION_INACTIVE for a version no longer active, in both shapes (409)', async () => {
    const old = version;
    await publishConsent(getDb(), { text: TEXT + 'v2', version: old.version + '-b' });
    const a = await accept({ consent_version_id: old.id, text_sha256: sha(TEXT) });
    expect([a.status, a.json.error.code]).toEqual([409, 'CONSENT_VERSION_INACTIVE']);
    const b = await accept({ consent_version: old.version, accepted: true });
    expect([b.status, b.json.error.code]).toEqual([409, 'CONSENT_VERSION_INACTIVE']);
  });

  const invalid: [string, object, string][] = [
    ['non-integer consent_version_id', { consent_version_id: 1.5, text_sha256: 'a'.repeat(64) }, 'consent_version_id'],
    ['string consent_version_id', { consent_version_id: '1', text_sha256: 'a'.repeat(64) }, 'consent_version_id'],
    ['text_sha256 too short', { consent_version_id: 1, text_sha256: 'a'.repeat(63) }, 'text_sha256'],
    ['text_sha256 not hex', { consent_version_id: 1, text_sha256: 'g'.repeat(64) }, 'text_sha256'],
    ['text_sha256 missing', { consent_version_id: 1 }, 'text_sha256'],
    ['empty body', {}, 'consent_version_id'],
    ['unknown field', { consent_version_id: 1, text_sha256: 'a'.repeat(64), extra: 1 }, 'extra'],
  ];
  for (const [name, body, field] of invalid) {
    it(`VALIDATION_ERROR: ${name}`, async () => {
      const r = await accept(body);
      expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(Object.keys(r.json.error.details.fields)).toContain(field);
    });
  }

  it('INVALID_STATUS on a finished verification that never consented', async () => {
    await getDb().update(verifications).set({ status: 'expired' }).where(eq(verifications.id, vid));
    const r = await accept({ consent_version_id: version.id, text_sha256: sha(TEXT) });
    expect([r.status, r.json.error.code]).toEqual([409, 'INVALID_STATUS']);
  });

  it('NOT_FOUND for another workspace’s verification', async () => {
    const other = await makeWorkspace();
    const r = await call(consent, {
      method: 'POST',
      path: `/v1/verifications/${vid}/consent`,
      body: { consent_version_id: version.id, text_sha256: sha(TEXT) },
      apiKey: other.apiKey,
      secret: other.testSecret,
      params: { id: vid },
    });
    expect([r.status, r.json.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});

/** docs/api.md "Consent": a version's text in each language of the capture page, each with its own SHA-256 and URL. */
describe("consent in the capture page's languages", () => {
  let w: TestWorkspace;
  let id: number;
  const TEXTS = Object.fromEntries(
    LOCALES.map((l) => [l, `Consent (${l}) — ${l === 'ar' ? 'أوافق' : l === 'ja' ? '同意します' : 'I agree'}.\n`]),
  );
  const get = (query = '') => call(getConsent, { path: `/v1/consent${query}`, apiKey: w.apiKey, secret: w.testSecret });
  const newVerification = async () =>
    (
      await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: {},
        apiKey: w.apiKey,
        secret: w.testSecret,
      })
    ).json.data.id as string;
  const accept = (vid: string, body: object) =>
    call(consent, {
      method: 'POST',
      path: `/v1/verifications/${vid}/consent`,
      body,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id: vid },
    });

  beforeEach(async () => {
    w = await makeWorkspace();
    id = (await publishConsent(getDb(), { texts: TEXTS, version: `langs-${Math.random()}` })).id;
  });

  it('GET /v1/consent is English; ?lang=fr (or fr-CA) the French text under the same id, its URL serving exactly those bytes', async () => {
    const en = (await get()).json.data;
    expect(en).toEqual({
      id,
      version: expect.any(String),
      text_sha256: sha(TEXTS.en),
      url: `http://verify.test/consent/${id}.txt`,
      locale: 'en',
      locales: [...LOCALES],
      consent_text: TEXTS.en,
    });
    for (const q of ['fr', 'fr-CA', 'FR']) {
      const fr = (await get(`?lang=${q}`)).json.data;
      expect(fr).toMatchObject({
        id,
        version: en.version,
        text_sha256: sha(TEXTS.fr),
        url: `http://verify.test/consent/${id}/fr.txt`,
        locale: 'fr',
        consent_text: TEXTS.fr,
      });
    }
    const t = await consentTextIn(new Request(`http://verify.test/consent/${id}/fr.txt`), {
      params: Promise.resolve({ file: String(id), locale: 'fr.txt' }),
    });
    expect([t.status, t.headers.get('content-language'), await t.text()]).toEqual([200, 'fr', TEXTS.fr]);
    const nope = await consentTextIn(new Request(`http://verify.test/consent/${id}/xx.txt`), {
      params: Promise.resolve({ file: String(id), locale: 'xx.txt' }),
    });
    expect(nope.status).toBe(404);
  });

  it('?lang= that is malformed or not one of the languages is 422 VALIDATION_ERROR on lang', async () => {
    for (const q of ['zh', 'not%20a%20tag', 'fr_FR', '%3Cx%3E', 'x'.repeat(101)]) {
      const r = await get(`?lang=${q}`);
      expect([
        q,
        r.status,
        r.json.error.code,
        Object.keys(r.json.error.details?.fields ?? {}),
        r.json.error.message,
      ]).toEqual([q, 422, 'VALIDATION_ERROR', ['lang'], expect.any(String)]);
    }
  });

  it('acceptance takes the hash of any language of the active version and records that language as consent.locale', async () => {
    for (const l of ['ar', 'ja', 'en'] as const) {
      const vid = await newVerification();
      const r = await accept(vid, { consent_version_id: id, text_sha256: sha(TEXTS[l]) });
      expect([r.status, r.json.data.consent.locale]).toEqual([200, l]);
      const g = await call(getOne, {
        path: `/v1/verifications/${vid}`,
        apiKey: w.apiKey,
        secret: w.testSecret,
        params: { id: vid },
      });
      expect(g.json.data.consent).toMatchObject({ version_id: id, locale: l });
    }
    const vid = await newVerification();
    const label = await accept(vid, { consent_version: (await get()).json.data.version, accepted: true });
    expect(label.json.data.consent.locale).toBe('en'); // the label shape names no text: the English one
  });

  it("the admin area shows the language read in the case view, and each version's languages in the history", async () => {
    const vid = await newVerification();
    await accept(vid, { consent_version_id: id, text_sha256: sha(TEXTS.ar) });
    const owner = await makeAdmin({ workspaces: [[w.workspace.id, 'owner']] });
    const { events } = timeline(await loadCase(getDb(), owner, vid));
    expect(events.map((e) => e.title)).toContainEqual(
      expect.stringMatching(/^Consent accepted \(version .+, in Arabic\)$/),
    );
    const [latest] = await consentHistory(getDb(), await makeAdmin({ operator: true }));
    expect([latest.id, latest.texts.map((t) => t.locale)]).toEqual([id, [...LOCALES]]);
  });

  it('a version published with missing languages answers those in English, saying so in locale; without allowMissing it is refused', async () => {
    const noJa = Object.fromEntries(Object.entries(TEXTS).filter(([l]) => l !== 'ja'));
    await expect(publishConsent(getDb(), { texts: noJa, version: `no-ja-${Math.random()}` })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { missing_locales: ['ja'] },
    });
    const v = await publishConsent(getDb(), { texts: noJa, version: `no-ja-${Math.random()}`, allowMissing: true });
    expect(v.missing).toEqual(['ja']);
    const ja = (await get('?lang=ja')).json.data;
    expect(ja).toMatchObject({
      id: v.id,
      locale: 'en',
      text_sha256: sha(TEXTS.en),
      url: `http://verify.test/consent/${v.id}.txt`,
    });
    expect(ja.locales).not.toContain('ja');
    await expect(
      publishConsent(getDb(), { texts: { fr: TEXTS.fr }, version: 'no-en', allowMissing: true }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
