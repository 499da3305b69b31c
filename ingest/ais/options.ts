// Decoder options, validated once at construction (a bad option throws naming itself).
import { Ajv } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';

export const DEFAULT_FRAGMENT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_PENDING_GROUPS = 10_000;
/**
 * Longest line decoded. A sentence is at most 82 characters (IEC 61162-1); tag blocks and receiver fields
 * add a few dozen (the longest line of our real recordings, a gpsd comment, has 659). Longer lines are
 * rejected as line_too_long before any parsing, so no input line makes a large record or costs much work.
 */
export const DEFAULT_MAX_LINE_LENGTH = 4096;
/** Characters of fragment lines held per decoder while their messages are incomplete. */
export const DEFAULT_MAX_PENDING_BYTES = 128 * 1024;
export const aisDecoderSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source'],
  properties: {
    /** Name of the feed; copied into every result and part of the fragment key. */
    source: { type: 'string', minLength: 1 },
    /** Reject lines whose tag block has a missing or wrong checksum (default true). */
    strictTagBlocks: { type: 'boolean' },
    /** How long an incomplete multi-sentence message waits for its other fragments. */
    fragmentTimeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    /** Upper bound on incomplete messages held; the oldest is rejected when a new one would exceed it. */
    maxPendingGroups: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    /** Upper bound on the characters of the fragments held; the oldest messages are rejected to stay within it. */
    maxPendingBytes: { type: 'integer', minimum: 1, maximum: 1_073_741_824 },
    /** Lines longer than this (in characters) are rejected as line_too_long. */
    maxLineLength: { type: 'integer', minimum: 16, maximum: 16_777_216 },
  },
} as const;

export type AisDecoderSettings = FromSchema<typeof aisDecoderSettingsSchema>;

export type AisDecoderOptions = AisDecoderSettings & {
  /** Clock in epoch milliseconds; the decoder reads no other clock. */
  now: () => number;
};

export interface ResolvedOptions {
  readonly source: string;
  readonly now: () => number;
  readonly strictTagBlocks: boolean;
  readonly fragmentTimeoutMs: number;
  readonly maxPendingGroups: number;
  readonly maxPendingBytes: number;
  readonly maxLineLength: number;
}

let validate: ReturnType<Ajv['compile']> | undefined;

export function resolveOptions(options: AisDecoderOptions): ResolvedOptions {
  const { now, ...given } = options;
  // An option passed as undefined means "the default", as if it were absent.
  const settings = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as AisDecoderSettings;
  validate ??= new Ajv({ allErrors: true }).compile(aisDecoderSettingsSchema);
  if (!validate(settings)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || 'options'} ${e.message ?? 'is invalid'}`);
    throw new TypeError(`invalid AIS decoder options: ${problems.join('; ')}`);
  }
  if (typeof now !== 'function') throw new TypeError('invalid AIS decoder options: now must be a function returning epoch ms');
  return {
    source: settings.source,
    now,
    strictTagBlocks: settings.strictTagBlocks ?? true,
    fragmentTimeoutMs: settings.fragmentTimeoutMs ?? DEFAULT_FRAGMENT_TIMEOUT_MS,
    maxPendingGroups: settings.maxPendingGroups ?? DEFAULT_MAX_PENDING_GROUPS,
    maxPendingBytes: settings.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES,
    maxLineLength: settings.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH,
  };
}
