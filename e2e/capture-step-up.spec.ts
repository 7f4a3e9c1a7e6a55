/**
 * The step-up to a document on the hosted capture page (docs/api.md "Step-up to a document"), in Debian's Chromium
 * with the fake camera (the astronaut): in a workspace whose `estimation_fallback` is `document`, a live selfie
 * whose estimate cannot decide is followed by a request for an ID document in plain words; the selfie is kept, the
 * passport's photo page completes the verification, decided by its date of birth and the face match.
 */
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { renderDocument } from '../test/helpers/images';
import { cameraLaunch, FACE_JPEG, FACE_Y4M } from './env';
import { axe, submit } from './steps';
import { bornAged, straddlingSelfie } from './step-up';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

test('after the selfie the page asks for an ID document in plain words, keeps the selfie, and completes', async ({
  page,
  browser,
}) => {
  const { id, api, threshold } = await straddlingSelfie(page);
  await submit(page);

  // The explanation, then what to do: the documents the check reads, and that the selfie is kept.
  await expect(page.getByTestId('step-title')).toHaveText('One more step: an ID document', { timeout: 60_000 });
  await expect(page.getByTestId('step-title')).toBeFocused();
  const stepUp = page.getByTestId('step-up');
  await expect(stepUp).toContainText(
    'We could not confirm your age from the selfie alone. To finish, take a photo of one of these documents:',
  );
  await expect(stepUp.getByRole('listitem')).toHaveText(['Passport', 'Identity card', 'Driving licence']);
  await expect(stepUp).toContainText('Your selfie is kept: you do not need to take it again.');
  await expect(page.locator('[aria-current="step"]')).toContainText('Document');
  expect(await axe(page)).toEqual([]);
  let v = await api.get(id);
  expect([v.status, v.reason, v.attempts_remaining, v.result.age_source]).toEqual([
    'resubmission_requested',
    'document_required',
    4,
    'estimation',
  ]);

  // The same step in German, for a person whose browser asks for it (a reload resumes there).
  const de = await browser.newContext({ locale: 'de-DE', extraHTTPHeaders: { 'accept-language': 'de-DE,de;q=0.9' } });
  const dePage = await de.newPage();
  await dePage.goto(page.url());
  await expect(dePage.getByTestId('step-title')).toHaveText('Noch ein Schritt: ein Ausweisdokument');
  await expect(dePage.getByTestId('step-up')).toContainText(
    'Anhand des Selfies allein konnten wir Ihr Alter nicht bestätigen.',
  );
  await expect(dePage.getByRole('button', { name: 'Weiter mit einem Dokument' })).toBeVisible();
  await de.close();

  await page.getByRole('button', { name: 'Continue with a document' }).click();
  await expect(page.getByTestId('step-title')).toHaveText('Which document do you have?');
  await expect(page.getByText('Any one of these works. Your selfie is kept.')).toBeVisible();
  await page.getByLabel('Passport').check();
  await page.getByRole('button', { name: 'Start camera' }).click();
  await expect(page.getByTestId('step-title')).toHaveText('The photo page of your passport');
  await page.getByRole('button', { name: 'Upload a photo instead' }).click();
  const passport = await renderDocument('passport', 'front', fs.readFileSync(FACE_JPEG), {
    birthDate: bornAged(threshold + 5),
  });
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'passport.jpg', mimeType: 'image/jpeg', buffer: passport });
  await page.getByRole('button', { name: 'Use this photo' }).click();

  // No new selfie: straight to submit, with the selfie taken before and the passport.
  await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  await expect(page.getByRole('listitem').getByRole('img')).toHaveCount(2);
  await expect(page.getByRole('img', { name: 'The photo page of your passport' })).toBeVisible();
  // After a reload (or on another device) the earlier selfie has no preview here: the page says it is kept.
  await page.reload();
  await expect(page.getByTestId('step-title')).toHaveText('Ready to submit');
  await expect(page.getByText('Your selfie is kept: you do not need to take it again.')).toBeVisible();
  await submit(page);
  await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved', { timeout: 60_000 });
  await expect(page.getByTestId('step-title')).toHaveText('You are verified');
  expect(await axe(page)).toEqual([]);
  v = await api.get(id);
  expect([v.status, v.attempts_remaining]).toEqual(['approved', 3]);
  expect(v.result).toMatchObject({
    decision: 'pass',
    threshold,
    age: threshold + 5,
    age_source: 'document',
    document: { type: 'passport', source: 'mrz' },
    face_match: { match: true },
  });
});
