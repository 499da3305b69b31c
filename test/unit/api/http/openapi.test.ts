import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED, WORK_BOUNDED_WAITING } from '../../../support/work-bounded.ts';
import { openApiDocument, scopeTable, toOpenApi } from '../../../../api/http/openapi.ts';
import { apiRoutes } from '../../../../app/v1-routes.ts';
import { FEATURES } from '../../../../app/features.ts';
import { loadConfig } from '../../../../app/config.ts';

const config = loadConfig({});
const routes = apiRoutes(FEATURES, config);
const doc = openApiDocument(routes, config) as { paths: Record<string, Record<string, Record<string, unknown>>> };

/** Every schema object used by an operation: request bodies, parameters and responses. */
function schemasOf(document: typeof doc): unknown[] {
  const found: unknown[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'schema') found.push(v);
      else walk(v);
    }
  };
  walk(document.paths);
  return found;
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1', WORK_BOUNDED_WAITING, async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route with its scopes, plus the OAuth endpoints', () => {
    for (const route of routes) {
      const op = doc.paths[`/v1${route.path.replace(/:(\w+)/g, '{$1}')}`]?.[route.method];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op?.['x-required-scopes']).toEqual(route.public ? [] : route.scopes);
    }
    expect(doc.paths['/oauth/token']?.post).toBeDefined();
    expect(doc.paths['/oauth/authorize']?.get).toBeDefined();
  });

  it('uses schemas that are valid JSON Schema 2020-12', WORK_BOUNDED, () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schemas = schemasOf(doc).filter((s) => !(typeof s === 'object' && s !== null && '$ref' in s));
    expect(schemas.length).toBeGreaterThan(5);
    for (const schema of schemas) expect(() => ajv.compile(schema as object)).not.toThrow();
  });

  it('turns draft-07 tuples into prefixItems', () => {
    expect(toOpenApi({ type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false, $id: 'x' })).toEqual({
      type: 'array',
      prefixItems: [{ type: 'number' }, { type: 'number' }],
      items: false,
    });
  });

  it('turns draft-07 dependencies naming required fields into dependentRequired', () => {
    expect(toOpenApi({ type: 'object', dependencies: { lat: ['lng'], lng: ['lat'] } })).toEqual({ type: 'object', dependentRequired: { lat: ['lng'], lng: ['lat'] } });
  });
});

describe('the scope table', () => {
  it('lists every scope and every endpoint with the scopes that admit it', () => {
    const table = scopeTable(routes);
    expect(table).toContain('| `ingest:write` |');
    expect(table).toContain('| POST | `/v1/auth/api-keys` | `admin` |');
    expect(table).toContain('| GET | `/v1/auth/introspect` | any valid credential |');
    expect(table).toContain('| GET | `/v1/openapi.json` | none (public) |');
  });
});
