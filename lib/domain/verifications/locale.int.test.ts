/**
 * `locale` on verification create (extension, docs/api.md "Verifications"): a BCP 47 tag negotiated to one of
 * the capture page's languages, stored, returned on creation and by GET; anything else is 422 on the field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

describe('locale on create', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
  });
  const post = (body: object) =>
    call(create, { method: 'POST', path: '/v1/verifications', body, apiKey: w.apiKey, secret: w.testSecret });
  const get = (id: string) =>
    call(getOne, { path: `/v1/verifications/${id}`, apiKey: w.apiKey, secret: w.testSecret, params: { id } });

  it('negotiates to one of the sixteen (fr-CA → fr, pt → pt-BR, iw → he), returned on creation and by GET', async () => {
    for (const [given, stored] of [
      ['fr-CA', 'fr'],
      ['ja', 'ja'],
      ['pt', 'pt-BR'],
      ['pt-PT', 'pt-BR'],
      ['iw', 'he'],
      ['AR-eg', 'ar'],
      ['de-CH-1996', 'de'],
      ['en', 'en'],
    ]) {
      const c = await post({ locale: given });
      expect([given, c.status, c.json.data.locale]).toEqual([given, 201, stored]);
      expect((await get(c.json.data.id)).json.data.locale).toBe(stored);
    }
  });

  it('is optional: null without one (the browser decides)', async () => {
    const c = await post({});
    expect([c.status, c.json.data.locale]).toEqual([201, null]);
    expect((await get(c.json.data.id)).json.data.locale).toBeNull();
  });

  it('a malformed tag, an unsupported language, or not a string is 422 VALIDATION_ERROR naming locale', async () => {
    for (const bad of ['zh-CN', 'xx', 'fr_FR', 'en--US', '', 'a'.repeat(101), '<script>', 42, ['fr']]) {
      const r = await post({ locale: bad });
      expect([bad, r.status, r.json.error?.code, Object.keys(r.json.error?.details?.fields ?? {})]).toEqual([
        bad,
        422,
        'VALIDATION_ERROR',
        ['locale'],
      ]);
    }
  });
});
