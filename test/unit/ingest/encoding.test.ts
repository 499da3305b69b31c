import { describe, expect, it } from 'vitest';
import { TOPIC_SCHEMAS, fromWireFormat, jsonEncoder, toWireFormat, wireEncoder } from '../../../ingest/encoding.ts';

describe('record value encodings', () => {
  it('writes plain JSON by default', () => {
    expect(jsonEncoder.encode('aisPositions', { mmsi: 1 })).toBe('{"mmsi":1}');
  });

  it('writes the Confluent wire format: magic byte 0, 4-byte big-endian schema id, then the JSON', () => {
    const buffer = toWireFormat(0x01020304, '{"a":"ø"}');
    expect([...buffer.subarray(0, 5)]).toEqual([0, 1, 2, 3, 4]);
    expect(buffer.subarray(5).toString('utf8')).toBe('{"a":"ø"}');
    expect(fromWireFormat(buffer)).toEqual({ schemaId: 0x01020304, value: { a: 'ø' } });
  });

  it('encodes each topic with its registered schema id and refuses a topic without one', () => {
    const encoder = wireEncoder({ aisPositions: 7, deadLetter: 9 });
    expect(fromWireFormat(encoder.encode('aisPositions', { mmsi: 2 }) as Buffer)).toEqual({ schemaId: 7, value: { mmsi: 2 } });
    expect(fromWireFormat(encoder.encode('deadLetter', { reason: 'x' }) as Buffer).schemaId).toBe(9);
    expect(() => encoder.encode('aisStatic', {})).toThrow(/no schema registered/);
  });

  it('rejects a buffer that is not in the wire format', () => {
    expect(() => fromWireFormat(Buffer.from('{"a":1}'))).toThrow(/wire format/);
  });

  it('has a schema for every topic the ingest writes', () => {
    expect(Object.keys(TOPIC_SCHEMAS).sort()).toEqual(['aisPositions', 'aisStatic', 'aisStations', 'deadLetter', 'gateReadings']);
  });
});
