/**
 * The camera permission is denied: the page explains, offers a file upload (and the phone hand-off on desktop).
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { expect, test } from '@playwright/test';
import { cameraLaunch, FACE_JPEG, FACE_Y4M, newVerification } from './env';
import { acceptConsent, axe, submit } from './steps';

test.use({ launchOptions: cameraLaunch(FACE_Y4M, false) });

test.describe('with the camera permission denied', () => {
  test('explains, offers a file upload and the phone hand-off, and completes with an uploaded photo', async ({
    page,
  }) => {
    const { id, url, api } = await newVerification('estimation', 'test');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url);
    await acceptConsent(page);
    await expect(page.getByRole('alert').filter({ hasText: 'Camera access was denied' })).toBeVisible();
    await expect(page.getByRole('img', { name: 'Continue on your phone' })).toBeVisible();
    expect(await axe(page)).toEqual([]);
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(FACE_JPEG) });
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    expect((await api.get(id)).status).toBe('review');
  });

  test('an upload the server rejects comes back as plain advice, and nothing is kept', async ({ page }) => {
    const { id, url, api } = await newVerification('estimation', 'test');
    await page.goto(url);
    await acceptConsent(page);
    const dark = await sharp(fs.readFileSync(FACE_JPEG)).linear(0.1, 0).jpeg().toBuffer();
    await page.getByTestId('file-input').setInputFiles({ name: 'dark.jpg', mimeType: 'image/jpeg', buffer: dark });
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Move somewhere brighter.' })).toBeVisible();
    expect((await api.get(id)).status).toBe('created');
  });
});
