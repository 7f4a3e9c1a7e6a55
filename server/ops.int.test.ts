/**
 * The operator CLI against the test database, with --json output: its commands through main() in this process
 * (test/helpers/ops-process.ts); the real process (tsx server/ops.ts) where the wrapper is what is tested: exit
 * statuses 0, 1 and 2, the one JSON object on stdout, --help.
 */
import { execFile, spawn } from 'node:child_process';
import sharp from 'sharp';
import { checkAdminPassword } from '@/lib/domain/admin/users';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import {
  auditLog,
  blocklistEntries,
  consentTexts,
  EMBEDDING_DIMENSIONS,
  usageDays,
  verifications,
} from '@/lib/db/schema';
import { call } from '@/test/helpers/http';
import { ops, opsProcess } from '@/test/helpers/ops-process';
import { LOCALES } from '@/lib/core/i18n/locales';
import { createHash } from 'node:crypto';

describe('operator CLI', { timeout: 120_000 }, () => {
  it('workspace:create prints the workspace and one test and one live key (a real process: exit 0, one JSON object on stdout)', async () => {
    const { code, out } = await opsProcess('workspace:create', '--name', 'CLI co', '--flow', 'kyc');
    expect(code).toBe(0);
    expect(out.workspace).toEqual({
      id: expect.stringMatching(/^ws_/),
      name: 'CLI co',
      api_key: expect.stringMatching(/^pk_/),
    });
    expect(out.secret_keys.map((k: { mode: string }) => k.mode)).toEqual(['test', 'live']);
    for (const k of out.secret_keys) expect(k.secret).toMatch(new RegExp(`^sk_${k.mode}_[A-Za-z0-9]{56}$`));
    // the printed secret really signs requests
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: out.workspace.api_key,
      secret: out.secret_keys[0].secret,
    });
    expect(r.status).toBe(201);
  });

  it('key:create up to 5, then KEY_LIMIT_REACHED; key:list never prints secrets; activate and delete', async () => {
    const ws = (await ops('workspace:create', '--name', 'keys')).out.workspace.id;
    const created = [];
    for (let i = 0; i < 3; i++)
      created.push((await ops('key:create', '--workspace', ws, '--mode', 'test')).out.secret_key);
    const over = await ops('key:create', '--workspace', ws, '--mode', 'live');
    expect([over.code, over.out.error.code]).toEqual([1, 'KEY_LIMIT_REACHED']);
    const list = await ops('key:list', '--workspace', ws);
    expect(list.out.secret_keys).toHaveLength(5);
    expect(JSON.stringify(list.out)).not.toMatch(/sk_(test|live)_[A-Za-z0-9]{56}/);
    await ops('key:activate', '--key', created[0].id);
    const after = (await ops('key:list', '--workspace', ws)).out.secret_keys;
    expect(after.filter((k: { active: boolean }) => k.active).map((k: { id: string }) => k.id)).toEqual([
      created[0].id,
    ]);
    expect((await ops('key:delete', '--key', created[1].id)).code).toBe(0);
    // The active key is refused until another is active.
    const refused = await ops('key:delete', '--key', created[0].id);
    expect([refused.code, refused.out.error.code]).toEqual([1, 'KEY_ACTIVE']);
    expect((await ops('key:list', '--workspace', ws)).out.secret_keys).toHaveLength(4);
  });

  it('workspace:settings updates and validates', async () => {
    const ws = (await ops('workspace:create', '--name', 'settings')).out.workspace.id;
    const r = await ops(
      'workspace:settings',
      '--workspace',
      ws,
      '--enforce-signature',
      'false',
      '--age-threshold',
      '21',
      '--webhook-url',
      'https://hooks.example.com/x',
      '--require-request-timestamp',
      'true',
    );
    expect(r.out.workspace).toMatchObject({
      enforce_signature: false,
      age_threshold: 21,
      webhook_url: 'https://hooks.example.com/x',
      require_request_timestamp: true,
    });
    const bad = await ops('workspace:settings', '--workspace', ws, '--webhook-url', 'http://plain.example.com');
    expect([bad.code, bad.out.error.code]).toEqual([1, 'VALIDATION_ERROR']);
    const dup = await ops('workspace:settings', '--workspace', ws, '--duplicate-threshold', '0.91');
    expect(dup.out.workspace).toMatchObject({ duplicate_threshold: expect.closeTo(0.91, 5) });
    for (const v of ['1.5', '-0.1', 'high', '']) {
      const r = await ops('workspace:settings', '--workspace', ws, '--duplicate-threshold', v);
      expect([v, r.code, r.out.error?.code]).toEqual([v, 1, 'VALIDATION_ERROR']);
    }
    const missing = await ops('workspace:settings', '--workspace', 'ws_nope', '--age-threshold', '20');
    expect(missing.out.error.code).toBe('NOT_FOUND');
  });

  it('workspace:settings --estimation-fallback: review by default, document settable and audited, anything else refused naming the setting', async () => {
    const ws = (await ops('workspace:create', '--name', 'fallback')).out.workspace.id;
    expect((await ops('workspace:settings', '--workspace', ws)).out.workspace.estimation_fallback).toBe('review');
    const set = await ops('workspace:settings', '--workspace', ws, '--estimation-fallback', 'document');
    expect([set.code, set.out.workspace.estimation_fallback]).toEqual([0, 'document']);
    const [entry] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, ws), eq(auditLog.action, 'workspace.settings_updated')));
    expect((entry.data as { changes: unknown }).changes).toEqual({
      estimation_fallback: { before: 'review', after: 'document' },
    });
    // An unknown value (a proof not offered yet): VALIDATION_ERROR on the setting; a missing one: the strict CLI's
    // usage error naming the flag (exit 2, docs/cli.md); nothing changed either way.
    const wallet = await ops('workspace:settings', '--workspace', ws, '--estimation-fallback', 'wallet');
    expect([wallet.code, wallet.out.error?.code, Object.keys(wallet.out.error?.details?.fields ?? {})]).toEqual([
      1,
      'VALIDATION_ERROR',
      ['estimation_fallback'],
    ]);
    const none = await ops('workspace:settings', '--workspace', ws, '--estimation-fallback');
    expect([none.code, none.out.error?.code, none.out.error?.details?.flag]).toEqual([
      2,
      'MISSING_VALUE',
      '--estimation-fallback',
    ]);
    expect((await ops('workspace:settings', '--workspace', ws)).out.workspace.estimation_fallback).toBe('document');
  });

  it('consent:publish --text-dir: every language of the capture page, each with its SHA-256; a missing one refused unless --allow-missing', async () => {
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-'));
    const text = (l: string) => `I consent (${l}). ✓\n`;
    for (const l of LOCALES) fs.writeFileSync(path.join(dir, `${l}.txt`), text(l));
    const r = await ops('consent:publish', '--text-dir', dir, '--version', 'cli-1');
    expect(r.out.consent_version).toMatchObject({
      version: 'cli-1',
      url: `http://verify.test/consent/${r.out.consent_version.id}.txt`,
      text_sha256: sha(text('en')),
      locales: [...LOCALES],
      missing_locales: [],
    });
    const texts = await getDb()
      .select()
      .from(consentTexts)
      .where(eq(consentTexts.consentVersionId, r.out.consent_version.id));
    expect(Object.fromEntries(texts.map((t) => [t.locale, t.textSha256]))).toEqual(
      Object.fromEntries(LOCALES.map((l) => [l, sha(text(l))])),
    );

    fs.rmSync(path.join(dir, 'hi.txt'));
    const refused = await ops('consent:publish', '--text-dir', dir, '--version', 'cli-2');
    expect([refused.code, refused.out.error.code, refused.out.error.details.missing_locales]).toEqual([
      1,
      'VALIDATION_ERROR',
      ['hi'],
    ]);
    const allowed = await ops('consent:publish', '--text-dir', dir, '--allow-missing', '--version', 'cli-2');
    expect([allowed.code, allowed.out.consent_version.missing_locales]).toEqual([0, ['hi']]);

    fs.writeFileSync(path.join(dir, 'zz.txt'), 'stray');
    expect(
      (await ops('consent:publish', '--text-dir', dir, '--allow-missing', '--version', 'cli-3')).out.error.details
        .fields,
    ).toHaveProperty('text-dir');
    // One English file is a version missing fifteen languages: only with --allow-missing.
    const file = path.join(dir, 'en.txt');
    expect(
      (await ops('consent:publish', '--text-file', file, '--version', 'cli-4')).out.error.details.fields,
    ).toHaveProperty('allow-missing');
    const en = await ops('consent:publish', '--text-file', file, '--allow-missing', '--version', 'cli-4');
    expect(en.out.consent_version).toMatchObject({
      text_sha256: sha(text('en')),
      locales: ['en'],
      missing_locales: LOCALES.filter((l) => l !== 'en'),
    });
  });

  it('admin:create, and a duplicate email is refused', async () => {
    const email = `admin-${Math.random().toString(36).slice(2)}@example.com`;
    const r = await ops('admin:create', '--email', email, '--password', 'correct horse battery');
    expect(r.out.admin).toMatchObject({ email, id: expect.stringMatching(/^adm_/) });
    expect((await ops('admin:create', '--email', email, '--password', 'correct horse battery')).out.error.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await ops('admin:create', '--email', 'x@example.com', '--password', 'short')).out.error.code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('admin:create --password-stdin reads the password from standard input (a real process); the JSON says whether a password is set', async () => {
    const email = `stdin-${Math.random().toString(36).slice(2)}@example.com`;
    const child = spawn(
      path.resolve('node_modules/.bin/tsx'),
      ['server/ops.ts', 'admin:create', '--email', email, '--password-stdin', '--json'],
      { env: { ...process.env, LOG_LEVEL: 'silent' } },
    );
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.end('correct horse battery staple\n');
    const code = await new Promise((r) => child.on('close', r));
    expect([code, JSON.parse(stdout).admin]).toEqual([
      0,
      { id: expect.stringMatching(/^adm_/), email, operator: false, created_at: expect.any(String), password: true },
    ]);
    expect(stdout).not.toContain('correct horse battery staple');
    // The password is the one read, without its line break.
    expect(await checkAdminPassword(getDb(), email, 'correct horse battery staple')).toMatchObject({ email });
    // Without a password: said, not silent.
    const sso = await ops('admin:create', '--email', `sso-${email}`);
    expect([sso.out.admin.password, sso.out.note]).toEqual([
      false,
      'no password set: this admin signs in by single sign-on (OpenID Connect) only; set one with admin:reset-password',
    ]);
    const both = await ops(
      'admin:create',
      '--email',
      `both-${email}`,
      '--password',
      'correct horse battery',
      '--password-stdin',
    );
    expect([both.code, both.out.error.message]).toEqual([1, 'Give --password or --password-stdin, not both.']);
  });

  it('sample:selfie writes the public-domain sample face (docs/samples), with no database', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ov-selfie-')), 'selfie.jpg');
    const r = await ops('sample:selfie', '--out', out);
    expect([r.code, r.out.selfie.file, r.out.selfie.type]).toEqual([0, out, 'image/jpeg']);
    expect(fs.readFileSync(out).equals(fs.readFileSync(path.resolve('docs/samples/selfie.jpg')))).toBe(true);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 480]);
  });

  it("admin roles, password and second-factor resets: each ends the admin's sessions", async () => {
    const ws = (await ops('workspace:create', '--name', 'roles')).out.workspace.id;
    const email = `rev-${Math.random().toString(36).slice(2)}@example.com`;
    const made = await ops(
      'admin:create',
      '--email',
      email,
      '--password',
      'correct horse battery',
      '--workspace',
      ws,
      '--role',
      'reviewer',
      '--require-totp',
    );
    expect(made.out.admin).toMatchObject({ email, operator: false });
    expect((await ops('admin:create', '--email', `x${email}`, '--workspace', ws)).out.error.code).toBe(
      'VALIDATION_ERROR',
    ); // a role goes with the workspace
    const listed = (await ops('admin:list')).out.admins.find((a: { email: string }) => a.email === email);
    expect(listed).toEqual({
      id: made.out.admin.id,
      email,
      operator: false,
      password: true,
      totp: false,
      totp_required: true,
      workspaces: [{ workspace_id: ws, role: 'reviewer' }],
    });
    expect(JSON.stringify(listed)).not.toMatch(/scrypt/);
    const { createSession, loadSession, redeemTicket } = await import('@/lib/domain/admin/auth/sessions');
    const signedIn = async () => {
      const s = await createSession(getDb(), {
        userId: made.out.admin.id,
        method: 'password',
        stage: 'full',
        ip: null,
        userAgent: null,
        now: new Date(),
      });
      await redeemTicket(getDb(), s.ticket, new Date());
      return s.id;
    };
    // Each change ends the sessions (every kind is tested in lib/domain/admin/auth/sign-in.int.test.ts): two here, through the CLI.
    for (const args of [
      ['admin:reset-password', '--email', email, '--password', 'another correct horse'],
      ['admin:reset-2fa', '--email', email],
    ]) {
      const sid = await signedIn();
      const r = await ops(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(await loadSession(getDb(), sid, new Date()), args.join(' ')).toBeNull();
    }
    expect((await ops('admin:role', '--email', email, '--operator', 'true')).code).toBe(0);
    expect((await ops('admin:role', '--email', email, '--workspace', ws, '--role', 'none')).code).toBe(0);
    expect((await ops('admin:role', '--email', email, '--workspace', ws, '--role', 'none')).out.error.code).toBe(
      'NOT_FOUND',
    );
    expect((await ops('admin:role', '--email', email, '--workspace', ws, '--role', 'boss')).out.error.code).toBe(
      'VALIDATION_ERROR',
    );
    const admins = (await ops('admin:list')).out.admins.find((a: { email: string }) => a.email === email);
    expect(admins).toMatchObject({ operator: true, workspaces: [] });
  }, 240_000);

  it('verification:decide decides a verification in review; timers:run sweeps as of --now', async () => {
    const created = (await ops('workspace:create', '--name', 'decide')).out;
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: created.workspace.api_key,
      secret: created.secret_keys[0].secret,
    });
    const id = r.json.data.id;
    const refused = await ops('verification:decide', '--id', id, '--status', 'approved');
    expect([refused.code, refused.out.error.code]).toEqual([1, 'INVALID_STATUS']); // still in created
    expect(
      (await ops('verification:decide', '--id', '00000000-0000-7000-8000-000000000000', '--status', 'approved')).out
        .error.code,
    ).toBe('NOT_FOUND');
    expect((await ops('timers:run', '--now', 'yesterday-ish')).out.error.code).toBe('VALIDATION_ERROR');
    expect((await ops('timers:run', '--now', '2020-01-01T00:00:00Z')).out.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: { now: ['not in the past'] } },
    });
    const swept = await ops('timers:run', '--now', '2045-01-01T00:00:00Z');
    expect(swept.out.expired).toBeGreaterThanOrEqual(1);
    const after = await ops('verification:decide', '--id', id, '--status', 'approved');
    expect(after.out.error).toMatchObject({ code: 'INVALID_STATUS', details: { status: 'expired' } });
  });

  it('usage:rollup totals closed days now; --rebuild totals them again after a hand-made change', async () => {
    const created = (await ops('workspace:create', '--name', 'usage')).out;
    const ws = created.workspace.id as string;
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: created.workspace.api_key,
      secret: created.secret_keys[0].secret,
    });
    const moveTo = async (daysAgo: number) => {
      const at = new Date(Date.now() - daysAgo * 86_400_000);
      await getDb().update(verifications).set({ createdAt: at }).where(eq(verifications.id, r.json.data.id));
      return at.toISOString().slice(0, 10);
    };
    const rolled = async () =>
      (await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws))).map((d) => [d.day, d.created]);
    const first = await moveTo(3);
    expect((await ops('usage:rollup', '--workspace', ws)).out.rollup).toMatchObject({
      workspaces: 1,
      days: 1,
      more: false,
    });
    expect(await rolled()).toEqual([[first, 1]]);
    const moved = await moveTo(4); // an operator's hand-made change to a day already totalled
    expect((await ops('usage:rollup', '--workspace', ws)).out.rollup).toMatchObject({ workspaces: 0 });
    expect(await rolled()).toEqual([[first, 1]]);
    const notReset = (await ops('usage:rollup', '--workspace', ws, '--rebuild', 'false')).out;
    expect([notReset.reset, notReset.rollup.workspaces]).toEqual([undefined, 0]);
    expect((await ops('usage:rollup', '--workspace', ws, '--rebuild')).out).toMatchObject({
      reset: 1,
      rollup: { workspaces: 1, days: 1 },
    });
    expect(await rolled()).toEqual([[moved, 1]]);
    expect((await ops('usage:rollup', '--workspace', 'ws_nope')).out.error.code).toBe('NOT_FOUND');
  });

  it('blocklist:add refuses a verification without a face; blocklist:remove removes an entry, once, audited', async () => {
    const created = (await ops('workspace:create', '--name', 'blocklist')).out;
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: created.workspace.api_key,
      secret: created.secret_keys[0].secret,
    });
    const id = r.json.data.id;
    expect((await ops('blocklist:add', '--verification', id)).out.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: { verification: ['No usable face.'] } },
    });
    expect((await ops('blocklist:add', '--verification', '00000000-0000-7000-8000-000000000000')).out.error.code).toBe(
      'NOT_FOUND',
    );
    // An entry as the admin area or blocklist:add writes it (a face found by the pipeline), removed by the CLI.
    const entry = `blk_${Math.random().toString(36).slice(2)}`;
    await getDb()
      .insert(blocklistEntries)
      .values({
        id: entry,
        workspaceId: created.workspace.id,
        mode: 'test',
        verificationId: id,
        embedding: Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i % 7) / 7),
        createdBy: 'test',
      });
    const removed = await ops('blocklist:remove', '--entry', entry);
    expect(removed).toMatchObject({ code: 0, out: { removed: { id: entry, verification_id: id } } });
    expect(await getDb().select().from(blocklistEntries).where(eq(blocklistEntries.id, entry))).toEqual([]);
    const [logged] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.verificationId, id), eq(auditLog.action, 'blocklist.removed')));
    expect(logged).toMatchObject({ actor: 'operator', data: { blocklist_entry: entry } });
    expect((await ops('blocklist:remove', '--entry', entry)).out.error.code).toBe('NOT_FOUND');
  });

  it('an unknown command is an error object (exit 2: the command line is wrong), a failed command exits 1 (real processes)', async () => {
    const r = await opsProcess('nope');
    expect([r.code, r.out.error.code]).toEqual([2, 'UNKNOWN_COMMAND']);
    const failed = await opsProcess('workspace:settings', '--workspace', 'ws_nope');
    expect([failed.code, failed.out.error.code]).toEqual([1, 'NOT_FOUND']);
  });

  it('a misspelt flag exits 2 and changes nothing; COMMAND --help prints its flags and exits 0 (every command: server/ops-cli.test.ts)', async () => {
    const ws = (await ops('workspace:create', '--name', 'strict')).out.workspace.id;
    const r = await ops('workspace:settings', '--workspace', ws, '--age-treshold', '30');
    expect([r.code, r.out.error.code, r.out.error.details.flag]).toEqual([2, 'UNKNOWN_FLAG', '--age-treshold']);
    expect((await ops('workspace:settings', '--workspace', ws)).out.workspace.age_threshold).toBe(18);
    const { stdout } = await promisify(execFile)(path.resolve('node_modules/.bin/tsx'), [
      'server/ops.ts',
      'workspace:settings',
      '--help',
    ]);
    expect(stdout).toMatch(/^ {2}--age-threshold N +the minimum age that passes/m);
  });
});
