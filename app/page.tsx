export default function Home() {
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-2xl font-semibold">Open Verify</h1>
      <p className="mt-3 text-neutral-600">
        A self-hosted age and identity verification service. Integrators call the signed REST API under{' '}
        <code className="font-mono">/v1</code>; end users complete their verification at the URL it returns.
      </p>
      <ul className="mt-6 list-disc space-y-1 pl-5 text-neutral-700">
        <li>
          <code className="font-mono">POST /v1/verifications</code>: create a verification
        </li>
        <li>
          <code className="font-mono">GET /v1/verifications/&#123;id&#125;</code>: read its status and result
        </li>
        <li>
          <code className="font-mono">GET /v1/consent</code>: the active consent text
        </li>
      </ul>
      <p className="mt-6 text-neutral-700">
        The whole API:{' '}
        <a className="underline" href="/docs/api">
          reference
        </a>{' '}
        (from{' '}
        <a className="underline" href="/v1/openapi.json">
          <code className="font-mono">/v1/openapi.json</code>
        </a>
        , OpenAPI 3.1).
      </p>
    </main>
  );
}
