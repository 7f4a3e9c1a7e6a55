/**
 * The baseline of bench:api: the same two operations with no framework, on node:http + postgres.js.
 * Per request it does what the service does, with the same queries: the workspace by X-API-Key joined
 * with its keys, decrypt them, check the HMAC in constant time, take the rate limit in Postgres, then the
 * operation (GET: the verification joined with its latest consent record; create: insert the verification
 * and an audit row).
 */
import http from 'node:http';
import { createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DATABASE_POOL_SIZE ?? 10), onnotice: () => {} });
const encKey = Buffer.from(process.env.ENCRYPTION_KEY!, 'base64');
const cache = new Map<string, string>();

function reveal(id: string, boxed: string) {
  let s = cache.get(boxed);
  if (!s) {
    // `v1.<key id>.<base64>` (lib/crypto/secretbox.ts); the baseline knows the one key the benchmark uses.
    const raw = Buffer.from(boxed.startsWith('v1.') ? boxed.slice(boxed.lastIndexOf('.') + 1) : boxed, 'base64');
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
    const rows = await sql`select w.id as ws_id, w.rate_limit_per_minute, k.id, k.mode, k.secret_ciphertext
      from workspaces w left join secret_keys k on k.workspace_id = w.id and k.deleted_at is null
      where w.api_key = ${String(req.headers['x-api-key'])}`;
    if (rows.length === 0) return send(res, 401, { error: { code: 'INVALID_API_KEY' } });
    const ws = { id: rows[0].ws_id, rate_limit_per_minute: rows[0].rate_limit_per_minute };
    const keys = rows.filter((r) => r.id !== null);
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
      const [v] = await sql`select v.*, c.version as consent_version, c.accepted_at as consented_at
        from verifications v left join consent_records c on c.verification_id = v.id
        where v.id = ${id} and v.workspace_id = ${ws.id} and v.mode = ${mode} order by c.accepted_at desc limit 1`;
      if (!v) return send(res, 404, { error: { code: 'NOT_FOUND' } });
      return send(res, 200, { data: { id: v.id, status: v.status, external_id: v.external_id, created_at: v.created_at, consent_version: v.consent_version } });
    }
    const input = JSON.parse(body.toString() || '{}');
    const id = uuidv7();
    const token = randomBytes(32).toString('base64url');
    const [v] = await sql`insert into verifications (id, workspace_id, mode, status, flow, check_method, external_id, capture_token_hash)
      values (${id}, ${ws.id}, ${mode}, 'created', 'age', 'estimation', ${input.external_id ?? null}, ${createHash('sha256').update(token).digest('hex')}) returning *`;
    await sql`insert into audit_log (id, workspace_id, verification_id, actor, action) values (${'aud_' + id}, ${ws.id}, ${id}, 'bench', 'verification.created')`;
    return send(res, 201, { data: { id: v.id, status: v.status, external_id: v.external_id, created_at: v.created_at } });
  } catch (e) {
    send(res, 500, { error: { code: 'INTERNAL_ERROR', message: (e as Error).message } });
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
