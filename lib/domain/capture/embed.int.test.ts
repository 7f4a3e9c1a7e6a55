/**
 * Who may frame the hosted capture page (docs/sdks.md "Embedding the flow"): the workspace setting
 * `embed_origins` (validated, set and cleared by the CLI, audited), the page's `frame-ancestors` from it (proxy.ts,
 * loopback origins for test-mode verifications only), and where the page's events may go. In the browser:
 * e2e/embed.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { getDb } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';
import { POST as createRoute } from '@/app/v1/verifications/route';
import { proxy } from '@/proxy';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { ops } from '@/test/helpers/ops-process';
import { HTTP_STATUS } from '@/lib/api/http-status';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { DomainError } from '@/lib/core/errors';
import { embedOriginsForToken, embedTarget } from './embed';
import { verificationByToken } from './auth';

async function link(w: TestWorkspace, mode: 'test' | 'live') {
  await ensureConsent();
  const c = await call(createRoute, {
    method: 'POST',
    path: '/v1/verifications',
    body: {},
    apiKey: w.apiKey,
    secret: mode === 'test' ? w.testSecret : w.liveSecret,
  });
  return new URL(c.json.data.url).pathname.split('/').pop()!;
}

async function pageHeaders(token: string) {
  const res = await proxy(new NextRequest(`http://127.0.0.1:3000/verify/${token}`));
  return { csp: res.headers.get('content-security-policy') ?? '', xfo: res.headers.get('x-frame-options') };
}
const ancestors = (csp: string) => /frame-ancestors ([^;]*)/.exec(csp)?.[1];

describe('embed_origins', { timeout: 120_000 }, () => {
  it('the CLI sets a comma-separated list, shows it in the workspace JSON, and an empty value clears it; each change audited', async () => {
    const ws = (await ops('workspace:create', '--name', 'embed')).out.workspace.id;
    expect((await ops('workspace:settings', '--workspace', ws)).out.workspace.embed_origins).toEqual([]);
    const set = await ops(
      'workspace:settings',
      '--workspace',
      ws,
      '--embed-origins',
      'https://a.example,https://b.example:8443, http://localhost:5173',
    );
    expect([set.code, set.out.workspace.embed_origins]).toEqual([
      0,
      ['https://a.example', 'https://b.example:8443', 'http://localhost:5173'],
    ]);
    const cleared = await ops('workspace:settings', '--workspace', ws, '--embed-origins', '');
    expect([cleared.code, cleared.out.workspace.embed_origins]).toEqual([0, []]);
    const changes = (
      await getDb()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.workspaceId, ws), eq(auditLog.action, 'workspace.settings_updated')))
    ).map((e) => (e.data as { changes: unknown }).changes);
    expect(changes).toContainEqual({
      embed_origins: { before: ['https://a.example', 'https://b.example:8443', 'http://localhost:5173'], after: [] },
    });
  });

  it('anything but an origin is VALIDATION_ERROR (422) naming embed_origins, and nothing changes', async () => {
    const ws = (await ops('workspace:create', '--name', 'embed bad')).out.workspace.id;
    await ops('workspace:settings', '--workspace', ws, '--embed-origins', 'https://kept.example');
    for (const bad of [
      'shop.example',
      'http://shop.example',
      'https://shop.example/',
      'https://shop.example/checkout',
      'https://*.shop.example',
      'https://user@shop.example',
      'ftp://shop.example',
      'javascript:alert(1)',
      'https://Shop.example',
    ]) {
      const r = await ops('workspace:settings', '--workspace', ws, '--embed-origins', `https://ok.example,${bad}`);
      expect([bad, r.code, r.out.error?.code, Object.keys(r.out.error?.details?.fields ?? {})]).toEqual([
        bad,
        1,
        'VALIDATION_ERROR',
        ['embed_origins'],
      ]);
    }
    expect((await ops('workspace:settings', '--workspace', ws)).out.workspace.embed_origins).toEqual([
      'https://kept.example',
    ]);
    const e = await updateWorkspaceSettings(getDb(), ws, { embed_origins: ['https://a.example/x'] }).catch((x) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect([HTTP_STATUS[e.code as keyof typeof HTTP_STATUS], e.details.fields.embed_origins]).toEqual([
      422,
      ['"https://a.example/x": an origin only (scheme://host[:port], no path, no trailing slash, lower case).'],
    ]);
  });

  it("the page's frame-ancestors: 'none' (and X-Frame-Options DENY) without a list, exactly the list with one; loopback origins in test mode only", async () => {
    const w = await makeWorkspace();
    const none = await pageHeaders(await link(w, 'live'));
    expect([ancestors(none.csp), none.xfo]).toEqual(["'none'", 'DENY']);

    await updateWorkspaceSettings(getDb(), w.workspace.id, {
      embed_origins: ['https://shop.example', 'http://localhost:5173'],
    });
    const live = await link(w, 'live');
    const test = await link(w, 'test');
    const l = await pageHeaders(live);
    expect([ancestors(l.csp), l.xfo]).toEqual(['https://shop.example', null]);
    const t = await pageHeaders(test);
    expect([ancestors(t.csp), t.xfo]).toEqual(['https://shop.example http://localhost:5173', null]);
    expect(await embedOriginsForToken(getDb(), live)).toEqual(['https://shop.example']);

    // A token that opens nothing (unknown, or not a token at all) is never framed.
    const unknown = await pageHeaders('A'.repeat(43));
    expect([ancestors(unknown.csp), unknown.xfo]).toEqual(["'none'", 'DENY']);
    expect(ancestors((await pageHeaders('not-a-token')).csp)).toBe("'none'");
  });

  it("events go to the link's embed origin only when it is on the list (a loopback one for a test-mode verification only)", async () => {
    const w = await makeWorkspace({ embed_origins: ['https://shop.example', 'http://localhost:5173'] });
    const live = (await verificationByToken(getDb(), await link(w, 'live')))!;
    const test = (await verificationByToken(getDb(), await link(w, 'test')))!;
    expect(embedTarget(live, 'https://shop.example')).toEqual({
      origin: 'https://shop.example',
      verificationId: live.v.id,
    });
    expect(embedTarget(live, 'https://evil.example')).toBeNull();
    expect(embedTarget(live, 'http://localhost:5173')).toBeNull();
    expect(embedTarget(test, 'http://localhost:5173')).toEqual({
      origin: 'http://localhost:5173',
      verificationId: test.v.id,
    });
    expect(embedTarget(test, undefined)).toBeNull();
    expect(embedTarget(test, ['https://shop.example', 'https://shop.example'])).toBeNull();
  });
});
