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
  return (errors ?? []).map((e) => ({ location, path: pointer(e), message: describe(e) }));
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
