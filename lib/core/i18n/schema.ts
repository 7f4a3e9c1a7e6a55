/**
 * A language given to the API (`locale` on create, `lang` on GET /v1/consent): a well-formed BCP 47 tag that
 * negotiates to one of the capture page's languages (`fr-CA` → `fr`), else 422 VALIDATION_ERROR on the field.
 */
import { z } from 'zod';
import { canonicalTag, LOCALE_TAG_MAX, negotiate } from './negotiate';
import { LOCALES } from './locales';

export const supportedLocale = z
  .string({ error: 'Must be a BCP 47 language tag, e.g. fr or fr-CA.' })
  .max(LOCALE_TAG_MAX, `Must be a BCP 47 language tag of at most ${LOCALE_TAG_MAX} characters.`)
  .transform((tag, ctx) => {
    if (canonicalTag(tag) === null) {
      ctx.addIssue({ code: 'custom', message: 'Must be a well-formed BCP 47 language tag, e.g. fr or fr-CA.' });
      return z.NEVER;
    }
    const locale = negotiate([tag]);
    if (!locale) {
      ctx.addIssue({
        code: 'custom',
        message: `Not a supported language. Supported: ${LOCALES.join(', ')} (a regional tag of one works too, e.g. fr-CA).`,
      });
      return z.NEVER;
    }
    return locale;
  })
  .describe(`A BCP 47 language tag negotiating to one of: ${LOCALES.join(', ')} (e.g. fr-CA → fr).`);
