// Payload -> results. Types 1-27 are valid AIS (ITU-R M.1371-5); 0 and 28-63 are not. Decoded: 1, 2, 3,
// 18, 19, 27 (positions), 5, 19, 24 (static), 4, 21 (non-vessel). Other valid types are skipped with
// reason `unsupported_type`. A payload that ends before the last field we read is rejected
// (`bad_length`). The radio status / spare bits after it are not needed, so a type 1 that lost them
// (163 instead of 168 bits, seen from real transponders with wrong fill bits) still decodes; longer
// payloads are accepted and the extra bits ignored (real transponders pad types 1-4 and 18 to 204
// bits, and type 5 to 426-462).
import { decodeAidToNavigation, decodeBaseStation } from './non-vessel.ts';
import { decodeClassAPosition, decodeClassBPosition, decodeLongRangePosition } from './position.ts';
import { rejectMessage, skip, type Envelope, type Results } from './results.ts';
import type { Payload } from './sixbit.ts';
import { decodeClassBStaticA, decodeClassBStaticB, decodeExtendedClassBStatic, decodeStaticVoyage } from './static-data.ts';

/** Shortest accepted payload per decoded type: up to the last decoded field (type 24: per part). */
const MIN_BITS: Readonly<Record<number, number>> = { 1: 149, 2: 149, 3: 149, 4: 149, 5: 420, 18: 148, 19: 306, 21: 270, 27: 94 };
const TYPE_24_MIN_BITS = [160, 162] as const;
const MMSI_END = 38;

export function decodeMessage(p: Payload, env: Envelope, out: Results): void {
  if (p.bitLength < 6) return rejectMessage(out, env, 'bad_length', `payload has ${p.bitLength} bits, less than a message type`);
  const type = p.uint(0, 6);
  if (type === 0 || type > 27) return rejectMessage(out, env, 'invalid_type', `message type ${type} is not defined (1-27)`);
  if (p.bitLength < MMSI_END) return rejectMessage(out, env, 'bad_length', `type ${type} payload has ${p.bitLength} bits, too short for an MMSI`);
  const min = MIN_BITS[type];
  if (min !== undefined && p.bitLength < min) return rejectMessage(out, env, 'bad_length', `type ${type} needs ${min} bits, got ${p.bitLength}`);
  switch (type) {
    case 1:
    case 2:
    case 3:
      return decodeClassAPosition(p, env, type, out);
    case 4:
      return decodeBaseStation(p, env, out);
    case 5:
      return decodeStaticVoyage(p, env, out);
    case 18:
      return decodeClassBPosition(p, env, 18, out);
    case 19:
      decodeClassBPosition(p, env, 19, out);
      return decodeExtendedClassBStatic(p, env, out);
    case 21:
      return decodeAidToNavigation(p, env, out);
    case 24:
      return decodeClassBStatic(p, env, out);
    case 27:
      return decodeLongRangePosition(p, env, out);
    default:
      return skip(out, env.raw, env.source, env.received_at, 'unsupported_type', type, p.uint(8, 30));
  }
}

function decodeClassBStatic(p: Payload, env: Envelope, out: Results): void {
  if (p.bitLength < 40) return rejectMessage(out, env, 'bad_length', `type 24 payload has ${p.bitLength} bits, too short for a part number`);
  const part = p.uint(38, 2);
  if (part > 1) return rejectMessage(out, env, 'bad_payload', `type 24 part number ${part} is neither A (0) nor B (1)`);
  const min = TYPE_24_MIN_BITS[part] as number;
  if (p.bitLength < min) return rejectMessage(out, env, 'bad_length', `type 24 part ${part === 0 ? 'A' : 'B'} needs ${min} bits, got ${p.bitLength}`);
  return part === 0 ? decodeClassBStaticA(p, env, out) : decodeClassBStaticB(p, env, out);
}
