/**
 * The capture page's words for a refused upload (components/capture/api.ts advise): an unreadable document gets its own
 * advice in the page's language, never the general "Something went wrong".
 */
import fs from 'node:fs';
import path from 'node:path';
import { createTranslator } from 'next-intl';
import { describe, expect, it } from 'vitest';
import { advise } from './api';
import type { Locale } from '@/lib/core/i18n/locales';
import type { Translate } from './message-keys';

const translator = (locale: Locale) =>
  createTranslator({
    locale,
    messages: JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../../messages/${locale}.json`), 'utf8')),
  }) as unknown as Translate;

describe('advice for a refused upload', () => {
  it('DOCUMENT_UNREADABLE: lay it flat, fill the frame, tilt it away from the light', () => {
    expect(advise(translator('en'), { code: 'DOCUMENT_UNREADABLE' })).toBe(
      'We could not read your document. Lay the document flat, fill the frame, and tilt it away from the light so the code at the bottom has no glare.',
    );
  });
  it('DOCUMENT_UNREADABLE in German: the German advice', () => {
    expect(advise(translator('de'), { code: 'DOCUMENT_UNREADABLE' })).toBe(
      'Wir konnten Ihr Dokument nicht lesen. Legen Sie es flach hin, füllen Sie das Bild aus und kippen Sie es vom Licht weg, damit der Code unten nicht spiegelt.',
    );
  });
});
