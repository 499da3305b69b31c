// Public surface of the AIS decoder; adapters (TCP, UDP, file replay, HTTP) use only this.
export { createAisDecoder, type AisDecoder, type AisDecoderOptions } from './decoder.ts';
export { createLineSplitter, type LineSplitter } from './lines.ts';
export { describeShipType, type ShipTypeDescription } from './ship-types.ts';
export { aisDecoderSettingsSchema, DEFAULT_FRAGMENT_TIMEOUT_MS, DEFAULT_MAX_PENDING_GROUPS, type AisDecoderSettings } from './options.ts';
