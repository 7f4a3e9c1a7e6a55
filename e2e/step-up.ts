/**
 * The step-up to a document (docs/api.md "Step-up to a document") on the capture page: a workspace whose
 * `estimation_fallback` is `document`, and a camera selfie whose estimated range straddles its threshold.
 */
import { expect, type Page } from '@playwright/test';
import { apiClient } from '../test/helpers/api-client';
import { ops, state } from './env';
import { acceptConsent, takeSelfie } from './steps';

const keys = (c: { workspace: { id: string; api_key: string }; secret_keys: { mode: string; secret: string }[] }) => ({
  id: c.workspace.id,
  api: apiClient(state().base, c.workspace.api_key, c.secret_keys.find((k) => k.mode === 'live')!.secret),
});

/**
 * A live verification in a new workspace that steps up to a document, opened on `page`, consent given and the
 * camera selfie taken (the page waits on "Ready to submit"). The workspace's threshold is then set to this very
 * selfie's estimated age, so that its range straddles the threshold whatever the age model's ranges: the bytes
 * the page uploaded are sent, through the signed API, to a probe workspace of their own and decided there.
 * (New workspaces each time: the pipeline refuses the same camera picture twice in one workspace.)
 */
export async function straddlingSelfie(page: Page) {
  const ws = keys(ops('workspace:create', '--name', 'e2e step-up'));
  const probe = keys(ops('workspace:create', '--name', 'e2e step-up probe'));
  const created = await ws.api.json('POST', '/v1/verifications', '{}');
  const { id, url } = created.data as { id: string; url: string };
  // The page's own upload, kept aside as it leaves (Chromium does not hand a request's file parts to Playwright).
  await page.addInitScript(() => {
    const send = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const file = init?.body instanceof FormData && String(input).endsWith('/media') ? init.body.get('file') : null;
      if (file instanceof Blob) (window as unknown as { sentSelfie?: Blob }).sentSelfie ??= file;
      return send(input, init);
    };
  });
  await page.goto(url);
  await acceptConsent(page);
  await takeSelfie(page);
  await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  const base64 = await page.evaluate(async () => {
    const blob = (window as unknown as { sentSelfie?: Blob }).sentSelfie;
    return blob
      ? btoa(Array.from(new Uint8Array(await blob.arrayBuffer()), (b) => String.fromCharCode(b)).join(''))
      : null;
  });
  expect(base64, 'the page uploaded the selfie').not.toBeNull();
  const probeId = await probe.api.prepare({ selfie: Buffer.from(base64!, 'base64') });
  await probe.api.submit(probeId);
  const estimated = (await probe.api.waitDecided(probeId)).result.estimated_age as number;
  const settings = ops(
    'workspace:settings',
    '--workspace',
    ws.id,
    '--estimation-fallback',
    'document',
    '--age-threshold',
    String(estimated),
  );
  expect(settings.workspace).toMatchObject({ estimation_fallback: 'document', age_threshold: estimated });
  return { id, api: ws.api, threshold: estimated };
}

/** Born on 1 January of the year that makes them `age` on the day of the decision. */
export const bornAged = (age: number) => `${new Date().getUTCFullYear() - age}-01-01`;
