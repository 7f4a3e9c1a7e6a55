/**
 * Database spans (OpenTelemetry database semantic conventions): postgres.js has no instrumentation of its own, so
 * the database client (lib/db/client.ts) hands every statement drizzle sends through here. Inside a trace, a statement
 * gets a CLIENT span from when it is run (awaited) to its answer: `db.system.name`, `db.query.text` (the statement
 * as drizzle wrote it: parameters are `$1`, `$2`, never their values), `db.operation.name`, the table where
 * the statement names one, the server and the database. Outside a trace (a runner's poll finding nothing) no
 * span is made; without tracing, the statement is returned untouched.
 */
import { context, type Span } from '@opentelemetry/api';
import { insideTrace, SpanKind, SpanStatusCode, tracer } from './tracing';

export type DbServer = { address: string; port: number; database: string };

const MAX_TEXT = 2000;
const OPERATION = /^\s*(?:\(\s*)?([a-z]+)/i;
const TABLE = /\b(?:from|into|update)\s+"?([a-z_][a-z0-9_]*)"?/i;

/** The parts of a span a statement's text gives: its operation and, when it names one, its table. */
export function describeStatement(text: string): { operation: string; table: string | null } {
  const operation = (OPERATION.exec(text)?.[1] ?? 'QUERY').toUpperCase();
  const table = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].includes(operation) ? (TABLE.exec(text)?.[1] ?? null) : null;
  return { operation, table };
}

type Thenable = { then: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => unknown };

/**
 * `query` (a postgres.js query: lazy, sent when first awaited) with a span around its execution, when inside a
 * trace. The query object itself is returned, so `.values()` and the rest of its API are unchanged.
 */
export function traceQuery<Q>(query: Q, text: string, server: DbServer): Q {
  if (!insideTrace()) return query;
  const parent = context.active();
  const q = query as unknown as Thenable;
  const then = q.then;
  let span: Span | undefined;
  q.then = function (ok, fail) {
    if (!span) {
      const { operation, table } = describeStatement(text);
      const s = tracer().startSpan(
        table ? `${operation} ${table}` : operation,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': 'postgresql',
            'db.operation.name': operation,
            ...(table ? { 'db.collection.name': table } : {}),
            'db.query.text': text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text,
            'db.namespace': server.database,
            'server.address': server.address,
            'server.port': server.port,
          },
        },
        parent,
      );
      span = s;
      then.call(
        q,
        () => s.end(),
        (e: unknown) => {
          const code = (e as { code?: unknown })?.code;
          if (typeof code === 'string') s.setAttribute('db.response.status_code', code);
          s.setAttribute('error.type', typeof code === 'string' ? code : e instanceof Error ? e.name : 'Error');
          // The code only: a server's message can quote a value (`invalid input syntax for type uuid: "…"`).
          s.setStatus({ code: SpanStatusCode.ERROR });
          s.end();
        },
      );
    }
    return then.call(q, ok, fail);
  };
  return query;
}

/** The server a postgres:// URL names, for spans. */
export function dbServer(url: string): DbServer {
  try {
    const u = new URL(url);
    return {
      address: u.hostname,
      port: Number(u.port || 5432),
      database: decodeURIComponent(u.pathname.slice(1)) || 'postgres',
    };
  } catch {
    return { address: 'unknown', port: 5432, database: 'postgres' };
  }
}
