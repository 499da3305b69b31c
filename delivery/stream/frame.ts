// A WebSocket text frame (RFC 6455 section 5.2) as a server sends it: FIN, opcode 1, unmasked. The hub frames
// an event once and writes the same bytes to every client that takes it uncompressed, instead of having the
// library frame it again for each (docs/benchmarks.md: where the time goes, Stream).

export function textFrame(payload: Buffer): Buffer {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81;
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerLength);
  return frame;
}
