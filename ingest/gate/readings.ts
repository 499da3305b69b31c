// Gate readings: validate one input item against schemas/gate-reading.ts, add the findings the gate
// processor needs, and build its gate.readings record (key: gate) or its dead-letter record.
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { OutRecord } from '../../platform/kafka/index.ts';
import type { TopicId } from '../../platform/topics.ts';
import { gateReadingSchema, type GateFinding, type GateReading, type GateReadingRecord } from '../../schemas/gate-reading.ts';
import { deadLetter } from '../dead-letter.ts';
import { compileSchema, describeErrors } from '../validation.ts';
import { checkContainerId } from './iso6346.ts';

const validateReading = compileSchema<GateReading>(gateReadingSchema);

export function findingsOf(reading: GateReading): GateFinding[] {
  const id = reading.container?.id;
  if (id === undefined) return [];
  switch (checkContainerId(id)) {
    case 'valid':
      return [];
    case 'check_digit_invalid':
      return ['container_check_digit_invalid'];
    case 'malformed':
      return ['container_id_malformed'];
  }
}

type GateRejectReason = 'reading_invalid' | 'invalid_json' | 'record_too_large';

export type GateOutcome =
  | { accepted: true; record: OutRecord; reading: GateReadingRecord }
  | { accepted: false; record: OutRecord; reason: GateRejectReason; detail: string };

export interface GateContext {
  topics: Record<TopicId, string>;
  codec: TopicCodec;
  source: string;
  /** Largest reading, as JSON text: a larger one is rejected as record_too_large before it is parsed or validated. */
  maxItemBytes: number;
  now: () => number;
  /** Told `<gate>/<lane>` of every accepted reading (lane silence, docs/operations.md), when watched. */
  heardLane?: (lane: string) => void;
}

/** One item: a parsed JSON value (HTTP) or the text of a raw-topic record. Never throws. */
export function processGateItem(item: unknown, ctx: GateContext): GateOutcome {
  const at = new Date(ctx.now()).toISOString();
  const size = typeof item === 'string' ? item.length : rawText(item).length;
  if (size > ctx.maxItemBytes) return reject(ctx, rawText(item), at, 'record_too_large', `reading of ${size} characters (as JSON); at most ${ctx.maxItemBytes} are accepted`);
  let value = item;
  if (typeof item === 'string') {
    try {
      value = JSON.parse(item);
    } catch (err) {
      return reject(ctx, item, at, 'invalid_json', `not JSON: ${(err as Error).message}`);
    }
  }
  if (!validateReading(value)) return reject(ctx, rawText(item), at, 'reading_invalid', describeErrors(validateReading.errors));
  const reading: GateReadingRecord = { ...value, source: ctx.source, received_at: at, findings: findingsOf(value) };
  const record: OutRecord = { topic: ctx.topics.gateReadings, key: value.gate, value: ctx.codec.encode('gateReadings', reading) };
  ctx.heardLane?.(`${value.gate}/${value.lane}`);
  return { accepted: true, record, reading };
}

function reject(ctx: GateContext, raw: string, at: string, reason: GateRejectReason, detail: string): GateOutcome {
  const letter = deadLetter({ feed: 'gate', raw: [raw], source: ctx.source, reason, detail, at });
  return { accepted: false, reason, detail, record: { topic: ctx.topics.deadLetter, key: ctx.source, value: ctx.codec.encode('deadLetter', letter) } };
}

function rawText(item: unknown): string {
  if (typeof item === 'string') return item;
  try {
    return JSON.stringify(item) ?? String(item);
  } catch {
    return String(item);
  }
}
