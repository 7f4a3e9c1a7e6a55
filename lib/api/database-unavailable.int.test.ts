/** A database out of reach is a 503 with Retry-After in the error envelope, not a 500. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, getDbHandle, setDbHandle, type DbHandle } from '@/lib/db/client';
import { GET as getConsent } from '@/app/v1/consent/route';
import { GET as captureState } from '@/app/api/capture/[token]/route';
import { call } from '@/test/helpers/http';
import { freePort } from '@/test/helpers/server';
import { randomToken } from '@/lib/core/ids';
import { databaseUnavailable } from './respond';

describe('database unavailable', () => {
  let previous: DbHandle;
  let dead: DbHandle;
  beforeAll(async () => {
    previous = getDbHandle();
    // Nothing listens there: every query fails to connect.
    dead = connect(`postgres://u:p@127.0.0.1:${await freePort()}/x`, { max: 1 });
    setDbHandle(dead);
  });
  afterAll(async () => {
    setDbHandle(previous);
    await dead.close();
  });

  it('a signed request and a capture-page request: 503 DATABASE_UNAVAILABLE with Retry-After', async () => {
    const r = await call(getConsent, { path: '/v1/consent', apiKey: 'pk_x', signature: 'a'.repeat(64) });
    expect([r.status, r.json.error.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    const token = randomToken();
    const c = await call(captureState, { path: `/api/capture/${token}`, params: { token } });
    expect([c.status, c.json.error.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
  });

  it('recognises the driver’s and the server’s ways of saying so, wrapped or not; not other database errors', () => {
    for (const code of ['ECONNREFUSED', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '57P01', '57P03', '08006', '53300']) {
      expect([code, databaseUnavailable({ code })]).toEqual([code, true]);
      expect([code, databaseUnavailable(new Error('query failed', { cause: { code } }))]).toEqual([code, true]);
    }
    for (const code of ['23505', '40001', '42P01', '57014', undefined])
      expect([code, databaseUnavailable({ code })]).toEqual([code, false]);
  });
});
