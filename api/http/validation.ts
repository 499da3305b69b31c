import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { AppError } from '../../platform/errors.ts';

/**
 * Request validation with ajv from the JSON Schemas in schemas/. Bodies are checked as sent (no type
 * coercion); query strings and path parameters are text, so they are coerced to the schema's types.
 * Defaults in the schemas are filled in. Every problem is reported, not just the first.
 */

export type Location = 'body' | 'query' | 'params';

export interface Problem {
  location: Location;
  /** JSON Pointer into the part, e.g. "/scopes/0"; "" for the part itself. */
  path: string;
  message: string;
}

// ajv-formats is CommonJS with `exports.default`; under NodeNext the plugin function sits on `.default`.
const addFormats = formatsModule.default;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, discriminator: true, coerceTypes: coerce ? 'array' : false, strict: true, strictTuples: false });
  addFormats(ajv);
  return ajv;
}

const ajvBody = makeAjv(false);
const ajvText = makeAjv(true);

export function compile(location: Location, schema: object): ValidateFunction {
  const ajv = location === 'body' ? ajvBody : ajvText;
  // A schema with an $id is registered once per ajv instance; a second compile of it would throw.
  const id = (schema as { $id?: unknown }).$id;
  return (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
}

export function problems(location: Location, errors: ErrorObject[] | null | undefined): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const e of ofTheFormsUsed(errors ?? [])) {
    const problem = { location, path: pointer(e), message: describe(e) };
    const key = `${problem.path} ${problem.message}`;
    if (!seen.has(key)) out.push(problem);
    seen.add(key);
  }
  return out;
}

/** Places a module's own findings (path and message) in a part of the request, as a route's `check` answers them. */
export const locatedIn = (location: Location) => (p: { path: string; message: string }): Problem => ({ location, ...p });

/** Errors that say "this value is not of this form" rather than "this field of the form is wrong". */
const MISFIT_KEYWORDS = new Set(['required', 'additionalProperties', 'type']);

/**
 * A failed oneOf/anyOf makes ajv list the errors of every alternative. Keep only those of the form the
 * client used, the alternative whose shape (required and allowed fields, type) the value fits best:
 * `{days, hours: "25:00-26:00", timezone}` gets the error on `hours` alone, not "always_on is required"
 * and "days is not an allowed field" from the `{always_on}` form too. When the forms fit equally
 * badly, every error stays.
 */
function ofTheFormsUsed(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const alternatives of errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')) {
    // Two forms matched (oneOf): no form is wrong, the summary is the problem.
    if ((alternatives.params as { passingSchemas?: unknown }).passingSchemas) continue;
    const prefix = `${alternatives.schemaPath}/`;
    const formOf = (e: ErrorObject) => (e.schemaPath.startsWith(prefix) ? e.schemaPath.slice(prefix.length).split('/')[0] : undefined);
    const misfits = new Map<string, number>();
    for (const e of kept) {
      const form = formOf(e);
      if (form === undefined) continue;
      const misfit = e.instancePath === alternatives.instancePath && MISFIT_KEYWORDS.has(e.keyword) ? 1 : 0;
      misfits.set(form, (misfits.get(form) ?? 0) + misfit);
    }
    const fewest = Math.min(...misfits.values());
    const chosen = new Set([...misfits].filter(([, n]) => n === fewest).map(([form]) => form));
    if (chosen.size === misfits.size) continue;
    kept = kept.filter((e) => e !== alternatives && (formOf(e) === undefined || chosen.has(formOf(e) as string)));
  }
  return kept;
}

export function validationError(found: Problem[]): AppError {
  const summary = found.map((p) => `${p.location}${p.path} ${p.message}`).join('; ');
  return new AppError('validation_error', `Request is invalid: ${summary}`, found);
}

function pointer(e: ErrorObject): string {
  if (e.keyword === 'required') return `${e.instancePath}/${String((e.params as { missingProperty: string }).missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${e.instancePath}/${String((e.params as { additionalProperty: string }).additionalProperty)}`;
  return e.instancePath;
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not an allowed field';
    case 'enum':
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return e.message ?? 'is invalid';
  }
}
