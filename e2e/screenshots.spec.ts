/**
 * npm run screenshots: each step of the capture page at phone and desktop width, into docs/screenshots/
 * (linked from docs/capture-page.md). Skipped in the normal test run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { cameraLaunch, FACE_JPEG, FACE_Y4M, newVerification, ops } from './env';
import { acceptConsent, submit, takeSelfie } from './steps';
import { straddlingSelfie } from './step-up';
import { translator } from './languages';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });
test.skip(!process.env.SCREENSHOTS, 'run with npm run screenshots');

const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 860 } };

for (const [device, viewport] of Object.entries(SIZES)) {
  test(`capture page steps, ${device}`, async ({ page }) => {
    fs.mkdirSync(OUT, { recursive: true });
    await page.setViewportSize(viewport);
    const shot = (name: string) =>
      page.screenshot({ path: path.join(OUT, `${name}-${device}.png`), fullPage: true, animations: 'disabled' });
    const ready = (p: Page) => expect(p.getByRole('button', { name: 'Take photo' })).toBeEnabled({ timeout: 30_000 });

    // Age by estimation, live: consent → selfie → submit → approved.
    const live = await newVerification('estimation', 'live');
    await page.goto(live.url);
    await expect(page.getByTestId('consent-text')).toBeVisible();
    await shot('1-consent');
    await acceptConsent(page);
    await ready(page);
    await shot('2-selfie');
    await takeSelfie(page);
    await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
    await shot('4-review');
    await submit(page);
    // The phone run is approved; the desktop run sends the same camera frame again, which the pipeline
    // declines to take twice (the same picture as another verification: liveness_failed).
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', /approved|resubmission_requested/, {
      timeout: 60_000,
    });
    await shot(
      (await page.getByTestId('result').getAttribute('data-status')) === 'approved'
        ? '5-result-approved'
        : '5-result-liveness-failed',
    );

    // Documents: the type, then the camera on the document.
    const doc = await newVerification('documents', 'test');
    await page.goto(doc.url);
    await acceptConsent(page);
    await page.getByRole('button', { name: 'Upload a photo instead' }).click();
    await shot('2b-upload-fallback');
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(FACE_JPEG) });
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expect(page.getByTestId('step-title')).toHaveText('Which document do you have?');
    await shot('3-document-type');

    // A resubmission requested by a reviewer.
    const again = await newVerification('estimation', 'test');
    await page.goto(again.url);
    await acceptConsent(page);
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    await shot('5-result-review');
    ops('verification:decide', '--id', again.id, '--status', 'resubmission_requested', '--reason', 'selfie_quality');
    await page.reload();
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'resubmission_requested');
    await shot('5-result-resubmission');

    // An estimate that cannot decide, in a workspace that steps up to a document: the page asks for one.
    await straddlingSelfie(page);
    await submit(page);
    await expect(page.getByTestId('step-title')).toHaveText('One more step: an ID document', { timeout: 60_000 });
    await shot('5-step-up-document');

    await page.goto(live.url.replace(/[^/]+$/, 'x'.repeat(43)));
    await shot('6-invalid-link');
  });
}

// The capture page in three scripts (docs/capture-page.md "Languages"): consent and selfie on a 360 px phone, in Arabic
// (right to left), Japanese and Hindi, and the language picker.
test('capture page languages, phone', async ({ browser }) => {
  fs.mkdirSync(OUT, { recursive: true });
  for (const locale of ['ar', 'ja', 'hi'] as const) {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    const t = translator(locale);
    const shot = (name: string) =>
      page.screenshot({
        path: path.join(OUT, `lang-${locale}-${name}-phone.png`),
        fullPage: true,
        animations: 'disabled',
      });
    await page.goto((await newVerification('estimation', 'test', { locale })).url);
    await expect(page.getByTestId('consent-text')).toBeVisible();
    await shot('1-consent');
    if (locale === 'ar') {
      // The picker, focused, at the head of the page.
      await page.getByTestId('language-picker').focus();
      await page.screenshot({
        path: path.join(OUT, 'lang-picker-phone.png'),
        clip: { x: 0, y: 0, width: 360, height: 220 },
        animations: 'disabled',
      });
    }
    await page.getByRole('button', { name: t('consent.accept') }).click();
    await expect(page.getByRole('button', { name: t('camera.capture') })).toBeEnabled({ timeout: 30_000 });
    await shot('2-selfie');
    await context.close();
  }
});
