/**
 * A server action of the admin area, written once: who may call it, its form read through a zod schema (every
 * action validates before lib/ does), then the work, whose DomainError becomes the form's message and whose
 * `{ redirect }` is followed (outside the try, as Next.js requires).
 */
import { redirect } from 'next/navigation';
import type { z } from 'zod';
import { DomainError, parseOrThrow } from '@/lib/core/errors';
import { assertStorableText, isStorableText } from '@/lib/core/input-text';
import type { Actor } from '@/lib/domain/admin/access';
import { requireSession } from '@/app/admin/_auth/current';
import { INVALID_FORM, type FormAction, type FormState } from '@/components/admin/form-state';

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
export const storableForm = (form: FormData) =>
  Object.entries(formFields(form)).every(([k, v]) => isStorableText(k) && isStorableText(v));

/** A DomainError as form state; anything else is rethrown (Next shows its error page, never a stack trace). */
export function asFormState(e: unknown): FormState {
  if (!(e instanceof DomainError)) throw e;
  // As plain JSON: zod's field lists have a null prototype, which React refuses to pass to a client component.
  const details =
    e.details === undefined ? undefined : (JSON.parse(JSON.stringify(e.details)) as Record<string, unknown>);
  const fields = (details as { fields?: Record<string, string[]> } | undefined)?.fields;
  return { ok: false, message: e.message, fields, details };
}

/**
 * Who may call an action: any signed-in admin whose second factor is done (`actor`, the default), or also one who
 * must still set up a second factor (`enrolling`: the account page's own actions). What each may do in a workspace
 * is checked by lib/domain/admin, with the actor.
 */
export type Caller = 'actor' | 'enrolling';

/** An action's outcome: what the form shows, or the page to go to. */
export type Outcome<S> = S | { redirect: string };

export function formAction<Schema extends z.ZodType, S extends FormState = FormState>(
  schema: Schema,
  run: (input: z.infer<Schema>, actor: Actor) => Promise<Outcome<NoInfer<S>>>,
  opts: { caller?: Caller; keepValues?: boolean } = {},
): FormAction<S> {
  return async (_state, form) => {
    const { actor } = await requireSession({ allowEnrol: opts.caller === 'enrolling' });
    let to: string;
    try {
      const r = await run(formInput(schema, form), actor);
      if (!r || !('redirect' in r)) return r;
      to = r.redirect;
    } catch (e) {
      // A long form (settings) is shown again as typed, with the message.
      return (opts.keepValues ? { ...asFormState(e), values: formFields(form) } : asFormState(e)) as S;
    }
    redirect(to);
  };
}
