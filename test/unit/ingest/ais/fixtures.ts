// Test helper: the real AIS fixtures copied into the repo (test/fixtures/ais, see its NOTICE).
import { readFileSync, readdirSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  aisRejectSchema, aisSkipSchema, nonVesselReportSchema, vesselPositionSchema, vesselStaticSchema, type AisDecodeResult,
} from '../../../../schemas/ais.ts';
import { createAisDecoder, DEFAULT_FRAGMENT_TIMEOUT_MS } from '../../../../ingest/ais/index.ts';

export const FIXTURES = new URL('../../../fixtures/ais/', import.meta.url);

export function fixtureLogs(): string[] {
  return readdirSync(FIXTURES).filter((name) => name.startsWith('real-nmea-')).sort();
}

/** The log as one string, byte for byte (latin1 keeps any stray non-ASCII byte as one character). */
export function readLog(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'latin1');
}

export const FIXED_NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

/** Pushes a whole log file as one chunk, as a TCP read might deliver it, then expires leftovers. */
export function decodeLog(name: string, strictTagBlocks = true): AisDecodeResult[] {
  let now = FIXED_NOW;
  const decoder = createAisDecoder({ source: name, now: () => now, strictTagBlocks });
  const results = decoder.push(readLog(name));
  now += DEFAULT_FRAGMENT_TIMEOUT_MS;
  return [...results, ...decoder.expire()];
}

// ajv-formats is CommonJS; its default export is the plugin under both Node and Vite interop.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;
// The same dialect and strictness as ingest/validation.ts.
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));

const validators = {
  position: ajv.compile(vesselPositionSchema),
  static: ajv.compile(vesselStaticSchema),
  non_vessel: ajv.compile(nonVesselReportSchema),
  reject: ajv.compile(aisRejectSchema),
  skip: ajv.compile(aisSkipSchema),
} as const;

/** Schema errors for one result, or [] when it is valid. */
export function schemaErrors(result: AisDecodeResult): string[] {
  const validate = validators[result.kind];
  const data: unknown = result;
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => `${result.kind}${e.instancePath} ${e.message ?? ''}`);
}
