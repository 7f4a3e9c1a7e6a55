import { describe, expect, it } from 'vitest';
import { GET as getConsent } from '@/app/v1/consent/route';
import { getDb } from '@/lib/db/client';
import { takeRateLimit } from '.';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace } from '@/test/helpers/factories';

describe('rate limit', () => {
  it('the request past the limit gets 429 RATE_LIMIT with Retry-After and X-RateLimit-* headers', async () => {
    await ensureConsent();
    const w = await makeWorkspace({ rate_limit_per_minute: 3 });
    const get = () => call(getConsent, { path: '/v1/consent', apiKey: w.apiKey, secret: w.testSecret });
    const rs = [await get(), await get(), await get(), await get()];
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(rs.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    const last = rs[3];
    expect(last.json.error.code).toBe('RATE_LIMIT');
    const retry = Number(last.headers.get('retry-after'));
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
    expect(last.headers.get('x-ratelimit-limit')).toBe('3');
    expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('the window rolls: requests older than 60 s stop counting', async () => {
    const key = `t:${Math.random()}`;
    const t0 = 1_800_000_000_000;
    const db = getDb();
    expect((await takeRateLimit(db, key, 2, t0)).allowed).toBe(true);
    expect((await takeRateLimit(db, key, 2, t0 + 30_000)).allowed).toBe(true);
    const refused = await takeRateLimit(db, key, 2, t0 + 59_000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBe(1); // the first request leaves the window at t0 + 60 s
    expect((await takeRateLimit(db, key, 2, t0 + 60_000)).allowed).toBe(true);
    expect((await takeRateLimit(db, key, 2, t0 + 61_000)).allowed).toBe(false);
    expect((await takeRateLimit(db, key, 2, t0 + 90_000)).allowed).toBe(true);
  });
});
