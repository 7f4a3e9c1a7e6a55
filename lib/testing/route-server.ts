/**
 * The app's route handlers served over real HTTP in the test process, behind the same observer as the production
 * server (lib/observability/http.ts, as scripts/serve.ts uses it): a request is matched to its route file by the
 * same table, its handler called with a real Request, its Response written back. For tests that need the HTTP
 * layer's metrics and spans in-process (the SDK's in-memory exporter); the production server itself is tested
 * in scripts/*.server.int.test.ts.
 */
import http from 'node:http';
import type net from 'node:net';
import { Readable } from 'node:stream';
import { httpObserver } from '@/lib/observability/http';
import { routeTable } from '@/lib/observability/routes';
import { root } from './server';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export async function startRouteServer() {
  const table = routeTable(root);
  const observe = httpObserver(root);
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const match = table.match((req.url ?? '/').split('?')[0]);
    const mod = match && match.file.endsWith('route.ts') ? ((await import(match.file)) as Record<string, Handler>) : null;
    const handler = mod?.[req.method ?? 'GET'];
    if (!match || !handler) {
      res.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      ...(hasBody ? { duplex: 'half' } : {}),
    } as RequestInit);
    const answer = await handler(request, { params: Promise.resolve(match.params) });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
  const server = http.createServer((req, res) => void observe(req, res, () => serve(req, res)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
