/**
 * An integrator's own page asking a digital ID wallet for an age proof (docs/wallet.md "On your own page"): this
 * small server keeps the verification and the secret key; its page (page.html) shows the consent text, then calls
 * the browser's Digital Credentials API with the request the server got from Open Verify, and hands the answer back.
 *
 *   OPEN_VERIFY_BASE_URL=http://localhost:3000 OPEN_VERIFY_API_KEY=pk_… OPEN_VERIFY_SECRET_KEY=sk_live_… \
 *   PORT=8080 npx tsx sdk/examples/wallet/server.ts        # then open http://localhost:8080
 *
 * The page's origin (PAGE_ORIGIN, default http://localhost:PORT) is what the wallet signs over: in production an
 * https origin. A browser offers the API only in a secure context (https, or localhost).
 * (Published: `import { OpenVerify } from '@open-verify/sdk'`.)
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { isApiError, OpenVerify, WalletResponseInvalidError, type WalletProtocol } from '../../src/index.js';

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`Set ${name}.`);
  return v;
}
const port = Number(process.env.PORT ?? 8080);
const pageOrigin = process.env.PAGE_ORIGIN ?? `http://localhost:${port}`;
const ov = new OpenVerify({
  baseUrl: need('OPEN_VERIFY_BASE_URL'),
  apiKey: need('OPEN_VERIFY_API_KEY'),
  secretKey: need('OPEN_VERIFY_SECRET_KEY'),
});

/** One verification per visitor (a cookie names it). A real shop keeps it with the user's session. */
const sessions = new Map<string, { verificationId: string; consentVersion?: { id: number; text_sha256: string } }>();

async function body(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw ? JSON.parse(raw) : {};
}
function reply(res: http.ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(data));
}

const routes: Record<
  string,
  (req: http.IncomingMessage, sid: string | undefined) => Promise<[number, unknown, Record<string, string>?]>
> = {
  // A new verification, and the consent text to show unchanged (fetched and checked against its SHA-256).
  'POST /api/start': async () => {
    const v = await ov.createVerification({ external_id: `shop-user-${randomUUID().slice(0, 8)}` });
    const version = await ov.getActiveConsent();
    const text = await ov.fetchConsentText(version);
    const sid = randomUUID();
    sessions.set(sid, { verificationId: v.id, consentVersion: { id: version.id, text_sha256: version.text_sha256 } });
    return [
      200,
      { consent_text: text, consent_version: version.version },
      { 'set-cookie': `sid=${sid}; HttpOnly; SameSite=Strict; Path=/` },
    ];
  },
  'POST /api/consent': async (_req, sid) => {
    const s = sid ? sessions.get(sid) : undefined;
    if (!s?.consentVersion) return [400, { error: 'start first' }];
    await ov.acceptConsent(s.verificationId, s.consentVersion.id, s.consentVersion.text_sha256);
    return [200, { ok: true }];
  },
  // A request bound to this page's origin; the page passes protocol and data to navigator.credentials.get.
  'POST /api/wallet-request': async (req, sid) => {
    const s = sid ? sessions.get(sid) : undefined;
    if (!s) return [400, { error: 'start first' }];
    const { protocol } = await body(req);
    const r = await ov.createWalletRequest(s.verificationId, {
      protocol: protocol as WalletProtocol,
      origin: pageOrigin,
    });
    return [200, { id: r.id, protocol: r.protocol, data: r.data }];
  },
  // The browser's answer, verified by Open Verify: the decision comes back at once (and by webhook).
  'POST /api/wallet-response': async (req, sid) => {
    const s = sid ? sessions.get(sid) : undefined;
    if (!s) return [400, { error: 'start first' }];
    const b = await body(req);
    try {
      const v = await ov.submitWalletResponse(s.verificationId, {
        request_id: String(b.request_id),
        protocol: String(b.protocol),
        data: b.data,
      });
      return [200, { status: v.status, reason: v.reason, age_source: v.result?.age_source }];
    } catch (e) {
      if (e instanceof WalletResponseInvalidError) return [422, { refused: e.reason }];
      if (isApiError(e)) return [e.status, { error: e.code }];
      throw e;
    }
  },
};

const server = http.createServer(async (req, res) => {
  try {
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(await readFile(new URL('./page.html', import.meta.url)));
    }
    const route = routes[`${req.method} ${req.url}`];
    if (!route) return reply(res, 404, { error: 'not found' });
    const sid = /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
    const [status, data, headers] = await route(req, sid);
    reply(res, status, data, headers);
  } catch (e) {
    console.error(e);
    reply(res, 500, { error: 'server error' });
  }
});
server.listen(port, () =>
  console.log(JSON.stringify({ listening: `http://localhost:${port}`, page_origin: pageOrigin })),
);
