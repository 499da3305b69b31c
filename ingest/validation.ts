// One ajv instance for everything ingest validates: decoded AIS reports, gate readings, request bodies.
// JSON Schema 2020-12 (the AIS schemas use `dependentRequired`), formats checked (date-time, uri).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
type FormatsPlugin = (ajv: Ajv2020, options?: { mode?: 'fast' | 'full' }) => Ajv2020;
const formatsModule = addFormatsPlugin as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule;

// strictRequired is off: `anyOf: [{required: [vehicle]}, {required: [container]}]` names properties declared beside it.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTuples: false, strictRequired: false });
// "fast" formats check date-time with one regular expression instead of parsing it: the full check cost
// 7 % of ingest CPU (bench/ingest.ts profile), and every date-time we validate is one we wrote ourselves or
// one a client sent that Date.parse-based consumers read anyway.
addFormats(ajv, { mode: 'fast' });

export type { ValidateFunction };

export function compileSchema<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

/** "/vehicle/plate_confidence must be <= 1; /gate is required" — for dead-letter details and HTTP answers. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => {
      const params = e.params as { missingProperty?: string; additionalProperty?: string };
      if (e.keyword === 'required') return `${e.instancePath}/${params.missingProperty ?? ''} is required`;
      if (e.keyword === 'additionalProperties') return `${e.instancePath}/${params.additionalProperty ?? ''} is not an allowed field`;
      return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}
