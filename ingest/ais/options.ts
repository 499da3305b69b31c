// Decoder options, validated once at construction (a bad option throws naming itself).
import { Ajv } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';

export const DEFAULT_FRAGMENT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_PENDING_GROUPS = 10_000;
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
}

let validate: ReturnType<Ajv['compile']> | undefined;

export function resolveOptions(options: AisDecoderOptions): ResolvedOptions {
  const { now, ...settings } = options;
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
  };
}
