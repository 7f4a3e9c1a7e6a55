/** return_url (extension, docs/api.md): https only, validated at creation, shown by the capture page at the end. */
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { GET as captureState } from '@/app/api/capture/[token]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { isReturnUrl } from './create';

describe('return_url', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
  });
  const post = (body: object) =>
    call(create, { method: 'POST', path: '/v1/verifications', body, apiKey: w.apiKey, secret: w.testSecret });

  it('is kept as given, returned on creation and by GET, and given to the capture page with its host', async () => {
    const url = 'https://shop.example.com/account/verified?order=42&x=%C3%A9#done';
    const c = await post({ external_id: 'ret-1', return_url: url });
    expect([c.status, c.json.data.return_url]).toEqual([201, url]);
    const id = c.json.data.id;
    const g = await call(getOne, {
      path: `/v1/verifications/${id}`,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id },
    });
    expect(g.json.data.return_url).toBe(url);
    const token = new URL(c.json.data.url).pathname.split('/').pop()!;
    const s = await call(captureState, { path: `/api/capture/${token}`, params: { token } });
    expect(s.json.data).toMatchObject({ return_url: url, return_host: 'shop.example.com' });
  });

  it('is optional: null without one', async () => {
    const c = await post({});
    expect(c.json.data.return_url).toBeNull();
    const n = await post({ return_url: null });
    expect([n.status, n.json.data.return_url]).toEqual([201, null]);
  });

  it('anything but an absolute https URL with a host is 422 VALIDATION_ERROR on return_url', async () => {
    const bad: unknown[] = [
      'http://shop.example.com/',
      'javascript:alert(1)',
      'data:text/html,hi',
      '//shop.example.com/',
      '/relative',
      'https://',
      'https://user:pass@shop.example.com/',
      'https://shop.example.com/a b',
      'https://shop.example.com/é',
      'ftp://shop.example.com/',
      'https://shop.example.com/' + 'a'.repeat(2048),
      42,
      '',
    ];
    for (const return_url of bad) {
      const r = await post({ return_url });
      expect([
        String(return_url).slice(0, 40),
        r.status,
        r.json.error.code,
        Object.keys(r.json.error.details.fields),
      ]).toEqual([String(return_url).slice(0, 40), 422, 'VALIDATION_ERROR', ['return_url']]);
    }
  });

  it('the rule', () => {
    expect(isReturnUrl('https://a.example/')).toBe(true);
    expect(isReturnUrl('HTTPS://A.EXAMPLE/path')).toBe(true);
    expect(isReturnUrl('https://[::1]:8443/x')).toBe(true);
    expect(isReturnUrl('https:/a.example')).toBe(false);
  });
});
