/**
 * Links that cannot be used (unknown, finished) and the capture endpoints' error envelope.
 */
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { FACE_JPEG, newVerification, ops } from './env';

test.describe('links that cannot be used', () => {
  test('an unknown token shows a clear page, not an error', async ({ page }) => {
    const { url } = await newVerification('estimation', 'test');
    const res = await page.goto(url.replace(/[^/]+$/, 'x'.repeat(43)));
    expect(res!.status()).toBeLessThan(500);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('This verification link is not valid');
  });

  test('a finished verification shows its outcome', async ({ page }) => {
    const { url, api } = await newVerification('estimation', 'test');
    const id = await api.prepare({ selfie: fs.readFileSync(FACE_JPEG) });
    await api.submit(id);
    ops('verification:decide', '--id', id, '--status', 'declined');
    const finished = (await api.get(id)).url as string;
    expect(finished).not.toBe(url);
    await page.goto(finished);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'declined');
  });

  test('a finished verification with a return_url offers "Back to {host}" (extension, docs/api.md)', async ({
    page,
  }) => {
    const { api } = await newVerification('estimation', 'test');
    const id = await api.prepare(
      { selfie: fs.readFileSync(FACE_JPEG) },
      { return_url: 'https://shop.example.com/verified?o=1' },
    );
    await api.submit(id);
    await page.goto((await api.get(id)).url);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    const back = page.getByRole('link', { name: 'Back to shop.example.com' });
    await expect(back).toBeVisible();
    await expect(back).toHaveAttribute('href', 'https://shop.example.com/verified?o=1');
  });

  test('capture endpoints answer a bad token with the error envelope', async ({ request }) => {
    const { url } = await newVerification('estimation', 'test');
    const origin = new URL(url).origin;
    const r = await request.get(`${origin}/api/capture/${'y'.repeat(43)}`);
    expect(r.status()).toBe(404);
    expect((await r.json()).error.code).toBe('NOT_FOUND');
    const bad = await request.post(`${origin}/api/capture/${'y'.repeat(43)}/consent`, {
      data: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status()).toBeLessThan(500);
    expect((await bad.json()).error.code).toBeTruthy();
  });

  test('an expired link says so and how to start again', async ({ page }) => {
    const { url, api, id } = await newVerification('estimation', 'test');
    ops('timers:run', '--now', new Date(Date.now() + 8 * 24 * 3600 * 1000).toISOString());
    expect((await api.get(id)).status).toBe('expired');
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('This verification link has expired');
    await expect(page.getByText('Return to the site that sent you here')).toBeVisible();
  });
});
