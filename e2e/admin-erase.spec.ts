/**
 * Erasure from the admin area in Debian's Chromium (issue #16): an owner erases a case waiting for review after a
 * typed confirmation; the case becomes abandoned, its photo link stops working, the signed receipt is on the case
 * view and verifies against /receipt-keys, and the audit log names the owner. A reviewer is not offered the action.
 */
import { expect, test } from '@playwright/test';
import { verifyReceipt, type SignedReceipt } from '../lib/domain/retention/receipts';
import { admin, auditActions, origin, signIn, submittedCase, workspace } from './admin-helpers';

test('an owner erases a case from its page; the receipt shown there verifies; a reviewer is not offered it', async ({
  browser,
}) => {
  const ws = workspace('erasure');
  const owner = admin([ws.id, 'owner']);
  const reviewer = admin([ws.id, 'reviewer']);
  const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-erase' });

  const rev = await browser.newContext();
  const rp = await rev.newPage();
  await signIn(rp, reviewer);
  await rp.goto(`${origin()}/admin/verifications/${id}`);
  await expect(rp.getByText('Only an owner of the workspace can erase it sooner.')).toBeVisible();
  await expect(rp.getByRole('button', { name: /Erase this person/ })).toHaveCount(0);
  await rev.close();

  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, owner);
  await page.goto(`${origin()}/admin/verifications/${id}`);
  const src = (await page.getByRole('img', { name: /^Selfie of case/ }).getAttribute('src'))!;
  expect((await page.request.get(origin() + src)).status()).toBe(200);

  await page.getByRole('button', { name: 'Erase this person’s data now…' }).click();
  // Without the typed confirmation nothing happens.
  await page.getByRole('button', { name: 'Erase data' }).click();
  await expect(page.getByText('Type erase to confirm.')).toBeVisible();
  await page.getByLabel('Type erase to confirm').fill('erase');
  await page.getByRole('button', { name: 'Erase data' }).click();
  // The action revalidates the page, which then shows the case as erased in place of the form (its own
  // notice may not be seen: the new page and the action's answer arrive together).
  await expect(
    page.getByText(
      new RegExp(`^Erased on .* \\(requested by admin:${owner.id}\\): photos, faces and personal fields are gone\\.$`),
    ),
  ).toBeVisible();
  await expect(page.getByText(/^Signed erasure receipt rcp_/)).toBeVisible();

  await page.reload();
  await expect(page.getByText(/The photos were erased on/)).toBeVisible();
  await expect(page.getByText('Abandoned', { exact: true }).first()).toBeVisible();
  expect((await page.request.get(origin() + src)).status()).toBe(404);
  await page.getByText(/^Signed erasure receipt rcp_/).click();
  const receipt = JSON.parse((await page.getByTestId('erasure-receipt').textContent())!) as SignedReceipt;
  expect(receipt.receipt).toMatchObject({
    verification_id: id,
    external_id: 'e2e-erase',
    requested_by: `admin:${owner.id}`,
    trigger: 'request',
    status: 'abandoned',
  });
  const keys = await (await page.request.get(`${origin()}/receipt-keys`)).json();
  expect(verifyReceipt(receipt, keys)).toEqual({ valid: true });

  const rows = await auditActions(page, id);
  expect(rows.some((r) => r.includes('verification.data_erased') && r.includes(owner.email))).toBe(true);
  await ctx.close();
});
