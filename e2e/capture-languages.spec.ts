/**
 * The capture page in each of its sixteen languages (docs/capture-page.md), in Debian's Chromium on a 360 px phone
 * with the fake camera: the quickest flow (consent → live selfie, with the digital ID offer beside it → submit → in
 * review), at every step zero WCAG 2.2 AA violations (axe-core, every impact), no text out of its box, no English;
 * right to left for Arabic and Hebrew (mirrored progress, arrow and wallet offer, the camera preview as in every
 * language), the fonts each script needs, the consent accepted in that language, and only that language's catalogue
 * sent. One browser context per language.
 */
import { expect, test, type Response } from '@playwright/test';
import { LOCALES, dirOf, type Locale } from '../lib/core/i18n/locales';
import { apiClient } from '../test/helpers/api-client';
import { SCRIPT_FONTS } from '../test/setup/provision.mjs';
import { cameraLaunch, FACE_Y4M, opsAsync, state } from './env';
import {
  catalogue,
  englishOn,
  mirrored,
  overflowing,
  platformFonts,
  textStartSide,
  translator,
  wcagViolations,
} from './languages';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

/** The font Chromium must draw each script with (provisioned from Debian: test/setup/provision.mjs). */
const SCRIPT_FONT: Partial<Record<Locale, string>> = SCRIPT_FONTS;
const PHONE = { width: 360, height: 740 };

let ws: { apiKey: string; test: string };

test.beforeAll(async () => {
  // An age workspace that offers a digital ID wallet (docs/wallet.md): Chromium has the Digital Credentials API, so
  // the offer stands beside the selfie in every language and its words are checked with the rest of the page.
  const c = await opsAsync('workspace:create', '--name', 'e2e languages');
  await opsAsync(
    'workspace:settings',
    '--workspace',
    c.workspace.id,
    '--rate-limit-per-minute',
    '100000',
    '--wallet',
    'offer',
  );
  ws = { apiKey: c.workspace.api_key, test: c.secret_keys.find((k: { mode: string }) => k.mode === 'test').secret };
});

async function newVerification(body: object) {
  const api = apiClient(state().base, ws.apiKey, ws.test);
  const r = await api.json('POST', '/v1/verifications', JSON.stringify(body));
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return { id: r.data.id as string, url: r.data.url as string, api };
}

for (const locale of LOCALES) {
  test(`${locale}: consent, live selfie and submit on a 360 px phone, accessible and in ${locale} only`, async ({
    browser,
  }) => {
    const started = Date.now();
    const t = translator(locale);
    // The browser asks for English: the verification's locale (given at creation) comes first.
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await context.newPage();
    const sent: Promise<string>[] = [];
    page.on('response', (r: Response) => {
      const type = r.request().resourceType();
      if (type === 'document' || type === 'script' || type === 'fetch') sent.push(r.text().catch(() => ''));
    });
    const { id, url, api } = await newVerification({ locale, return_url: 'https://shop.example.com/done' });

    const check = async (step: string) => {
      expect({ step, violations: await wcagViolations(page) }).toEqual({ step, violations: [] });
      expect({ step, overflow: await overflowing(page) }).toEqual({ step, overflow: [] });
      expect({ step, english: await englishOn(page, locale) }).toEqual({ step, english: [] });
    };

    await page.goto(url);
    // <html lang dir> as the server rendered them.
    await expect(page.locator('html')).toHaveAttribute('lang', locale);
    await expect(page.locator('html')).toHaveAttribute('dir', dirOf(locale));
    await expect(page.getByTestId('step-title')).toHaveText(t('steps.consent'));
    await expect(page.getByTestId('consent-text')).toBeVisible();
    // The consent text in this language, exactly the bytes of its own URL (GET /v1/consent?lang=…).
    const consent = (await api.json('GET', `/v1/consent?lang=${encodeURIComponent(locale)}`)).data;
    expect(consent.locale).toBe(locale);
    const text = await (await fetch(consent.url.replace(/^https?:\/\/[^/]+/, new URL(url).origin))).text();
    expect(await page.getByTestId('consent-text').textContent()).toBe(text);
    await expect(page.getByTestId('consent-text')).toHaveAttribute('lang', locale);
    if (SCRIPT_FONT[locale]) expect(await platformFonts(page, 'h1')).toContain(SCRIPT_FONT[locale]);
    await check('consent');
    await page.getByRole('button', { name: t('consent.accept') }).click();

    await expect(page.getByTestId('step-title')).toHaveText(t('selfie.title'));
    const capture = page.getByRole('button', { name: t('camera.capture') });
    await expect(capture).toBeEnabled({ timeout: 30_000 });
    // The preview is a selfie mirror in every language: right to left does not flip it again.
    expect(await mirrored(page.getByTestId('camera'))).toBe(true);
    if (dirOf(locale) === 'rtl') {
      // The progress runs from the right: its first step is right of its last.
      const steps = page.getByTestId('progress').locator('li');
      const [first, last] = [await steps.first().boundingBox(), await steps.last().boundingBox()];
      expect(first!.x).toBeGreaterThan(last!.x);
    }
    // The digital ID offer, in this language, reads from the side its text starts on (right to left: the right).
    const offer = page.getByTestId('wallet-offer');
    await expect(offer.getByRole('heading', { name: t('wallet.title') })).toBeVisible();
    await expect(offer.getByRole('button', { name: t('wallet.use') })).toBeVisible();
    await expect(offer).toContainText(t('wallet.intro', { age: 18 }));
    const start = dirOf(locale) === 'rtl' ? 'right' : 'left';
    expect([await textStartSide(offer.getByRole('heading')), await textStartSide(offer.locator('p').first())]).toEqual([
      expect.stringMatching(`${start}|both`),
      expect.stringMatching(`${start}|both`),
    ]);
    await check('selfie');
    await capture.click();
    await page.getByRole('button', { name: t('camera.usePhoto') }).click();

    await expect(page.getByTestId('step-title')).toHaveText(t('review.title'));
    await check('review');
    await page.getByRole('button', { name: t('review.submit'), exact: true }).click();

    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
    await expect(page.getByTestId('step-title')).toHaveText(t('result.review'));
    const back = page.getByRole('link', { name: t('result.backTo', { host: 'shop.example.com' }) });
    await expect(back).toBeVisible();
    // The forward arrow points the way the text reads.
    expect(await mirrored(back.getByTestId('forward-icon'))).toBe(dirOf(locale) === 'rtl');
    await check('result');

    // The acceptance recorded the language read; the integrator's locale came back as given, negotiated.
    const v = await api.get(id);
    expect([v.status, v.locale, v.consent.locale, v.consent.version_id]).toEqual([
      'review',
      locale,
      locale,
      consent.id,
    ]);

    // Only this language's catalogue reached the browser: another language's words are in none of the responses.
    const body = (await Promise.all(sent)).join('\n');
    const words = (l: Locale) => JSON.stringify(catalogue(l)['stepUp.continue']).slice(1, -1);
    expect(body).toContain(words(locale));
    expect(LOCALES.filter((l) => l !== locale && body.includes(words(l)))).toEqual([]);
    await context.close();
    console.log(`capture page in ${locale}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
}
