/**
 * The head-turn challenge of a workspace that requires active liveness, in Debian's Chromium. The fake camera
 * plays a head turning (test/helpers/head-turn.ts: the astronaut's face with its centre line shifted left and right,
 * which the detector and the mesh read as turns; a real 3D turn is not available offline), looping straight → left
 * → straight → right; the page asks for the poses in the server's random order and takes each from the loop.
 * (A camera showing a still photo: capture-liveness-still.spec.ts.)
 */
import { expect, test } from '@playwright/test';
import { cameraLaunch, TURNING_Y4M } from './env';
import { newLiveVerification } from './liveness-workspace';
import { acceptConsent, axe, submit, takeSelfie } from './steps';

test.use({ launchOptions: cameraLaunch(TURNING_Y4M) });

test.describe('head-turn challenge, camera turning the head', () => {
  test('the poses asked in random order are taken from the camera, the server passes them, then the selfie', async ({
    page,
  }) => {
    page.on('console', (msg) => {
      if (/head-turn/.test(msg.text())) console.log(msg.text());
    });
    const { id, url, api } = await newLiveVerification();
    await page.goto(url);
    await acceptConsent(page);
    await expect(page.getByTestId('head-turn')).toBeVisible();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByTestId('head-turn-instruction')).toBeVisible();
    // Each pose is announced in a live region; the page moves on when it sees it held.
    const seen: string[] = [];
    const watch = setInterval(() => {
      const el = page.getByTestId('head-turn-instruction');
      el.evaluate((e) => `${e.getAttribute('data-step')}:${e.getAttribute('data-turn')}`, undefined, { timeout: 400 })
        .then((v) => seen.push(v))
        .catch(() => undefined);
    }, 500);
    try {
      await expect(page.getByTestId('head-turn')).toBeHidden({ timeout: 45_000 });
    } finally {
      clearInterval(watch);
      console.log('head-turn steps:turns seen by the page', seen.join(' '));
    }
    await takeSelfie(page);
    await submit(page);
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', /approved|review/, { timeout: 60_000 });
    const v = await api.get(id);
    expect(v.reason).toBeNull();
  });
});
