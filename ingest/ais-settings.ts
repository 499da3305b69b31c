// The AIS decoder settings every ingest path (TCP, UDP, replay, HTTP, ais.raw) takes from the service
// configuration, so that the bounds on lines and pending fragments are the same wherever input enters.
import type { Config } from '../platform/config.ts';
import type { AisDecoderSettings } from './ais/index.ts';

export type AisSettings = Required<Pick<AisDecoderSettings, 'strictTagBlocks' | 'fragmentTimeoutMs' | 'maxLineLength' | 'maxPendingBytes'>>;

export function aisSettings(config: Config): AisSettings {
  return {
    strictTagBlocks: config.aisStrictTagBlocks,
    fragmentTimeoutMs: config.aisFragmentTimeoutMs,
    maxLineLength: config.aisMaxLineLength,
    maxPendingBytes: config.aisFragmentMaxBytes,
  };
}
