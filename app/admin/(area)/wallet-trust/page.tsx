/** /admin/wallet-trust – the IACA roots digital ID wallet proofs are checked against (docs/wallet.md "Trust lists"). */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { EXPIRY_WARNING_DAYS, trustAnchorsFor } from '@/lib/domain/admin/wallet-trust';
import { dateTime } from '@/components/admin/format';
import { Badge, Card, Empty, PageHeader, Table, TableFrame, Td, Th, THead } from '@/components/admin/ui';
import { orNotFound } from '../../page-guard';

export const metadata: Metadata = { title: 'Wallet trust list' };

export default async function WalletTrustPage() {
  const actor = await requireActor();
  const anchors = await orNotFound(trustAnchorsFor(getDb(), actor));
  return (
    <>
      <PageHeader
        title="Wallet trust list"
        subtitle="The issuing authorities (IACA roots) whose mobile driving licences a digital ID wallet's age proof is accepted from. Nothing is trusted by default: a proof from any other issuer is refused (untrusted_issuer)."
      />
      <div className="space-y-5">
        {anchors.length === 0 ? (
          <Empty>
            No issuing authority is trusted{actor.isOperator ? '' : ' for your workspaces'}: every wallet proof is
            refused until an operator adds roots.
          </Empty>
        ) : (
          <TableFrame
            className="focus-visible:outline-2 focus-visible:outline-blue-800"
            tabIndex={0}
            role="region"
            aria-label="Trusted IACA root certificates"
          >
            <Table data-testid="wallet-trust">
              <caption className="sr-only">Trusted IACA root certificates</caption>
              <THead look="shadedCaps">
                <tr>
                  <Th density="roomy">Subject</Th>
                  <Th density="roomy">Country</Th>
                  <Th density="roomy">Expires</Th>
                  <Th density="roomy">Trusted for</Th>
                  <Th density="roomy">SHA-256 fingerprint</Th>
                </tr>
              </THead>
              <tbody className="divide-y divide-neutral-200">
                {anchors.map((a) => (
                  <tr key={a.id} data-testid="wallet-trust-row">
                    <Td density="roomy" className="max-w-xs break-words text-neutral-950">
                      {a.subject}
                      <span className="block font-mono text-xs text-neutral-700">{a.id}</span>
                    </Td>
                    <Td density="roomy" strong>
                      {a.country}
                    </Td>
                    <Td density="roomy" nowrap>
                      {dateTime(a.notAfter)}
                      {a.expired ? (
                        <Badge tone="red" shape="tag" ringed={false} className="ml-1">
                          expired
                        </Badge>
                      ) : null}
                      {a.expiringSoon ? (
                        <Badge tone="amber" shape="tag" ringed={false} className="ml-1">
                          within {EXPIRY_WARNING_DAYS} days
                        </Badge>
                      ) : null}
                    </Td>
                    <Td density="roomy">{a.workspaceId ? (a.workspaceName ?? a.workspaceId) : 'every workspace'}</Td>
                    <Td density="roomy" className="font-mono text-xs break-all text-neutral-800">
                      {a.fingerprintSha256}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </TableFrame>
        )}
        <Card title="Managing the list" id="wallet-trust-help">
          <div className="space-y-2 text-sm text-neutral-900">
            <p>Operators add and remove roots with the command line; every change is in the audit log:</p>
            <pre
              tabIndex={0}
              aria-label="Trust list commands"
              className="overflow-x-auto rounded-md bg-neutral-100 p-3 text-xs focus-visible:outline-2 focus-visible:outline-blue-800"
            >
              {
                'npm run ops -- wallet-trust:add --pem roots.pem [--workspace ID]\nnpm run ops -- wallet-trust:list [--workspace ID]\nnpm run ops -- wallet-trust:remove --id iaca_…'
              }
            </pre>
            <p>
              Real roots come from the AAMVA Digital Trust Service (US and Canadian jurisdictions), from the issuing
              authority&apos;s own publication, and from the national and EU trusted lists. Compare the fingerprint with
              the one the issuer publishes before trusting a root.
            </p>
          </div>
        </Card>
      </div>
    </>
  );
}
