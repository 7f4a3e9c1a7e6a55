/** /admin/consent – operators: the active consent text (global), its history, and publishing a new version. */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { consentHistory } from '@/lib/domain/admin/consent';
import { consentTextUrl, localesOf, type ConsentVersion } from '@/lib/domain/consent';
import { LOCALE_ENGLISH_NAMES, LOCALES } from '@/lib/core/i18n/locales';
import { dateTime } from '@/components/admin/format';
import { Card, Empty, Facts, Input, Label, PageHeader, Textarea } from '@/components/admin/ui';
import { ActionForm } from '@/components/admin/OwnerForms';
import { publishConsentAction } from '../../workspace-actions';
import { orNotFound } from '../../page-guard';

export const metadata: Metadata = { title: 'Consent text' };

export default async function ConsentPage() {
  const actor = await requireActor();
  const versions = await orNotFound(consentHistory(getDb(), actor));
  const active = versions.find((v) => v.isActive);
  return (
    <>
      <PageHeader
        title="Consent text"
        subtitle="One text for every workspace, in each language of the capture page: GET /v1/consent names the active version, and each acceptance records its id, the SHA-256 of the text read and its language."
      />
      <div className="space-y-5">
        <Card title="Active version" id="active-consent">
          {active ? (
            <>
              <Facts
                items={[
                  ['Version', active.version],
                  ['Id', String(active.id)],
                  [
                    'SHA-256 (English)',
                    <code key="h" className="font-mono text-xs">
                      {active.textSha256}
                    </code>,
                  ],
                  ['Published', dateTime(active.createdAt)],
                  ['URL (English)', consentTextUrl(active.id)],
                  ['Languages', <Languages key="l" version={active} />],
                ]}
              />
              <pre
                tabIndex={0}
                aria-label="The active consent text"
                className="mt-3 max-h-96 overflow-auto whitespace-pre-wrap rounded-md border border-neutral-200 bg-neutral-50 p-3 text-sm text-neutral-950"
                data-testid="active-consent-text"
              >
                {active.text}
              </pre>
            </>
          ) : (
            <Empty>No consent text is published: verifications cannot record consent until one is.</Empty>
          )}
        </Card>
        <Card title="Publish a new version" id="publish-consent">
          <p className="mb-3 text-sm text-neutral-700">
            This form publishes the English text only: a person who chooses another language on the capture page is
            shown the English text, with a note saying so. To publish every language, use{' '}
            <code className="font-mono text-xs">npm run ops -- consent:publish --text-dir DIR --version LABEL</code>{' '}
            (docs/capture-page.md).
          </p>
          <ActionForm
            action={publishConsentAction}
            submit="Publish and make active"
            pendingLabel="Publishing…"
            confirm={{
              open: 'Publish a new version…',
              text: 'The new text becomes the active version at once; verifications that accepted an earlier version keep their record of it.',
            }}
          >
            <div>
              <Label htmlFor="consent-version">Version label (e.g. a date)</Label>
              <Input id="consent-version" name="version" required maxLength={100} />
            </div>
            <div>
              <Label htmlFor="consent-text">English text (published exactly as typed)</Label>
              <Textarea
                id="consent-text"
                name="text"
                required
                rows={10}
                defaultValue={active?.text ?? ''}
                font="mono"
              />
            </div>
          </ActionForm>
        </Card>
        <Card title={`History (${versions.length})`} id="consent-history">
          <ul className="divide-y divide-neutral-100" data-testid="consent-history">
            {versions.map((v) => (
              <li key={v.id} className="py-2 text-sm">
                <details>
                  <summary className="cursor-pointer">
                    <span className="font-semibold">{v.version}</span> · id {v.id} · {dateTime(v.createdAt)}
                    {v.isActive ? ' · active' : ''} · {languageCount(v)} ·{' '}
                    <span className="font-mono text-xs">{v.textSha256.slice(0, 16)}…</span>
                  </summary>
                  <div className="mt-2 text-xs">
                    <Languages version={v} />
                  </div>
                  <pre className="mt-2 whitespace-pre-wrap rounded-md bg-neutral-50 p-2 text-xs">{v.text}</pre>
                </details>
              </li>
            ))}
          </ul>
        </Card>
      </div>
    </>
  );
}

const languageCount = (v: ConsentVersion) => {
  const n = localesOf(v).length;
  return n === LOCALES.length ? `all ${n} languages` : n === 1 ? 'English only' : `${n} of ${LOCALES.length} languages`;
};

/** A version's languages, each linked to its text, and the page's languages it lacks (shown the English text). */
function Languages(props: { version: ConsentVersion }) {
  const has = localesOf(props.version);
  const missing = LOCALES.filter((l) => !has.includes(l));
  return (
    <div data-testid="consent-languages">
      <ul className="flex flex-wrap gap-x-3 gap-y-1">
        {props.version.texts.map((t) => (
          <li key={t.locale}>
            <a
              href={consentTextUrl(props.version.id, t.locale as (typeof LOCALES)[number])}
              className="text-blue-800 underline"
              title={`SHA-256 ${t.textSha256}`}
            >
              {LOCALE_ENGLISH_NAMES[t.locale as (typeof LOCALES)[number]] ?? t.locale}
            </a>
          </li>
        ))}
      </ul>
      {missing.length > 0 && (
        <p className="mt-1 text-amber-900">
          No text in {missing.map((l) => LOCALE_ENGLISH_NAMES[l]).join(', ')}: shown the English one.
        </p>
      )}
    </div>
  );
}
