/**
 * Serves one PGlite database over the Postgres wire protocol on a loopback port, so the app speaks
 * to it with postgres.js exactly as it would to a real server. Every connection's messages are forwarded in whole
 * batches ending at Sync or a simple Query, and the one backend stays reserved for a connection inside a
 * transaction or an unfinished extended-protocol sequence. It authenticates with SCRAM-SHA-256 against one user and
 * a password made at start, which only the URL carries. Why not PGLiteSocketServer, and the details:
 * docs/architecture.md "Notes behind the code".
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { writeArchive } from './archive';
import { OwnerOnlyNodeFS } from './owner-only-fs';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

type Auth =
  | { step: 'startup' }
  | { step: 'sasl-initial'; startup: Buffer }
  | { step: 'sasl-final'; startup: Buffer; clientFirstBare: string; serverFirst: string; nonce: string; gs2: string }
  | { step: 'ok' };
type Conn = { id: number; socket: net.Socket; buffer: Buffer; closed: boolean; auth: Auth };
type Chunk = { bytes: Buffer; endsWith: string };
type Batch = Chunk & { conn: Conn; done: () => void };

export type EmbeddedPostgres = {
  url: string;
  port: number;
  db: PGlite;
  stop: () => Promise<void>;
  /**
   * A consistent copy of the whole database, written to `out` as a gzipped tar of its data directory: its files
   * copied between transactions, after a CHECKPOINT, while the engine answers nothing else (beside the data
   * directory: free disk of its size is needed meanwhile), then compressed while it serves. Its size in bytes.
   */
  backup: (out: string) => Promise<number>;
  /** Client connections open now (the soak checks none leak). */
  connections: () => number;
  /**
   * Runs `work` on the engine between transactions, while every connection's next batch waits (what a backup and the
   * maintenance do: ./maintenance.ts). Its result, once it has run.
   */
  exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  /** How long the engine has had nothing to do, in ms (0 while a batch runs, waits, or a transaction is open). */
  idleMs: () => number;
};

const SCRAM_ITERATIONS = 4096;

/** One message of the protocol after startup: type byte, length, payload. */
function message(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + payload.length, 1);
  return Buffer.concat([head, payload]);
}
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const authRequest = (code: number, data = Buffer.alloc(0)) => message('R', Buffer.concat([int32(code), data]));

/** ErrorResponse with the SQLSTATE a client expects for a failed login. */
function fatal(code: string, text: string): Buffer {
  const fields = [`SFATAL`, `VFATAL`, `C${code}`, `M${text}`].map((f) => Buffer.from(f + '\0', 'utf8'));
  return message('E', Buffer.concat([...fields, Buffer.from([0])]));
}

/** The StartupMessage's key/value parameters. */
function startupParams(msg: Buffer): Map<string, string> {
  const parts = msg.subarray(8).toString('utf8').split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) out.set(parts[i], parts[i + 1]);
  return out;
}

/** SCRAM-SHA-256 keys of one password and salt (what PostgreSQL stores for a role). */
function scramKeys(password: string, salt: Buffer) {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return {
    salt,
    storedKey: createHash('sha256').update(clientKey).digest(),
    serverKey: createHmac('sha256', salted).update('Server Key').digest(),
  };
}

/** Splits complete wire messages off the front of an authenticated connection's buffer: the batches ready to forward. */
function takeBatches(conn: Conn): Chunk[] {
  const out: Chunk[] = [];
  let start = 0;
  let pos = 0;
  const b = conn.buffer;
  while (true) {
    if (b.length - pos < 5) break;
    const type = String.fromCharCode(b[pos]);
    const len = 1 + b.readInt32BE(pos + 1);
    if (len < 5) throw new Error('bad message length');
    if (b.length - pos < len) break;
    pos += len;
    // A batch ends where the backend answers ReadyForQuery: Sync, simple Query; Terminate closes.
    if (type === 'S' || type === 'Q' || type === 'X' || type === 'H') {
      out.push({ bytes: b.subarray(start, pos), endsWith: type });
      start = pos;
    }
  }
  conn.buffer = b.subarray(start);
  return out;
}

export async function startEmbeddedPostgres(opts: {
  dataDir?: string;
  port?: number;
  host?: string;
  debug?: boolean;
  /** The one user allowed in (default `postgres`) and its password (default: 32 random bytes, base64url). */
  user?: string;
  password?: string;
}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({
    ...(opts.dataDir ? { fs: new OwnerOnlyNodeFS(opts.dataDir) } : {}),
    extensions: { vector },
  });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector;');
  const user = opts.user ?? 'postgres';
  const password = opts.password ?? randomBytes(32).toString('base64url');
  const keys = scramKeys(password, randomBytes(16));

  const queue: Batch[] = [];
  let owner: Conn | null = null; // connection holding an open transaction
  let running = false;
  const conns = new Set<Conn>();
  /** Work on the engine itself (a backup, the maintenance), run when no connection holds a transaction. */
  const maintenance: (() => Promise<void>)[] = [];
  /** When the engine last finished a batch or a piece of work (for idleMs). */
  let lastActive = Date.now();

  async function pump() {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0 || (maintenance.length > 0 && !owner)) {
        if (!owner && maintenance.length > 0) {
          await maintenance.shift()!();
          continue;
        }
        const idx = owner ? queue.findIndex((q) => q.conn === owner) : 0;
        if (idx === -1) break; // wait for the transaction owner's next batch
        const [batch] = queue.splice(idx, 1);
        const { conn } = batch;
        if (conn.closed) {
          batch.done();
          continue;
        }
        await db.runExclusive(() =>
          db.execProtocolRawStream(new Uint8Array(batch.bytes), {
            onRawData: (chunk) => {
              if (!conn.closed && chunk.length > 0) conn.socket.write(Buffer.from(chunk));
            },
          }),
        );
        // Flush ('H') ends a batch the client waits on, but not the sequence: the unnamed statement
        // and portal it created must not be replaced by another connection before its Sync.
        owner = db.isInTransaction() || batch.endsWith === 'H' ? conn : null;
        batch.done();
      }
    } finally {
      running = false;
      lastActive = Date.now();
    }
  }

  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      maintenance.push(() => work().then(resolve, reject));
      void pump();
    });
  }

  async function release(conn: Conn) {
    conn.closed = true;
    conns.delete(conn);
    for (let i = queue.length - 1; i >= 0; i--) if (queue[i].conn === conn) queue.splice(i, 1)[0].done();
    if (owner === conn) {
      // Roll back whatever the vanished client left open before anyone else may run (the backend
      // stays reserved until then). exec takes PGlite's query lock itself: not inside runExclusive.
      await db.exec('ROLLBACK').catch(() => {});
      owner = null;
    }
    void pump();
  }

  const refuse = (conn: Conn, code: string, text: string) => {
    conn.socket.end(fatal(code, text));
    conn.buffer = Buffer.alloc(0);
    return [];
  };

  /**
   * The login, before anything reaches the engine: SSLRequest → 'N'; StartupMessage (the user must be ours)
   * → AuthenticationSASL; SASLInitialResponse → server-first; SASLResponse → the proof checked, then
   * AuthenticationSASLFinal and the held StartupMessage forwarded to PGlite (which answers AuthenticationOk
   * and the rest of the startup). Returns the batches to forward (the startup, once authenticated).
   */
  function authenticate(conn: Conn): Chunk[] {
    for (;;) {
      const a = conn.auth;
      const b = conn.buffer;
      if (a.step === 'ok') return [];
      if (a.step === 'startup') {
        if (b.length < 8) return [];
        const len = b.readInt32BE(0);
        if (len < 8 || len > 10_000) throw new Error('bad startup length');
        if (b.length < len) return [];
        const code = b.readInt32BE(4);
        const msg = b.subarray(0, len);
        conn.buffer = b.subarray(len);
        if (code === SSL_REQUEST) {
          conn.socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) continue;
        if (code !== PROTOCOL_3) throw new Error(`unsupported protocol ${code}`);
        if (startupParams(msg).get('user') !== user)
          return refuse(
            conn,
            '28P01',
            `password authentication failed for user "${startupParams(msg).get('user') ?? ''}"`,
          );
        conn.auth = { step: 'sasl-initial', startup: Buffer.from(msg) };
        conn.socket.write(authRequest(10, Buffer.from('SCRAM-SHA-256\0\0', 'latin1')));
        continue;
      }
      // SASL messages: 'p', length, payload.
      if (b.length < 5) return [];
      const len = 1 + b.readInt32BE(1);
      if (b[0] !== 0x70 || len < 5 || len > 10_000) return refuse(conn, '08P01', 'expected a SASL response');
      if (b.length < len) return [];
      const payload = b.subarray(5, len);
      conn.buffer = b.subarray(len);
      if (a.step === 'sasl-initial') {
        const nul = payload.indexOf(0);
        if (nul < 0 || payload.subarray(0, nul).toString() !== 'SCRAM-SHA-256' || payload.length < nul + 5) {
          return refuse(conn, '28000', 'SCRAM-SHA-256 is the only authentication offered');
        }
        const clientFirst = payload.subarray(nul + 5, nul + 5 + payload.readInt32BE(nul + 1)).toString('utf8');
        const m = /^([ny]),,(n=[^,]*,r=([!-+\--~]+))$/.exec(clientFirst);
        if (!m) return refuse(conn, '28000', 'malformed SCRAM client-first message');
        const nonce = m[3] + randomBytes(18).toString('base64');
        const serverFirst = `r=${nonce},s=${keys.salt.toString('base64')},i=${SCRAM_ITERATIONS}`;
        conn.auth = {
          step: 'sasl-final',
          startup: a.startup,
          clientFirstBare: m[2],
          serverFirst,
          nonce,
          gs2: `${m[1]},,`,
        };
        conn.socket.write(authRequest(11, Buffer.from(serverFirst)));
        continue;
      }
      const clientFinal = payload.toString('utf8');
      const m = /^(c=([^,]*),r=([^,]*)),p=([A-Za-z0-9+/=]+)$/.exec(clientFinal);
      const proof = m ? Buffer.from(m[4], 'base64') : Buffer.alloc(0);
      const authMessage = `${a.clientFirstBare},${a.serverFirst},${m?.[1] ?? ''}`;
      const signature = createHmac('sha256', keys.storedKey).update(authMessage).digest();
      const ok =
        m !== null &&
        m[3] === a.nonce &&
        Buffer.from(m[2], 'base64').toString('latin1') === a.gs2 &&
        proof.length === 32 &&
        timingSafeEqual(
          createHash('sha256')
            .update(Buffer.from(proof.map((x, i) => x ^ signature[i])))
            .digest(),
          keys.storedKey,
        );
      if (!ok) return refuse(conn, '28P01', `password authentication failed for user "${user}"`);
      const serverSignature = createHmac('sha256', keys.serverKey).update(authMessage).digest('base64');
      conn.socket.write(authRequest(12, Buffer.from(`v=${serverSignature}`)));
      conn.auth = { step: 'ok' };
      // The engine sees the startup only now, and answers AuthenticationOk, parameters and ReadyForQuery.
      return [{ bytes: a.startup, endsWith: 'startup' }, ...takeBatches(conn)];
    }
  }

  let nextId = 1;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const conn: Conn = { id: nextId++, socket, buffer: Buffer.alloc(0), closed: false, auth: { step: 'startup' } };
    conns.add(conn);
    let chain = Promise.resolve();
    socket.on('data', (data) => {
      conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, data]) : data;
      let batches: Chunk[];
      try {
        batches = conn.auth.step === 'ok' ? takeBatches(conn) : authenticate(conn);
      } catch {
        socket.destroy();
        return;
      }
      for (const chunk of batches) {
        // Batches of one connection stay in order; each waits for the previous one to run.
        chain = chain.then(
          () =>
            new Promise<void>((resolve) => {
              if (conn.closed) return resolve();
              queue.push({ ...chunk, conn, done: resolve });
              void pump();
            }),
        );
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => void release(conn));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';

  return {
    db,
    port,
    url: `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/postgres`,
    connections: () => conns.size,
    exclusive,
    idleMs: () => (running || queue.length > 0 || owner ? 0 : Date.now() - lastActive),
    backup: (out) =>
      new Promise<number>((resolve, reject) => {
        maintenance.push(async () => {
          const dataDir = opts.dataDir;
          if (!dataDir) return reject(new Error('An engine in memory has no data directory to back up.'));
          // The engine writes its files straight to disk (NODEFS) and runs nothing in the background: after the
          // checkpoint, and with every connection's next batch held until this returns, the files are the
          // database, whole. They are copied beside it (a plain file copy, at the disk's speed), and compressed
          // once the engine serves again: it waits for the copy, not for the compression.
          const snapshot = fs.mkdtempSync(path.join(path.dirname(dataDir), '.backup-'));
          try {
            await db.exec('CHECKPOINT');
            await fs.promises.cp(dataDir, snapshot, { recursive: true });
          } catch (e) {
            fs.rmSync(snapshot, { recursive: true, force: true });
            return reject(e);
          }
          writeArchive(snapshot, out)
            .then(resolve, reject)
            .finally(() => fs.rmSync(snapshot, { recursive: true, force: true }));
        });
        void pump();
      }),
    async stop() {
      for (const c of conns) c.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
