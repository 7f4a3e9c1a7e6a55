/** Steps of the capture page the specs share, and the accessibility scan. */
import { expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

export async function acceptConsent(page: Page) {
  await expect(page.getByTestId('step-title')).toHaveText('Consent');
  await expect(page.getByTestId('consent-text')).toBeVisible();
  await page.getByRole('button', { name: 'I have read this and I agree' }).click();
}

export async function takeSelfie(page: Page) {
  await expect(page.getByTestId('step-title')).toHaveText('Take a selfie');
  const capture = page.getByRole('button', { name: 'Take photo' });
  await expect(capture).toBeEnabled({ timeout: 30_000 });
  await capture.click();
  await page.getByRole('button', { name: 'Use this photo' }).click();
}

export async function submit(page: Page) {
  await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  await page.getByRole('button', { name: 'Submit' }).click();
}

/** Serious or critical axe violations, as readable lines. */
export async function axe(page: Page) {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
