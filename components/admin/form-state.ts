/** What an admin form shows after its server action, shared by the actions (app/admin) and the forms that render it. */

/** The message of a form refused for its fields: the form then lists the fields' own messages. */
export const INVALID_FORM = 'The form has invalid fields.';

/** What a form shows after its action: a message, and for validation errors the fields concerned. */
export type FormState =
  | {
      ok?: boolean;
      message?: string;
      fields?: Record<string, string[]>;
      details?: Record<string, unknown>;
      values?: Record<string, string>;
    }
  | undefined;

/** A second factor's confirmation or renewal: the new recovery codes, shown once. */
export type RecoveryState = (FormState & { recoveryCodes?: string[] }) | undefined;

/** A server action as a form calls it (React's useActionState). */
export type FormAction<S = FormState> = (state: S, form: FormData) => Promise<S>;
