import type { z } from 'zod';
import { validationError } from './errors';

/** Parses with a zod schema; failures become VALIDATION_ERROR with details.fields = { field: [messages] }. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, message?: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const fields: Record<string, string[]> = {};
  for (const issue of r.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) (fields[[...issue.path, k].join('.')] ??= []).push('Unknown field.');
      continue;
    }
    const key = issue.path.length ? issue.path.join('.') : 'body';
    (fields[key] ??= []).push(issue.message);
  }
  throw validationError(fields, message);
}
