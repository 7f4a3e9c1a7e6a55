/**
 * Serves one PGlite database over the Postgres wire protocol on a loopback port, so the app speaks
 * to it with postgres.js exactly as it would to a real server.
 *
 * Why not PGLiteSocketServer's multiplexer: it forwards one protocol message at a time, so with two
 * client connections the Parse/Bind/Execute messages of different queries interleave on PGlite's single
 * backend (the unnamed portal of one is executed for the other). Here every connection's messages are
 * forwarded in whole batches ending at Sync or a simple Query, and the backend stays reserved for one
 * connection while it holds an open transaction or is inside an extended-protocol sequence it flushed
 * half-way (postgres.js sends Parse/Describe/Flush, waits, then Bind/Execute/Sync).
 */
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

type Conn = { id: number; socket: net.Socket; buffer: Buffer; started: boolean; closed: boolean };
type Chunk = { bytes: Buffer; endsWith: string };
type Batch = Chunk & { conn: Conn; done: () => void };

export type EmbeddedPostgres = { url: string; port: number; db: PGlite; stop: () => Promise<void> };

/** Splits complete wire messages off the front of a buffer. Returns the batches ready to forward. */
function takeBatches(conn: Conn): Chunk[] {
  const out: Chunk[] = [];
  let start = 0;
  let pos = 0;
  const b = conn.buffer;
  while (true) {
    if (!conn.started) {
      if (b.length - pos < 8) break;
      const len = b.readInt32BE(pos);
      if (b.length - pos < len) break;
      const code = b.readInt32BE(pos + 4);
      if (code === SSL_REQUEST) {
        conn.socket.write('N');
        pos += len;
        start = pos;
        continue;
      }
      if (code === CANCEL_REQUEST) {
        pos += len;
        start = pos;
        continue;
      }
      if (code !== PROTOCOL_3) throw new Error(`unsupported protocol ${code}`);
      pos += len;
      out.push({ bytes: b.subarray(start, pos), endsWith: 'startup' });
      start = pos;
      conn.started = true;
      continue;
    }
    if (b.length - pos < 5) break;
    const type = String.fromCharCode(b[pos]);
    const len = 1 + b.readInt32BE(pos + 1);
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
}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ dataDir: opts.dataDir, extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector;');

  const queue: Batch[] = [];
  let owner: Conn | null = null; // connection holding an open transaction
  let running = false;
  const conns = new Set<Conn>();

  async function pump() {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) {
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
    }
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

  let nextId = 1;
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const conn: Conn = { id: nextId++, socket, buffer: Buffer.alloc(0), started: false, closed: false };
    conns.add(conn);
    let chain = Promise.resolve();
    socket.on('data', (data) => {
      conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, data]) : data;
      let batches: Chunk[];
      try {
        batches = takeBatches(conn);
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
    url: `postgres://postgres:postgres@${host}:${port}/postgres`,
    async stop() {
      for (const c of conns) c.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
