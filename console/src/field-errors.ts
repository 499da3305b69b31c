// The API's validation details (422: {path, message} in the validator's words) said plainly, each beside
// the field it is about (pure; show-errors.ts puts them on a form). A detail no field claims is shown above
// the buttons in the API's words.
import { ApiError } from './api.ts';

export interface FieldRule {
  /** The JSON pointer of the body field (/resolution_reason). */
  path: string;
  /** What to say, from the validator's message. */
  say: (message: string) => string;
}

export interface PlainErrors {
  /** By path: the plain sentence for that field. */
  fields: Map<string, string>;
  /** What no field claims: a sentence to show above the buttons. */
  general: string | undefined;
}

/** Sorts an error into sentences for fields and one for the form. */
export function plainErrors(err: unknown, rules: readonly FieldRule[], fallback: string): PlainErrors {
  const fields = new Map<string, string>();
  if (!(err instanceof ApiError)) return { fields, general: fallback };
  const left: string[] = [];
  for (const d of err.details) {
    const rule = rules.find((r) => r.path === d.path);
    if (rule && !fields.has(rule.path)) fields.set(rule.path, rule.say(d.message ?? ''));
    else if (!rule) left.push(`${d.path ?? ''} ${d.message ?? ''}`.trim());
  }
  const general = fields.size > 0 && left.length === 0 ? undefined : left.length ? `${err.message} (${left.join('; ')})` : err.message;
  return { fields, general };
}

/** Minimum and maximum lengths as the validator words them (ajv: "must NOT have fewer than 10 characters"). */
export const tooShort = (message: string) => /fewer than|minLength|shorter/i.test(message);
export const tooLong = (message: string) => /more than|maxLength|longer/i.test(message);

