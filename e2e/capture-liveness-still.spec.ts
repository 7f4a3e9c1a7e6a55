/**
 * The head-turn challenge with a camera showing a still photo (the astronaut): no turn is ever seen, so the page runs
 * out of time and offers a retry and the accessible alternative, which sends the verification to a person.
 */
import { expect, test } from '@playwright/test';
import { cameraLaunch, FACE_Y4M } from './env';
import { newLiveVerification } from './liveness-workspace';
import { acceptConsent, axe, submit, takeSelfie } from './steps';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

test.describe('head-turn challenge, camera showing a still photo', () => {
  test('no turn is ever seen: time runs out, with a retry and the accessible alternative, which goes to review', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const { id, url, api } = await newLiveVerification();
    await page.goto(url);
    await acceptConsent(page);
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByTestId('head-turn-result')).toHaveAttribute('data-result', 'timeout', { timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'I cannot turn my head' }).click();
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review', { timeout: 60_000 });
    expect((await api.get(id)).status).toBe('review');
  });
});
