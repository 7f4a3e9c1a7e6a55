/**
 * The app's route handlers served over real HTTP in the test process, behind the same observer as the production
 * server (lib/core/observability/http.ts, as server/serve.ts uses it): a request is matched to its route file by the
 * same table, its handler called with a real Request, its Response written back. For tests that need the HTTP
 * layer's metrics and spans in-process (the SDK's in-memory exporter); the production server itself is tested
 * in server/*.server.int.test.ts.
 */
import http from 'node:http';
import type net from 'node:net';
import { httpObserver } from '@/lib/core/observability/http';
import { routeTable } from '@/lib/core/observability/routes';
import { toWebRequest, writeWebResponse, type RouteHandler } from '@/lib/api/node-dispatch';
import { root } from './server';

export async function startRouteServer() {
  const table = routeTable(root);
  const observe = httpObserver(root);
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const match = table.match((req.url ?? '/').split('?')[0]);
    const mod =
      match && match.file.endsWith('route.ts') ? ((await import(match.file)) as Record<string, RouteHandler>) : null;
    const handler = mod?.[req.method ?? 'GET'];
    if (!match || !handler) {
      res.writeHead(404).end();
      return;
    }
    const answer = await handler(toWebRequest(req, `http://${req.headers.host}`), {
      params: Promise.resolve(match.params),
    });
    await writeWebResponse(res, answer);
  };
  const server = http.createServer((req, res) => void observe(req, res, () => serve(req, res)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
