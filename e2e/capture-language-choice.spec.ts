/**
 * How the capture page's language is chosen (docs/capture-page.md "How the language is chosen"): the person's pick
 * in the page's picker, then `?lang=` on the link, then the verification's `locale`, then Accept-Language, then
 * English; anything unknown or malformed is passed over, never an error. The picker keeps the person's progress:
 * consent given, the camera running, the photo taken, and the page follows in `<html lang dir>` and every word.
 * A consent version without a text in the chosen language shows the English one, saying so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
import { DEFAULT_CONSENT_TEXTS } from '../server/seed';
import { cameraLaunch, FACE_Y4M, newVerification, opsAsync } from './env';
import { translator, wcagViolations } from './languages';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

async function open(browser: Browser, url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  return { context, page };
}

test('the order: picker, ?lang=, the verification’s locale, Accept-Language, English; bad values pass over', async ({
  browser,
  request,
}) => {
  const { url, api, id } = await newVerification('estimation', 'test', { locale: 'fr-CA' });
  expect((await api.get(id)).locale).toBe('fr'); // negotiated at creation, returned so
  const plain = (await newVerification('estimation', 'test')).url;

  const seen: Record<string, [number, string | null]> = {};
  for (const [name, u, al] of [
    ['locale over Accept-Language', url, 'de-DE,de;q=0.9'],
    ['?lang over locale', `${url}?lang=ja`, 'de'],
    ['?lang regional', `${url}?lang=pt-PT`, undefined],
    ['?lang unknown: locale', `${url}?lang=zh-Hant`, 'de'],
    ['?lang malformed: locale', `${url}?lang=%3Cscript%3E`, undefined],
    ['?lang empty: locale', `${url}?lang=`, undefined],
    ['Accept-Language', plain, 'xx, pl;q=0.8, de;q=0.5'],
    ['Accept-Language malformed: English', plain, ';;q=oops,,'],
    ['nothing: English', plain, 'zh-CN'],
  ] as const) {
    // The HTML as the server renders it (a browser context would send its own Accept-Language).
    const res = await request.get(u, { headers: al ? { 'accept-language': al } : {} });
    seen[name] = [res.status(), /<html lang="([^"]*)"/.exec(await res.text())?.[1] ?? null];
  }
  expect(seen).toEqual({
    'locale over Accept-Language': [200, 'fr'],
    '?lang over locale': [200, 'ja'],
    '?lang regional': [200, 'pt-BR'],
    '?lang unknown: locale': [200, 'fr'],
    '?lang malformed: locale': [200, 'fr'],
    '?lang empty: locale': [200, 'fr'],
    'Accept-Language': [200, 'pl'],
    'Accept-Language malformed: English': [200, 'en'],
    'nothing: English': [200, 'en'],
  });

  // The picker's choice comes first, even over ?lang=, for this link in this browser.
  const o = await open(browser, `${url}?lang=ja`);
  await o.page.getByTestId('language-picker').selectOption('uk');
  await expect(o.page.locator('html')).toHaveAttribute('lang', 'uk');
  await o.page.reload();
  await expect(o.page.locator('html')).toHaveAttribute('lang', 'uk');
  await expect(o.page.getByTestId('step-title')).toHaveText(translator('uk')('steps.consent'));
  await o.context.close();
});

test('switching language keeps the progress: consent, the running camera, the photo taken', async ({ page }) => {
  const { url, api, id } = await newVerification('estimation', 'test');
  await page.goto(url);
  const en = translator('en');
  await page.getByRole('button', { name: en('consent.accept') }).click();
  await expect(page.getByRole('button', { name: en('camera.capture') })).toBeEnabled({ timeout: 30_000 });
  // The camera's video element is marked: the same element, still playing, after the switch.
  await page.getByTestId('camera').evaluate((v) => ((v as HTMLVideoElement).dataset.mark = 'before-switch'));

  await page.getByTestId('language-picker').selectOption('ar');
  const ar = translator('ar');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  await expect(page.getByTestId('step-title')).toHaveText(ar('selfie.title'));
  await expect(page.getByTestId('camera')).toHaveAttribute('data-mark', 'before-switch');
  expect(await page.getByTestId('camera').evaluate((v) => !(v as HTMLVideoElement).paused)).toBe(true);
  expect(await wcagViolations(page)).toEqual([]);
  await page.getByRole('button', { name: ar('camera.capture') }).click();
  await page.getByRole('button', { name: ar('camera.usePhoto') }).click();
  await expect(page.getByTestId('step-title')).toHaveText(ar('review.title'));

  // The photo taken is still previewed after another switch; the consent given stays given.
  await page.getByTestId('language-picker').selectOption('de');
  const de = translator('de');
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByTestId('step-title')).toHaveText(de('review.title'));
  await expect(page.getByRole('img', { name: de('selfie.title') })).toBeVisible();
  await page.getByRole('button', { name: de('review.submit'), exact: true }).click();
  await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
  await expect(page.getByTestId('step-title')).toHaveText(de('result.review'));
  expect((await api.get(id)).consent.locale).toBe('en'); // accepted while the page was in English
});

test('a consent version without a text in the chosen language shows the English one and says so; the English hash is accepted', async ({
  browser,
}) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-consent-'));
  const texts = DEFAULT_CONSENT_TEXTS();
  // Every language but Japanese: refused without --allow-missing, published with it.
  for (const [l, text] of Object.entries(texts)) if (l !== 'ja') fs.writeFileSync(path.join(dir, `${l}.txt`), text);
  try {
    await expect(
      opsAsync('consent:publish', '--text-dir', dir, '--version', `e2e-no-ja-${Date.now()}`),
    ).rejects.toThrow();
    const published = await opsAsync(
      'consent:publish',
      '--text-dir',
      dir,
      '--allow-missing',
      '--version',
      `e2e-no-ja-${Date.now()}`,
    );
    expect(published.consent_version.missing_locales).toEqual(['ja']);

    const { url, api, id } = await newVerification('estimation', 'test', { locale: 'ja' });
    const o = await open(browser, url);
    const ja = translator('ja');
    await expect(o.page.getByTestId('consent-english-only')).toHaveText(ja('consent.englishOnly'));
    await expect(o.page.getByTestId('consent-text')).toHaveAttribute('lang', 'en');
    expect(await o.page.getByTestId('consent-text').textContent()).toBe(texts.en);
    expect(await wcagViolations(o.page)).toEqual([]);
    // The API says the same: asked for Japanese, given the English text.
    expect((await api.json('GET', '/v1/consent?lang=ja')).data).toMatchObject({
      id: published.consent_version.id,
      locale: 'en',
    });
    await o.page.getByRole('button', { name: ja('consent.accept') }).click();
    await expect(o.page.getByTestId('step-title')).toHaveText(ja('selfie.title'));
    expect((await api.get(id)).consent.locale).toBe('en');
    await o.context.close();
  } finally {
    // Every other test expects the consent in all its languages again.
    for (const [l, text] of Object.entries(texts)) fs.writeFileSync(path.join(dir, `${l}.txt`), text);
    await opsAsync('consent:publish', '--text-dir', dir, '--version', `e2e-all-${Date.now()}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
