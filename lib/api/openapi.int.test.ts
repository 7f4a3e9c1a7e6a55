/**
 * One route contract: every /v1 route is declared from the registry (lib/api/operations.ts), GET /v1/openapi.json
 * is generated from it, public, and passes an OpenAPI linter (Redocly's recommended rules, offline), and the
 * check every integration test makes on the answers it receives refuses what the contract does not say.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { GET as openApiRoute, POST as openApiPost } from '@/app/v1/openapi.json/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { OPERATIONS, type Operation } from './operations';
import { checkContract, ContractError } from '@/test/helpers/contract';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === 'route.ts' ? [p] : [];
  });
}

describe('the /v1 contract', () => {
  it('GET /v1/openapi.json: public, OpenAPI 3.1, every operation of the registry, the HMAC scheme described', async () => {
    const res = await openApiRoute();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((m) =>
      Object.values(m).map((o) => o.operationId),
    );
    expect(ids.sort()).toEqual([...Object.keys(OPERATIONS), 'getOpenApiDocument'].sort());
    expect(doc.components.securitySchemes.HmacSignature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-HMAC-Signature',
    });
    expect(doc.components.securitySchemes.HmacSignature.description).toContain('METHOD + path[?query] + body');
    expect(doc.paths['/v1/verifications'].post.security).toEqual([{ ApiKey: [], HmacSignature: [] }, { ApiKey: [] }]);
    expect(doc.paths['/v1/verifications/{id}/media'].post.requestBody.content['multipart/form-data']).toBeTruthy();
    expect(doc.webhooks.verificationEvent.post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookEvent',
    });
    // Other methods: 405 in the envelope.
    expect((await openApiPost()).status).toBe(405);
  });

  it('every /v1 route file serves registry operations at their own method and path, and every operation has its route', async () => {
    const served = new Set<string>();
    for (const file of routeFiles(path.join(root, 'app/v1'))) {
      const rel = path.relative(path.join(root, 'app'), path.dirname(file));
      if (rel === 'v1/[...path]' || rel === 'v1/openapi.json') continue;
      const apiPath =
        '/' +
        rel
          .split(path.sep)
          .map((s) => s.replace(/^\[(\w+)\]$/, '{$1}'))
          .join('/');
      const mod = (await import(file)) as Record<string, { operationId?: string }>;
      for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH']) {
        const id = mod[method]?.operationId;
        if (!id) continue;
        const op = (OPERATIONS as Record<string, Operation>)[id];
        expect([file, op?.method, op?.path]).toEqual([file, method, apiPath]);
        served.add(id);
      }
    }
    expect([...served].sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it(
    'passes the OpenAPI linter (Redocly CLI, recommended rules): no error, no warning',
    { timeout: 120_000 },
    async () => {
      const res = await openApiRoute();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-openapi-'));
      const file = path.join(dir, 'openapi.json');
      fs.writeFileSync(file, await res.text());
      const redocly = path.join(root, 'node_modules/.bin/redocly');
      // Offline: no telemetry, no update check.
      const env = {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_UPDATE_NOTIFIER: '1',
      };
      let stdout: string;
      try {
        ({ stdout } = await run(redocly, ['lint', file, '--format=json'], { cwd: dir, env }));
      } catch (e) {
        stdout = (e as { stdout: string }).stdout;
      }
      const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
      expect(report.problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
  );

  it('the check on answers refuses an undocumented field, a wrong type, an undeclared status or error code', () => {
    const v = {
      id: '01900000-0000-7000-8000-000000000000',
      status: 'created',
      mode: 'test',
      flow: 'age',
      check_method: 'estimation',
      external_id: null,
      external_metadata: null,
      url: null,
      return_url: null,
      locale: null,
      created_at: '2026-11-22T10:00:00.000Z',
      started_at: null,
      submitted_at: null,
      completed_at: null,
      updated_at: '2026-11-22T10:00:00.000Z',
      attempts_remaining: 5,
      reason: null,
      result: null,
      duplicate_check: { checked: false, duplicate_count: 0, duplicates: [] },
      consent: null,
      consent_accepted: false,
      consent_version: null,
      consented_at: null,
      data_erased_at: null,
    };
    expect(() => checkContract(getOne, 200, { data: v })).not.toThrow();
    expect(() => checkContract(getOne, 200, { data: { ...v, secret: 1 } })).toThrow(ContractError);
    expect(() => checkContract(getOne, 200, { data: { ...v, attempts_remaining: '5' } })).toThrow(ContractError);
    expect(() => checkContract(getOne, 201, { data: v })).toThrow(ContractError);
    const err = (code: string) => ({ error: { code, message: 'm', request_id: 'req_1' } });
    expect(() => checkContract(getOne, 404, err('NOT_FOUND'))).not.toThrow();
    expect(() => checkContract(getOne, 403, err('CONSENT_REQUIRED'))).toThrow(ContractError);
    expect(() => checkContract(getOne, 400, err('NOT_FOUND'))).toThrow(ContractError);
    expect(() => checkContract(getOne, 404, { message: 'not found' })).toThrow(ContractError);
  });
});
