// How record values are written: plain JSON, or (when PSS_SCHEMA_REGISTRY_URL is set) the Confluent
// wire format: byte 0 = 0 (magic), bytes 1-4 = schema id (big-endian), then the JSON text. The schemas
// come from schemas/ and are registered once per topic under the subject `<topic>-value`.
import type { TopicId } from '../platform/topics.ts';
import { nonVesselReportSchema, vesselPositionSchema, vesselStaticSchema } from '../schemas/ais.ts';
import { deadLetterSchema } from '../schemas/dead-letter.ts';
import { gateReadingRecordSchema } from '../schemas/gate-reading.ts';

export interface ValueEncoder {
  encode(topic: TopicId, value: object): string | Buffer;
}

export const jsonEncoder: ValueEncoder = {
  encode: (_topic, value) => JSON.stringify(value),
};

/** The JSON Schema of every topic the ingest writes. */
export const TOPIC_SCHEMAS: Partial<Record<TopicId, object>> = {
  aisPositions: vesselPositionSchema,
  aisStatic: vesselStaticSchema,
  aisStations: nonVesselReportSchema,
  gateReadings: gateReadingRecordSchema,
  deadLetter: deadLetterSchema,
};

export const WIRE_MAGIC_BYTE = 0;

export function toWireFormat(schemaId: number, json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const out = Buffer.allocUnsafe(5 + body.length);
  out.writeUInt8(WIRE_MAGIC_BYTE, 0);
  out.writeUInt32BE(schemaId, 1);
  body.copy(out, 5);
  return out;
}

export function fromWireFormat(buffer: Buffer): { schemaId: number; value: unknown } {
  if (buffer.length < 5 || buffer.readUInt8(0) !== WIRE_MAGIC_BYTE) throw new TypeError('not in the Confluent wire format');
  return { schemaId: buffer.readUInt32BE(1), value: JSON.parse(buffer.subarray(5).toString('utf8')) };
}

/** Encodes with known schema ids (see schema-registry.ts for how they are obtained). */
export function wireEncoder(schemaIds: Partial<Record<TopicId, number>>): ValueEncoder {
  return {
    encode(topic, value) {
      const id = schemaIds[topic];
      if (id === undefined) throw new Error(`no schema registered for topic ${topic}`);
      return toWireFormat(id, JSON.stringify(value));
    },
  };
}
