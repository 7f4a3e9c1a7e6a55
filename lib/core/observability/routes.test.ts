/** Route templates for metrics labels and span names, from the project's own app router. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeTable, scanRoutes } from './routes';

const root = path.resolve(import.meta.dirname, '../../..');
const table = routeTable(root);

describe('route templates', () => {
  it('every page and route file of app/ is a template, route groups dropped, and each matches itself', () => {
    const routes = scanRoutes(path.join(root, 'app'));
    const templates = routes.map((r) => r.template);
    expect(templates).toEqual(
      expect.arrayContaining([
        '/',
        '/v1/verifications',
        '/v1/verifications/{id}',
        '/v1/verifications/{id}/submit',
        '/v1/{...path}',
        '/verify/{token}',
        '/admin',
        '/admin/verifications/{id}',
        '/admin/workspaces/{id}/usage/csv',
        '/metrics',
        '/healthz',
      ]),
    );
    expect(templates.some((t) => t.includes('(') || t.includes('['))).toBe(false);
    for (const r of routes) {
      const concrete = r.template.replace(/\{\.\.\.\w+\}/g, 'a/b').replace(/\{\w+\}/g, 'x1');
      expect(table.label(concrete), concrete).toBe(r.template);
    }
  });

  it('a concrete path gets its template, never itself: static segments before dynamic ones before a catch-all', () => {
    expect(table.label('/v1/verifications/0193a0b2-1111-7000-8000-000000000000')).toBe('/v1/verifications/{id}');
    expect(table.label('/v1/verifications/0193a0b2-1111-7000-8000-000000000000/media')).toBe(
      '/v1/verifications/{id}/media',
    );
    expect(table.label('/v1/consent')).toBe('/v1/consent');
    expect(table.label('/v1/openapi.json')).toBe('/v1/openapi.json');
    expect(table.label('/v1/no/such/thing')).toBe('/v1/{...path}');
    expect(table.label('/verify/AbCdEfGhIjKlMnOpQrStUv')).toBe('/verify/{token}');
    expect(table.label('/api/capture/AbCdEfGhIjKlMnOpQrStUv/liveness/ch_1')).toBe(
      '/api/capture/{token}/liveness/{challenge}',
    );
    expect(table.label('/api/auth/callback/oidc')).toBe('/api/auth/{...nextauth}');
    expect(table.match('/verify/secret-token')?.params).toEqual({ token: 'secret-token' });
  });

  it("Next.js's assets and public files by their folder; anything else is one label, whatever the path", () => {
    expect(table.label('/_next/static/chunks/abc123.js')).toBe('/_next/{...path}');
    expect(table.label('/human/models/blazeface.json')).toBe('/human/{...path}');
    expect(table.label('/no-such-page')).toBe('(unmatched)');
    expect(table.label('/admin-1234/x')).toBe('(unmatched)');
    expect(table.label('/%ff')).toBe('(unmatched)');
  });
});
