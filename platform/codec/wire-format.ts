// The Confluent wire format: byte 0 is the magic byte 0, bytes 1-4 the schema id (unsigned, big-endian),
// then the serialized value, here JSON text. JSON text never starts with byte 0, so a reader can tell the
// two framings apart by the first byte alone.

const MAGIC_BYTE = 0;
const HEADER_BYTES = 5;

export function frame(schemaId: number, json: string): Buffer {
  const length = Buffer.byteLength(json, 'utf8');
  const out = Buffer.allocUnsafe(HEADER_BYTES + length);
  out.writeUInt8(MAGIC_BYTE, 0);
  out.writeUInt32BE(schemaId, 1);
  out.write(json, HEADER_BYTES, length, 'utf8');
  return out;
}

export function isFramed(value: Buffer): boolean {
  return value.length > 0 && value[0] === MAGIC_BYTE;
}

/** The schema id of a framed value, or undefined when the value is shorter than the header. */
export function schemaIdOf(value: Buffer): number | undefined {
  return value.length < HEADER_BYTES ? undefined : value.readUInt32BE(1);
}

export function bodyOf(value: Buffer): string {
  return value.toString('utf8', HEADER_BYTES);
}
