/**
 * The camera sees the face in the dark: the live check says so and the capture button stays disabled.
 */
import { expect, test } from '@playwright/test';
import { cameraLaunch, DARK_Y4M, newVerification } from './env';
import { acceptConsent } from './steps';

test.use({ launchOptions: cameraLaunch(DARK_Y4M) });

test.describe('with a camera showing a face in the dark', () => {
  test('a too-dark frame keeps the capture button disabled and says to move somewhere brighter', async ({ page }) => {
    const { url } = await newVerification('estimation', 'test');
    await page.goto(url);
    await acceptConsent(page);
    const advice = page.getByTestId('advice');
    await expect(advice).toHaveAttribute('data-advice', 'tooDark', { timeout: 30_000 });
    await expect(advice).toHaveText('Move somewhere brighter.');
    // Several seconds of frames later it is still disabled.
    await page.waitForTimeout(3000);
    await expect(page.getByRole('button', { name: 'Take photo' })).toBeDisabled();
  });
});
