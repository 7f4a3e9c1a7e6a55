/** Reading a server action's FormData through a zod schema (every action validates before lib/ does). */
import type { z } from 'zod';
import { DomainError, parseOrThrow } from '@/lib/core/errors';
import { assertStorableText, isStorableText } from '@/lib/core/input-text';

export const INVALID_FORM = 'The form has invalid fields.';

export function formInput<S extends z.ZodType>(schema: S, form: FormData): z.infer<S> {
  const raw = formFields(form);
  // A NUL or an unpaired surrogate is a form error here, never a database error later (lib/core/input-text.ts).
  assertStorableText(raw, 'form', INVALID_FORM);
  return parseOrThrow(schema, raw, INVALID_FORM);
}

/** A form's text fields (the framework's own `$ACTION…` entries left out). */
export function formFields(form: FormData): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === 'string' && !k.startsWith('$ACTION')) raw[k] = v;
  return raw;
}

/** For the forms that answer every wrong input alike (signing in): true when every field can be stored. */
export const storableForm = (form: FormData) => Object.entries(formFields(form)).every(([k, v]) => isStorableText(k) && isStorableText(v));

/** What a form shows after its action: a message, and for validation errors the fields concerned. */
export type FormState = { ok?: boolean; message?: string; fields?: Record<string, string[]>; details?: Record<string, unknown>; values?: Record<string, string> } | undefined;

/** A DomainError as form state; anything else is rethrown (Next shows its error page, never a stack trace). */
export function asFormState(e: unknown): FormState {
  if (!(e instanceof DomainError)) throw e;
  // As plain JSON: zod's field lists have a null prototype, which React refuses to pass to a client component.
  const details = e.details === undefined ? undefined : (JSON.parse(JSON.stringify(e.details)) as Record<string, unknown>);
  const fields = (details as { fields?: Record<string, string[]> } | undefined)?.fields;
  return { ok: false, message: e.message, fields, details };
}
