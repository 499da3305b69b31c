// The one codec of topic values: every producer encodes and every consumer decodes through the codec on
// its ServiceContext, built once per instance by createCodec. What a topic's values are is declared with
// the topic (platform/topics.ts). JSON topics are plain JSON text, or with PSS_SCHEMA_REGISTRY_URL set, the
// Confluent wire format (wire-format.ts) carrying an id the registry holds for the topic's subject.
// ais.positions values may also be a compact binary frame (position-binary.ts, PSS_POSITION_FORMAT): the
// codec writes it only without a registry (whose subjects describe JSON), and reads it whatever it writes,
// as it reads JSON whatever it writes, so instances can switch formats with old values still on the topic.
import type { VesselPosition } from '../../schemas/ais.ts';
import { counter } from '../metrics.ts';
import { TOPICS, type TopicId, type TopicValue, type ValueFormat } from '../topics.ts';
import { SchemaRegistryClient } from './schema-registry.ts';
import { BINARY_MARKER, BinaryFrameError, decodePosition, encodePosition } from './position-binary.ts';
import { TopicSchemas } from './topic-schemas.ts';
import { bodyOf, frame, isFramed, schemaIdOf } from './wire-format.ts';

const CODEC_ERROR_CODES = [
  'wrong_magic_byte', 'truncated', 'unknown_schema_id', 'unexpected_wire_format', 'not_json',
  'unknown_format_version', 'malformed', 'unexpected_binary_format',
] as const;
type CodecErrorCode = (typeof CODEC_ERROR_CODES)[number];

/** How ais.positions values are written (PSS_POSITION_FORMAT); both are always read. */
export type PositionFormat = 'json' | 'binary';

/** A value that cannot be read. A retry cannot help: the consumer counts it, logs it and skips the record. */
class CodecError extends Error {
  readonly retryable = false;
  constructor(
    readonly code: CodecErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CodecError';
  }
}

/** A batch, decoded: each record with its value, or with the reason it could not be read. */
interface Decoded<R, V> {
  values: { record: R; value: V }[];
  failures: { record: R; error: CodecError }[];
}

// Every topic whose values the codec reads (not the raw text topics) with every reason, at zero.
const DECODED_TOPICS = Object.values(TOPICS).filter((t) => !('text' in t.value)).map((t) => t.name);
const unreadable = counter('pss_topic_values_unreadable_total', 'Record values the codec could not read (skipped by their consumer)', ['topic', 'reason'], { topic: DECODED_TOPICS, reason: CODEC_ERROR_CODES });

/** Bytes JSON text may start with besides printable characters (RFC 8259 whitespace). */
const JSON_WHITESPACE = new Set([0x09, 0x0a, 0x0d]);

export class TopicCodec {
  readonly #binary: boolean;

  /**
   * Without `schemas` values are plain JSON, positions binary when `positionFormat` says so; with them, the
   * wire format (createCodec builds them).
   */
  constructor(
    private readonly schemas?: TopicSchemas,
    positionFormat: PositionFormat = 'json',
  ) {
    this.#binary = schemas === undefined && positionFormat === 'binary';
  }

  encode<T extends TopicId>(topic: T, value: TopicValue<T>): string | Buffer {
    const format: ValueFormat = TOPICS[topic].value;
    if ('text' in format) return Buffer.from(value as string, format.text);
    // A value the binary form cannot carry exactly (not schema-valid) is written as JSON.
    if (this.#binary && format.binary === 'position') return encodePosition(value as VesselPosition) ?? JSON.stringify(value);
    return this.encodeJsonText(topic, JSON.stringify(value));
  }

  /**
   * A value that is already JSON text of the topic's type (a jsonb column read as text), framed as encode()
   * frames it: a relay forwarding stored values does not parse and re-serialise each one.
   */
  encodeJsonText<T extends TopicId>(topic: T, json: string): string | Buffer {
    return this.schemas === undefined ? json : frame(this.schemas.writeId(topic), json);
  }

  /**
   * Decodes a batch of one topic's records. Values are trusted as their producer validated them (ingest);
   * only the framing and, in the wire format, the schema id are checked. Ids not seen before are looked up
   * in the registry once per batch; a registry that cannot be reached rejects the whole batch (retryable).
   * In registry mode plain JSON is read too: compacted topics keep what was written before the switch.
   */
  async decode<T extends TopicId, R extends { value: string | Buffer }>(topic: T, records: readonly R[]): Promise<Decoded<R, TopicValue<T>>> {
    const format: ValueFormat = TOPICS[topic].value;
    if (this.schemas !== undefined && 'schema' in format) await this.schemas.learn(topic, this.#unknownIds(topic, records));
    const decoded: Decoded<R, TopicValue<T>> = { values: [], failures: [] };
    for (const record of records) {
      try {
        decoded.values.push({ record, value: this.decodeValue(topic, record.value) });
      } catch (err) {
        if (!(err instanceof CodecError)) throw err;
        unreadable.inc({ topic: TOPICS[topic].name, reason: err.code });
        decoded.failures.push({ record, error: err });
      }
    }
    return decoded;
  }

  /**
   * One value, checked against the schema ids known so far; throws a CodecError. Consumers use decode(),
   * which first looks up the ids it has not seen.
   */
  decodeValue<T extends TopicId>(topic: T, value: string | Buffer): TopicValue<T> {
    const format: ValueFormat = TOPICS[topic].value;
    if ('text' in format) return (typeof value === 'string' ? value : value.toString(format.text)) as TopicValue<T>;
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    if (isFramed(bytes)) return parseJson(this.#unframe(topic, bytes)) as TopicValue<T>;
    const first = bytes[0];
    if (first === BINARY_MARKER) return readBinary(topic, format, bytes) as TopicValue<T>;
    if (first !== undefined && first < 0x20 && !JSON_WHITESPACE.has(first)) {
      throw new CodecError('wrong_magic_byte', `first byte 0x${first.toString(16).padStart(2, '0')} is neither the wire format's magic byte 0, the binary frame's 1, nor the start of JSON text`);
    }
    return parseJson(bytes.toString('utf8')) as TopicValue<T>;
  }

  #unframe(topic: TopicId, bytes: Buffer): string {
    if (this.schemas === undefined) {
      throw new CodecError('unexpected_wire_format', 'the value is in the Confluent wire format, but no schema registry is configured (PSS_SCHEMA_REGISTRY_URL)');
    }
    const id = schemaIdOf(bytes);
    if (id === undefined) throw new CodecError('truncated', `${bytes.length} bytes, shorter than the wire format's 5-byte header`);
    if (!this.schemas.isKnown(topic, id)) throw new CodecError('unknown_schema_id', `schema id ${id} is not registered for ${TOPICS[topic].name}`);
    return bodyOf(bytes);
  }

  #unknownIds(topic: TopicId, records: readonly { value: string | Buffer }[]): Set<number> {
    const ids = new Set<number>();
    for (const { value } of records) {
      if (typeof value === 'string' || !isFramed(value)) continue;
      const id = schemaIdOf(value);
      if (id !== undefined && !this.schemas?.isKnown(topic, id)) ids.add(id);
    }
    return ids;
  }
}

function readBinary(topic: TopicId, format: ValueFormat, bytes: Buffer): unknown {
  if (!('binary' in format)) throw new CodecError('unexpected_binary_format', `a binary frame (first byte 1), but ${TOPICS[topic].name} values are JSON`);
  try {
    return decodePosition(bytes);
  } catch (err) {
    if (err instanceof BinaryFrameError) throw new CodecError(err.reason, err.message, { cause: err });
    throw err;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CodecError('not_json', `not JSON text: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The codec of one service instance: plain JSON (positions as `positionFormat` says), or with a registry URL
 * the wire format, after registering every JSON topic's schema (idempotent, so every instance and restart
 * does it).
 */
export async function createCodec(registryUrl: string, topics: Record<TopicId, string>, positionFormat: PositionFormat = 'binary'): Promise<TopicCodec> {
  if (registryUrl === '') return new TopicCodec(undefined, positionFormat);
  return new TopicCodec(await TopicSchemas.register(new SchemaRegistryClient(registryUrl), topics));
}
