/**
 * The baseline of bench:api: the same two operations with no framework, on node:http + postgres.js.
 * Per request it does what the service does: find the workspace by X-API-Key, read its keys, decrypt
 * them, check the HMAC in constant time, take the rate limit in Postgres, then run the operation's
 * query (GET: the verification and its consent record; create: insert the verification and an audit row).
 */
import http from 'node:http';
import { createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DATABASE_POOL_SIZE ?? 10), onnotice: () => {} });
const encKey = Buffer.from(process.env.ENCRYPTION_KEY!, 'base64');
const cache = new Map<string, string>();

function reveal(id: string, boxed: string) {
  let s = cache.get(boxed);
  if (!s) {
    const raw = Buffer.from(boxed, 'base64');
    const d = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, 12));
    d.setAAD(Buffer.from(`secret_key:${id}`));
    d.setAuthTag(raw.subarray(12, 28));
    s = Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString();
    cache.set(boxed, s);
  }
  return s;
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function uuidv7() {
  const b = randomBytes(16);
  b.writeUIntBE(Date.now(), 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const server = http.createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  try {
    const [ws] = await sql`select id, rate_limit_per_minute from workspaces where api_key = ${String(req.headers['x-api-key'])}`;
    if (!ws) return send(res, 401, { error: { code: 'INVALID_API_KEY' } });
    const keys = await sql`select id, mode, secret_ciphertext from secret_keys where workspace_id = ${ws.id} and deleted_at is null`;
    const sig = Buffer.from(String(req.headers['x-hmac-signature']), 'hex');
    let mode: string | undefined;
    for (const k of keys) {
      const mac = createHmac('sha256', reveal(k.id, k.secret_ciphertext)).update(req.method! + req.url!).update(body).digest();
      if (mac.length === sig.length && timingSafeEqual(mac, sig)) mode = k.mode;
    }
    if (!mode) return send(res, 401, { error: { code: 'INVALID_SIGNATURE' } });
    const [rl] = await sql`select * from rate_limit_take(${'ws:' + ws.id}, ${ws.rate_limit_per_minute}::int, ${Date.now()}::bigint)`;
    if (!rl.allowed) return send(res, 429, { error: { code: 'RATE_LIMIT' } });
    if (req.method === 'GET') {
      const id = req.url!.split('/').pop()!;
      const [v] = await sql`select * from verifications where id = ${id} and workspace_id = ${ws.id} and mode = ${mode}`;
      if (!v) return send(res, 404, { error: { code: 'NOT_FOUND' } });
      const [c] = await sql`select * from consent_records where verification_id = ${id} order by accepted_at desc limit 1`;
      return send(res, 200, { data: { id: v.id, status: v.status, external_id: v.external_id, created_at: v.created_at, consent: c ?? null } });
    }
    const input = JSON.parse(body.toString() || '{}');
    const id = uuidv7();
    const [v] = await sql`insert into verifications (id, workspace_id, mode, status, flow, check_method, external_id, capture_token)
      values (${id}, ${ws.id}, ${mode}, 'created', 'age', 'estimation', ${input.external_id ?? null}, ${randomBytes(32).toString('base64url')}) returning *`;
    await sql`insert into audit_log (id, workspace_id, verification_id, actor, action) values (${'aud_' + id}, ${ws.id}, ${id}, 'bench', 'verification.created')`;
    return send(res, 201, { data: { id: v.id, status: v.status, external_id: v.external_id, created_at: v.created_at } });
  } catch (e) {
    send(res, 500, { error: { code: 'INTERNAL_ERROR', message: (e as Error).message } });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
