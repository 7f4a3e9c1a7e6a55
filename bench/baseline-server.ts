/**
 * The baseline of bench:api: the service's own work for the two operations, with no framework. A bare node:http
 * server calls, per request, exactly what the service calls (docs/performance.md "API throughput"):
 *  - the workspace and its keys by X-API-Key, one round trip (`identify`, lib/domain/auth/authenticate.ts), the
 *    decrypted secrets cached by ciphertext as the service caches them (lib/domain/auth/keys.ts);
 *  - the HMAC over the canonical request under each key in constant time (`verifySignature`, lib/domain/auth), with the
 *    key's last use noted as the service notes it (at most once a minute);
 *  - the workspace's rate limit, taken in Postgres (`takeRateLimit`, lib/domain/ratelimit);
 *  - GET: the verification with its latest consent record (`getVerification`), serialised as the API does;
 *    create: the body parsed and validated by the same schema, then `createVerification` (the verification, its
 *    audit row and its metric, in one transaction, with the same prepared statements);
 *  - the answer as the same JSON with the same rate-limit headers.
 * Same pool (lib/db/client.ts, DATABASE_POOL_SIZE), same SQL. What it leaves out is what the ratio measures: the
 * framework between the socket and that work (routing, the web Request/Response, the route wrapper).
 */
import http from 'node:http';
import { getDb } from '../lib/db/client';
import { identify, verifySignature, actorOf, REQUEST_TIMESTAMP_HEADER } from '../lib/domain/auth/authenticate';
import { canonicalJson } from '../lib/domain/auth/canonical';
import { takeRateLimit } from '../lib/domain/ratelimit';
import { getVerification } from '../lib/domain/verifications/get';
import { createVerification, createVerificationBody } from '../lib/domain/verifications/create';
import { serializeCreated, serializeVerification } from '../lib/domain/verifications/serialize';
import { parseJsonBody } from '../lib/api/body';
import { parseOrThrow } from '../lib/core/errors';
import { newId } from '../lib/core/ids';
import { stringifyJson } from '../lib/core/json-raw';

const db = getDb();

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(stringifyJson(body));
}

const header = (req: http.IncomingMessage, name: string) => {
  const v = req.headers[name];
  return v === undefined ? null : String(v);
};

const server = http.createServer(async (req, res) => {
  const requestId = newId('req');
  try {
    const who = await identify(db, {
      apiKey: header(req, 'x-api-key'),
      signature: header(req, 'x-hmac-signature'),
      timestamp: header(req, REQUEST_TIMESTAMP_HEADER),
    });
    if (!('pending' in who)) return send(res, 401, { error: { code: 'INVALID_SIGNATURE', request_id: requestId } });
    const limit = await takeRateLimit(
      db,
      `ws:${who.pending.workspace.id}`,
      who.pending.workspace.rateLimitPerMinute,
      Date.now(),
    );
    const headers = {
      'x-request-id': requestId,
      'x-ratelimit-limit': String(limit.limit),
      'x-ratelimit-remaining': String(limit.remaining),
      'x-ratelimit-reset': String(limit.resetAt),
    };
    if (!limit.allowed) return send(res, 429, { error: { code: 'RATE_LIMIT', request_id: requestId } }, headers);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = new Uint8Array(Buffer.concat(chunks));
    const auth = verifySignature(who.pending, canonicalJson(req.method!, req.url!, rawBody));
    if (req.method === 'GET') {
      const id = req.url!.split('/').pop()!;
      const { verification, consent } = await getVerification(db, {
        workspaceId: auth.workspace.id,
        mode: auth.mode,
        id,
      });
      return send(res, 200, { data: serializeVerification(verification, consent) }, headers);
    }
    const fields = parseOrThrow(createVerificationBody, rawBody.byteLength ? parseJsonBody(rawBody) : {});
    const { row } = await createVerification(db, {
      workspace: auth.workspace,
      keyMode: auth.mode,
      fields,
      externalMetadataRaw: undefined,
      idempotency: null,
      actor: actorOf(auth),
      requestId,
    });
    return send(res, 201, { data: serializeCreated(row) }, headers);
  } catch (e) {
    send(res, 500, { error: { code: 'INTERNAL_ERROR', message: (e as Error).message, request_id: requestId } });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
