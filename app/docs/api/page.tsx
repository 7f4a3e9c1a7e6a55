/**
 * The API reference, rendered on the server from the same OpenAPI document GET /v1/openapi.json serves
 * (lib/api/openapi.ts, generated from the route registry): no CDN, no client script.
 */
import type { Metadata } from 'next';
import { env } from '@/lib/core/env';
import { openApiDocument } from '@/lib/api/openapi';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'API reference · Open Verify' };

type Json = Record<string, unknown>;
type Schema = Json & { $ref?: string; type?: string | string[]; properties?: Record<string, Json>; required?: string[]; items?: Json; anyOf?: Json[]; oneOf?: Json[]; allOf?: Json[]; enum?: unknown[]; const?: unknown; description?: string };

const refName = (ref: string) => ref.split('/').pop()!;
const anchor = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

function typeOf(s: Schema | undefined): React.ReactNode {
  if (!s) return 'any';
  if (s.$ref) return <a className="underline" href={`#schema-${anchor(refName(s.$ref))}`}>{refName(s.$ref)}</a>;
  if (s.const !== undefined) return <code>{JSON.stringify(s.const)}</code>;
  if (s.enum) return s.enum.map((v, i) => <span key={i}>{i > 0 && ' | '}<code>{JSON.stringify(v)}</code></span>);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a, i) => <span key={i}>{i > 0 && ' or '}{typeOf(a as Schema)}</span>);
  if (s.allOf) return s.allOf.map((a, i) => <span key={i}>{i > 0 && ' and '}{typeOf(a as Schema)}</span>);
  if (s.type === 'array') return <>array of {typeOf(s.items as Schema)}</>;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  const fmt = s.format ? ` (${String(s.format)})` : '';
  return `${s.type ?? 'any'}${fmt}`;
}

/** Inline code spans of the document's Markdown (`…`), the only markup its texts use. */
function Text({ text }: { text?: unknown }) {
  if (typeof text !== 'string') return null;
  return (
    <>
      {text.split(/(`[^`]+`)/).map((part, i) => (part.startsWith('`') && part.endsWith('`') ? <code key={i} className="rounded bg-neutral-100 px-1 font-mono text-sm">{part.slice(1, -1)}</code> : part))}
    </>
  );
}

function Fields({ schema }: { schema: Schema }) {
  const props = schema.properties;
  if (!props) return <p className="text-sm">{typeOf(schema)}</p>;
  return (
    <table className="mt-2 w-full border-collapse text-left text-sm">
      <thead>
        <tr className="border-b">
          <th className="py-1 pr-3">Field</th>
          <th className="py-1 pr-3">Type</th>
          <th className="py-1">Notes</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(props).map(([name, p]) => (
          <tr key={name} className="border-b align-top">
            <td className="py-1 pr-3 font-mono">
              {name}
              {schema.required?.includes(name) ? '' : '?'}
            </td>
            <td className="py-1 pr-3">{typeOf(p as Schema)}</td>
            <td className="py-1">
              <Text text={(p as Schema).description} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const METHOD_COLOUR: Record<string, string> = { get: 'bg-sky-100 text-sky-900', post: 'bg-emerald-100 text-emerald-900', delete: 'bg-rose-100 text-rose-900' };

export default function ApiReference() {
  const doc = openApiDocument(env().BASE_URL) as Json & { info: Json; paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Json> } };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  return (
    <main className="mx-auto max-w-4xl px-6 py-12">
      <h1 className="text-3xl font-semibold">{String(doc.info.title)}</h1>
      <p className="mt-3 text-neutral-700">
        <Text text={doc.info.description} />
      </p>
      <p className="mt-2 text-sm text-neutral-600">
        Machine-readable: <a className="underline" href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI {String(doc.openapi)}, generated from the code&apos;s route registry).
      </p>

      <nav aria-label="Operations" className="mt-8">
        <h2 className="text-xl font-semibold">Operations</h2>
        <ul className="mt-2 space-y-1">
          {ops.map(({ path, method, op }) => (
            <li key={`${method} ${path}`}>
              <a className="underline" href={`#${op.operationId}`}>
                <span className="font-mono">{method.toUpperCase()} {path}</span>
              </a>{' '}
              · {String(op.summary)}
            </li>
          ))}
        </ul>
      </nav>

      <section className="mt-10">
        <h2 className="text-xl font-semibold">Authentication</h2>
        {Object.entries(doc.components.securitySchemes).map(([name, s]) => (
          <div key={name} className="mt-4">
            <h3 className="font-mono font-semibold">{String(s.name)}</h3>
            <div className="mt-1 whitespace-pre-line text-neutral-800">
              <Text text={s.description} />
            </div>
          </div>
        ))}
      </section>

      {ops.map(({ path, method, op }) => {
        const params = (op.parameters as Json[] | undefined) ?? [];
        const body = (op.requestBody as { content: Record<string, { schema: Schema }> } | undefined)?.content;
        const responses = op.responses as Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
        return (
          <section key={`${method} ${path}`} id={String(op.operationId)} className="mt-12 border-t pt-6">
            <h2 className="text-xl font-semibold">
              <span className={`mr-2 rounded px-2 py-0.5 font-mono text-sm ${METHOD_COLOUR[method] ?? ''}`}>{method.toUpperCase()}</span>
              <span className="font-mono">{path}</span>
            </h2>
            <p className="mt-1 font-medium">{String(op.summary)}</p>
            <p className="mt-2 text-neutral-800">
              <Text text={op.description} />
            </p>
            <p className="mt-1 text-sm text-neutral-600">
              Operation id <code className="font-mono">{String(op.operationId)}</code>
              {(op.security as Json[]).length === 0 ? ' · no authentication' : ' · X-API-Key and X-HMAC-Signature'}
            </p>
            {params.length > 0 && (
              <>
                <h3 className="mt-4 font-semibold">Parameters</h3>
                <table className="mt-2 w-full border-collapse text-left text-sm">
                  <tbody>
                    {params.map((p) => (
                      <tr key={`${p.in}-${p.name}`} className="border-b align-top">
                        <td className="py-1 pr-3 font-mono">
                          {String(p.name)}
                          {p.required ? '' : '?'}
                        </td>
                        <td className="py-1 pr-3">{String(p.in)}</td>
                        <td className="py-1 pr-3">{typeOf(p.schema as Schema)}</td>
                        <td className="py-1">
                          <Text text={p.description} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
            {body &&
              Object.entries(body).map(([type, c]) => (
                <div key={type}>
                  <h3 className="mt-4 font-semibold">
                    Request body <span className="font-mono text-sm font-normal">{type}</span>
                  </h3>
                  <Fields schema={c.schema} />
                </div>
              ))}
            <h3 className="mt-4 font-semibold">Responses</h3>
            <ul className="mt-1 space-y-1 text-sm">
              {Object.entries(responses).map(([status, r]) => (
                <li key={status}>
                  <span className="font-mono font-semibold">{status}</span> <Text text={r.description} />
                  {status.startsWith('2') && r.content?.['application/json']?.schema.properties?.data && <> · data: {typeOf(r.content['application/json'].schema.properties.data as Schema)}</>}
                </li>
              ))}
            </ul>
          </section>
        );
      })}

      <section className="mt-12 border-t pt-6">
        <h2 className="text-xl font-semibold">Schemas</h2>
        {Object.entries(doc.components.schemas).map(([name, s]) => (
          <div key={name} id={`schema-${anchor(name)}`} className="mt-6">
            <h3 className="font-mono font-semibold">{name}</h3>
            {s.description && (
              <p className="text-sm text-neutral-700">
                <Text text={s.description} />
              </p>
            )}
            {s.anyOf ? s.anyOf.map((alt, i) => <Fields key={i} schema={alt as Schema} />) : <Fields schema={s} />}
          </div>
        ))}
      </section>
    </main>
  );
}
