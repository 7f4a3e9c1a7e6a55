/**
 * The hosted capture page in Debian's Chromium, its camera a fake device fed with a real face photo (scikit-image's
 * astronaut): a full run to a decision, a consent hash mismatch, a resubmission cycle, 320 px, German, axe-core.
 */
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { renderDocument } from '../test/helpers/images';
import { cameraLaunch, FACE_JPEG, FACE_Y4M, newVerification, ops } from './env';
import { acceptConsent, axe, submit, takeSelfie } from './steps';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

test.describe('with a camera showing a face', () => {
  test('full run: created through the signed API → consent → live selfie → submit → approved', async ({ page }) => {
    const cspViolations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) cspViolations.push(msg.text());
    });
    const { id, url, api } = await newVerification('estimation', 'live');
    const res = await page.goto(url);
    // Security headers of the page.
    const h = res!.headers();
    expect(h['content-security-policy']).toContain("default-src 'self'");
    expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(h['permissions-policy']).toContain('camera=(self)');
    expect(h['referrer-policy']).toBe('no-referrer');
    expect(h['cache-control']).toContain('no-store');

    // The consent text is shown unchanged: exactly the bytes of the version's url.
    const consent = (await api.json('GET', '/v1/consent')).data;
    const text = await (await fetch(consent.url.replace(/^https?:\/\/[^/]+/, new URL(url).origin))).text();
    await expect(page.getByTestId('consent-text')).toBeVisible();
    expect(await page.getByTestId('consent-text').textContent()).toBe(text);
    expect(await axe(page)).toEqual([]);
    await acceptConsent(page);
    await expect(page.getByTestId('step-title')).toHaveText('Take a selfie');
    const afterConsent = await api.get(id);
    expect(afterConsent.consent).toMatchObject({ version_id: consent.id });

    await takeSelfie(page);
    expect(await axe(page)).toEqual([]);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved', { timeout: 60_000 });
    await expect(page.getByTestId('step-title')).toHaveText('You are verified');
    expect(await axe(page)).toEqual([]);
    const v = await api.get(id);
    expect(v.status).toBe('approved');
    expect(v.result.decision).toBe('pass');
    expect(cspViolations).toEqual([]);
  });

  test('a consent text altered on the way gives a hash mismatch: nothing is recorded, the page says why', async ({
    page,
  }) => {
    const { id, url, api } = await newVerification('estimation', 'test');
    await page.route('**/consent/*.txt', async (route) => {
      const r = await route.fetch();
      const body = (await r.text()) + '\nAn extra sentence the server never published.';
      await route.fulfill({ status: 200, contentType: 'text/plain; charset=utf-8', body });
    });
    await page.goto(url);
    await acceptConsent(page);
    await expect(page.getByRole('alert').filter({ hasText: 'The consent text changed' })).toBeVisible();
    await expect(page.getByTestId('step-title')).toHaveText('Consent');
    expect((await api.get(id)).consent).toBeNull();
    // The page fetches the text again after the mismatch: let that handler finish before the page closes
    // (otherwise its response can be disposed mid-read, which fails the test now and then).
    await page.unrouteAll({ behavior: 'wait' });
  });

  test('resubmission cycle: requested by an operator, the page says what to fix, the retry submits again', async ({
    page,
  }) => {
    const { id, url, api } = await newVerification('estimation', 'test');
    await page.goto(url);
    await acceptConsent(page);
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    await expect(page.getByTestId('step-title')).toHaveText('Thanks, we’ll let them know');

    ops('verification:decide', '--id', id, '--status', 'resubmission_requested', '--reason', 'selfie_quality');
    await page.reload();
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'resubmission_requested');
    await expect(page.getByTestId('result')).toContainText('Your selfie was not clear enough');
    await expect(page.getByTestId('result')).toContainText('4 attempts left');
    await page.getByRole('button', { name: 'Try again' }).click();
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    const v = await api.get(id);
    expect(v.status).toBe('review');
    expect(v.attempts_remaining).toBe(3);
  });

  test('usable at 320 px wide: no horizontal scrolling, every control reachable', async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 });
    const { url } = await newVerification('estimation', 'test');
    await page.goto(url);
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await fits()).toBe(true);
    await acceptConsent(page);
    await expect(page.getByRole('button', { name: 'Take photo' })).toBeVisible();
    expect(await fits()).toBe(true);
    expect(await axe(page)).toEqual([]);
    // The QR hand-off is for desktops: hidden on a phone.
    await expect(page.getByRole('img', { name: 'Continue on your phone' })).toBeHidden();
  });

  test('German from the browser’s language', async ({ browser }) => {
    const context = await browser.newContext({
      locale: 'de-DE',
      extraHTTPHeaders: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' },
    });
    const page = await context.newPage();
    const { url } = await newVerification('estimation', 'test');
    await page.goto(url);
    await expect(page.getByTestId('step-title')).toHaveText('Einwilligung');
    await expect(page.getByRole('button', { name: 'Ich habe dies gelesen und stimme zu' })).toBeVisible();
    await context.close();
  });

  test('document flow: selfie by camera, passport photo page by file, decided by MRZ and face match', async ({
    page,
  }) => {
    const { id, url, api } = await newVerification('documents', 'live');
    await page.goto(url);
    await acceptConsent(page);
    await takeSelfie(page);
    await expect(page.getByTestId('step-title')).toHaveText('Which document do you have?');
    await page.getByLabel('Passport').check();
    await page.getByRole('button', { name: 'Start camera' }).click();
    await expect(page.getByTestId('step-title')).toHaveText('The photo page of your passport');
    await page.getByRole('button', { name: 'Upload a photo instead' }).click();
    const passport = await renderDocument('passport', 'front', fs.readFileSync(FACE_JPEG));
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'passport.jpg', mimeType: 'image/jpeg', buffer: passport });
    await page.getByRole('button', { name: 'Use this photo' }).click();
    // A passport needs no back: straight to submit.
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved', { timeout: 60_000 });
    const v = await api.get(id);
    expect(v.status).toBe('approved');
    // The default identity's date of birth, 1974-08-12, read from the MRZ; the selfie matches the portrait.
    expect(v.result).toMatchObject({
      decision: 'pass',
      threshold: 18,
      document: { type: 'passport', source: 'mrz', issuing_country: 'UTO' },
      face_match: { match: true },
    });
    expect(v.result.age).toBeGreaterThanOrEqual(52);
  });

  test('an in-app browser is told to open the link elsewhere, and offered the upload', async ({ browser }) => {
    const context = await browser.newContext({
      userAgent:
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36 Instagram 300.0.0.0',
    });
    const page = await context.newPage();
    const { url } = await newVerification('estimation', 'test');
    await page.goto(url);
    await acceptConsent(page);
    await expect(page.getByRole('alert').filter({ hasText: 'built-in browser' })).toBeVisible();
    await expect(page.getByTestId('file-input')).toBeAttached();
    await context.close();
  });

  test('a retry after a selfie problem asks for the selfie only: the documents already sent still count', async ({
    page,
  }) => {
    const { id, url, api } = await newVerification('documents', 'test');
    await page.goto(url);
    await acceptConsent(page);
    await takeSelfie(page);
    await page.getByLabel('Passport').check();
    await page.getByRole('button', { name: 'Start camera' }).click();
    await page.getByRole('button', { name: 'Upload a photo instead' }).click();
    await page.getByTestId('file-input').setInputFiles({
      name: 'p.jpg',
      mimeType: 'image/jpeg',
      buffer: await renderDocument('passport', 'front', fs.readFileSync(FACE_JPEG)),
    });
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    ops('verification:decide', '--id', id, '--status', 'resubmission_requested', '--reason', 'selfie_quality');
    await page.reload();
    await page.getByRole('button', { name: 'Try again' }).click();
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    expect((await api.get(id)).attempts_remaining).toBe(3);
  });
});
