/**
 * The document step's live guide (docs/capture-page.md "The document step") in Debian's Chromium, with a fake rear
 * camera showing a synthetic passport data page lying on a wooden table (test/helpers/document-scene.ts): the page
 * outlines the document where it is, and once it has filled the frame, steady and sharp, takes the photo and sends it
 * by itself; nobody presses the button. `npm run screenshots` also writes the step at phone and desktop size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { documentScene } from '../test/helpers/document-scene';
import { writeY4m } from '../test/helpers/y4m';
import { cameraLaunch, E2E_DIR, FACE_JPEG, newVerification } from './env';
import { acceptConsent, axe } from './steps';

const PASSPORT_Y4M = path.join(E2E_DIR, 'passport-on-table.y4m');
/** The scene the camera shows: 960 x 720, the passport page 72 % of the width, straight (the server's detector today takes a straight one). */
const SCENE = { kind: 'passport', width: 960, height: 720, scale: 0.72 } as const;
let corners: { x: number; y: number }[] = [];

test.use({ launchOptions: cameraLaunch(PASSPORT_Y4M) });
test.beforeAll(async () => {
  fs.mkdirSync(E2E_DIR, { recursive: true });
  const scene = await documentScene(SCENE);
  corners = scene.corners;
  await writeY4m(PASSPORT_Y4M, scene.jpeg, { width: 640, height: 480 });
});

/** Consent, the selfie from a file (the fake camera shows the passport), the passport chosen: the document step. */
async function toDocumentStep(page: Page) {
  const { id, url } = await newVerification('documents', 'test');
  await page.goto(url);
  await acceptConsent(page);
  await page.getByRole('button', { name: 'Upload a photo instead' }).click();
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(FACE_JPEG) });
  await page.getByRole('button', { name: 'Use this photo' }).click();
  // The server's first analysis loads its models: on a busy machine that takes a while.
  await expect(page.getByTestId('step-title')).toHaveText('Which document do you have?', { timeout: 90_000 });
  await page.getByLabel('Passport').check();
  return { id };
}

test('the document step outlines the passport where it lies, then takes and sends the photo by itself', async ({
  page,
}) => {
  const { id } = await toDocumentStep(page);
  const sent = page.waitForResponse(
    (r) => new URL(r.url()).pathname.endsWith('/media') && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Start camera' }).click();
  await expect(page.getByTestId('step-title')).toHaveText('The photo page of your passport');

  // The outline, where the passport is in the frame (the video's pixels: the scene scaled to 640 wide).
  const outline = page.getByTestId('document-outline');
  await expect(outline).toBeVisible();
  const { viewBox, points } = await outline.evaluate((svg) => ({
    viewBox: svg.getAttribute('viewBox'),
    points: svg.querySelector('polygon')!.getAttribute('points')!,
  }));
  const [, , vw, vh] = viewBox!.split(' ').map(Number);
  const found = points.split(' ').map((p) => p.split(',').map(Number));
  const error =
    Math.max(
      ...found.map(([x, y], i) =>
        Math.hypot(x - (corners[i].x * vw) / SCENE.width, y - (corners[i].y * vh) / SCENE.height),
      ),
    ) / Math.hypot(vw, vh);
  expect(error).toBeLessThan(0.02);
  // The button remains for a person who would rather press it.
  await expect(page.getByRole('button', { name: 'Take photo' })).toBeEnabled();

  // Nobody presses it: the photo goes by itself, is accepted, and the page moves on.
  const response = await sent;
  expect([response.status(), (await response.json()).data]).toMatchObject([
    201,
    { verification_id: id, type: 'document', side: 'front', document_type: 'passport' },
  ]);
  await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  expect(await axe(page)).toEqual([]);
});

const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
for (const [device, viewport] of Object.entries({
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 860 },
})) {
  test(`screenshot: the document step's outline, ${device}`, async ({ page }) => {
    test.skip(!process.env.SCREENSHOTS, 'run with npm run screenshots');
    await page.setViewportSize(viewport);
    await toDocumentStep(page);
    await page.getByRole('button', { name: 'Start camera' }).click();
    // Taken as soon as the outline is green: the photo goes by itself about a second later.
    fs.mkdirSync(OUT, { recursive: true });
    await expect(page.getByTestId('document-outline')).toHaveAttribute('data-ready', 'yes');
    await page.screenshot({
      path: path.join(OUT, `3b-document-guide-${device}.png`),
      fullPage: true,
      animations: 'disabled',
    });
    await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  });
}
