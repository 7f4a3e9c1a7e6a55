/**
 * /admin/workspaces/{id}/keys – the public API key and each secret key (mode, created, last used, which one is
 * active); create (the secret shown once), activate, delete (never the active key); and a signed request to try.
 */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { keysFor } from '@/lib/domain/admin/workspaces';
import { env } from '@/lib/core/env';
import { dateTime } from '@/components/admin/format';
import { Badge, Card, layout, ModeBadge, Table, Td, Th, THead } from '@/components/admin/ui';
import { ActionForm, CopyButton, CreateKeyForm } from '@/components/admin/OwnerForms';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { DoneNotice } from '@/components/admin/DoneNotice';
import { activateKeyAction, createKeyAction, deleteKeyAction } from '../../../../workspace-actions';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'API keys' };

function tryIt(base: string, apiKey: string) {
  const curl = `SECRET=sk_test_…   # a secret key of this workspace
BODY='{"external_id":"user-42"}'
SIG=$(printf 'POST/v1/verifications%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')
curl -sS ${base}/v1/verifications \\
  -H 'Content-Type: application/json' -H 'X-API-Key: ${apiKey}' \\
  -H "X-HMAC-Signature: $SIG" --data "$BODY"`;
  const node = `// node try.mjs   (Node 18+; OPEN_VERIFY_SECRET=sk_test_…)
import { createHmac } from 'node:crypto';
const body = JSON.stringify({ external_id: 'user-42' });
const sig = createHmac('sha256', process.env.OPEN_VERIFY_SECRET).update('POST' + '/v1/verifications' + body).digest('hex');
const res = await fetch('${base}/v1/verifications', {
  method: 'POST', body,
  headers: { 'content-type': 'application/json', 'x-api-key': '${apiKey}', 'x-hmac-signature': sig },
});
console.log(res.status, await res.json());`;
  const python = `# python3 try.py   (OPEN_VERIFY_SECRET=sk_test_…)
import hashlib, hmac, json, os, urllib.request
body = json.dumps({"external_id": "user-42"}, separators=(",", ":")).encode()
sig = hmac.new(os.environ["OPEN_VERIFY_SECRET"].encode(), b"POST/v1/verifications" + body, hashlib.sha256).hexdigest()
req = urllib.request.Request("${base}/v1/verifications", data=body, method="POST", headers={
    "Content-Type": "application/json", "X-API-Key": "${apiKey}", "X-HMAC-Signature": sig})
print(urllib.request.urlopen(req).read().decode())`;
  return [
    ['curl', curl],
    ['Node', node],
    ['Python', python],
  ] as const;
}

export default async function KeysPage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  const { id } = await props.params;
  const q = await props.searchParams;
  const { workspace, keys, max } = await orNotFound(keysFor(getDb(), actor, id));
  const active = keys.find((k) => k.active);
  return (
    <>
      <WorkspaceHeader
        workspace={workspace}
        current="keys"
        title="API keys"
        subtitle="Any of these secret keys signs requests; the active one also signs webhooks. Rotate: create a key, deploy it, activate it, then delete the old one."
      />
      <DoneNotice q={q} />
      <div className="space-y-5">
        <Card title="Public API key" id="public-key">
          <p className="mb-2 text-sm text-neutral-800">
            Sent as <code>X-API-Key</code> with every request. It names the workspace and is not a secret.
          </p>
          <div className={layout.row}>
            <code data-testid="api-key" className="break-all rounded bg-neutral-100 px-2 py-1 font-mono text-sm">
              {workspace.apiKey}
            </code>
            <CopyButton text={workspace.apiKey} />
          </div>
        </Card>
        <Card title={`Secret keys (${keys.length} of ${max})`} id="secret-keys">
          {keys.length === 0 ? (
            <p className="text-sm text-neutral-800">No secret key: every signed request is refused (NO_SECRET_KEYS).</p>
          ) : null}
          <div className="overflow-x-auto">
            <Table className="min-w-[36rem]" data-testid="keys">
              <THead look="caps" className="border-b border-neutral-200">
                <tr>
                  <Th density="column">Key</Th>
                  <Th density="column">Mode</Th>
                  <Th density="column">Created</Th>
                  <Th density="column">Last used</Th>
                  <Th density="column">Actions</Th>
                </tr>
              </THead>
              <tbody className="divide-y divide-neutral-100">
                {keys.map((k) => (
                  <tr key={k.id} data-key={k.id}>
                    <Td density="column" top>
                      <span className="font-mono">{k.hint}</span>
                      {k.active ? (
                        <Badge tone="green" shape="tag" className="ml-2">
                          Active
                        </Badge>
                      ) : null}
                      <div className="font-mono text-xs text-neutral-700">{k.id}</div>
                    </Td>
                    <Td density="column" top>
                      <ModeBadge mode={k.mode} />
                    </Td>
                    <Td density="column" top>
                      {dateTime(k.created_at)}
                    </Td>
                    <Td density="column" top data-testid="last-used">
                      {k.last_used_at ? dateTime(k.last_used_at) : 'Never'}
                    </Td>
                    <Td density="column" top>
                      <div className="flex flex-wrap gap-2">
                        {!k.active ? (
                          <ActionForm
                            inline
                            action={activateKeyAction}
                            hidden={{ workspace_id: workspace.id, key_id: k.id }}
                            submit="Activate"
                            tone="secondary"
                            confirm={{
                              open: 'Activate…',
                              ariaLabel: `Activate ${k.hint}`,
                              text: `${k.hint} will sign every webhook from now on${active ? `, instead of ${active.hint}` : ''}.`,
                            }}
                          />
                        ) : null}
                        <ActionForm
                          inline
                          action={deleteKeyAction}
                          hidden={{ workspace_id: workspace.id, key_id: k.id, confirm: 'delete' }}
                          submit="Delete key"
                          tone="danger"
                          confirm={{
                            open: 'Delete…',
                            ariaLabel: `Delete ${k.hint}`,
                            text: k.active
                              ? 'This is the active key: it cannot be deleted until another key is active.'
                              : `Requests signed with ${k.hint} will be refused at once.`,
                          }}
                        />
                      </div>
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
        </Card>
        <Card title="Create a secret key" id="create-key">
          <CreateKeyForm action={createKeyAction} workspaceId={workspace.id} full={keys.length >= max} />
        </Card>
        <Card title="Try it: a signed request" id="try-it">
          <p className="mb-3 text-sm text-neutral-800">
            The signature is HMAC-SHA256 of <code>METHOD + path + raw body</code> with a secret key, in lowercase hex
            (docs/api.md). Each creates a test-mode verification with a test key.
          </p>
          <div className="space-y-3">
            {tryIt(env().BASE_URL, workspace.apiKey).map(([lang, code]) => (
              <details key={lang} className="rounded-md border border-neutral-200" open={lang === 'curl'}>
                <summary className="cursor-pointer px-3 py-2 text-sm font-semibold text-neutral-900">{lang}</summary>
                <pre
                  tabIndex={0}
                  aria-label={`${lang} example`}
                  className="overflow-x-auto whitespace-pre border-t border-neutral-200 bg-neutral-950 p-3 text-xs text-neutral-50 focus-visible:outline-2 focus-visible:outline-blue-500"
                  data-testid={`try-${lang.toLowerCase()}`}
                >
                  <code>{code}</code>
                </pre>
              </details>
            ))}
          </div>
        </Card>
      </div>
    </>
  );
}
