// The items of POST /v1/ingest/ais, turned into records and per-item outcomes. Pure apart from the
// injected clock: the route does the I/O.
//   sentences: NMEA lines, decoded by a decoder of their own (fragments must arrive in the same request;
//              a message still incomplete at the end is rejected as orphan_fragment).
//   reports:   decoded reports as in schemas/ais.ts; the ingest sets `source` and `received_at`, fills
//              `kind` from msg_type, `raw` with the item's JSON and `reported_at` with the receive time
//              when they are absent, then validates. A reported_at more than MAX_REPORTED_AHEAD_MS after
//              the receive time is rejected as future_timestamp, as the decoder does for NMEA input. A
//              static report's `ship_type` gives its `ship_category` (and hazardous category) through the
//              decoder's table, so authorization by vessel type treats JSON and NMEA input alike; a
//              category that contradicts the code is rejected as report_invalid.
import type { OutRecord } from '../../platform/kafka/index.ts';
import { MAX_REPORTED_AHEAD_MS, type AisDecodeResult, type AisReport } from '../../schemas/ais.ts';
import { AisTally, type AisOutcome, type AisRecords } from '../ais-records.ts';
import { createAisDecoder, describeShipType } from '../ais/index.ts';
import { deadLetter } from '../dead-letter.ts';
import { ItemLedger, type ItemsOutcome } from './items.ts';

export interface AisItemsContext {
  source: string;
  records: AisRecords;
  strictTagBlocks: boolean;
  fragmentTimeoutMs: number;
  /** Longest line (decoder default when absent): longer ones are rejected as line_too_long. */
  maxLineLength?: number;
  /** Largest report, as JSON text: a larger one is rejected as record_too_large. */
  maxItemBytes: number;
  now: () => number;
}

const LINE_BREAKS = /\\r\\n|\r\n?|\n/;

export function sentenceItems(items: unknown[], ctx: AisItemsContext): ItemsOutcome & { tally: AisTally } {
  let clockOffset = 0;
  const decoder = createAisDecoder({ source: ctx.source, now: () => ctx.now() + clockOffset, strictTagBlocks: ctx.strictTagBlocks, fragmentTimeoutMs: ctx.fragmentTimeoutMs, maxLineLength: ctx.maxLineLength });
  const ledger = new ItemLedger(items.length);
  const tally = new AisTally();
  const records: OutRecord[] = [];
  // Which items a decoded line came from: results name their input lines in `raw`.
  const itemsOfLine = new Map<string, number[]>();
  const attribute = (results: AisDecodeResult[]) => {
    for (const result of results) {
      const outcome = ctx.records.toOutcome(result, tally);
      if (outcome.kind !== 'skip') records.push(outcome.record);
      for (const line of result.raw) {
        const index = itemsOfLine.get(line)?.shift();
        if (index !== undefined) mark(ledger, index, outcome);
      }
    }
  };

  items.forEach((item, index) => {
    if (typeof item !== 'string') {
      const letter = deadLetter({ feed: 'ais', raw: [String(JSON.stringify(item))], source: ctx.source, reason: 'item_invalid', detail: 'a sentence must be a string', at: new Date(ctx.now()).toISOString() });
      const outcome = ctx.records.rejectInput(letter, tally);
      if (outcome.kind !== 'skip') records.push(outcome.record);
      mark(ledger, index, outcome);
      return;
    }
    for (const line of item.split(LINE_BREAKS)) {
      const trimmed = line.trim();
      if (trimmed !== '') itemsOfLine.set(trimmed, [...(itemsOfLine.get(trimmed) ?? []), index]);
    }
    tally.lines++;
    attribute(decoder.push(item));
  });
  clockOffset = ctx.fragmentTimeoutMs + 1;
  attribute(decoder.expire());
  return { answer: ledger.answer('no_sentence'), records, tally };
}

export function reportItems(items: unknown[], ctx: AisItemsContext): ItemsOutcome & { tally: AisTally } {
  const ledger = new ItemLedger(items.length);
  const tally = new AisTally();
  const records: OutRecord[] = [];
  const receivedMs = ctx.now();
  const receivedAt = new Date(receivedMs).toISOString();
  items.forEach((item, index) => {
    tally.lines++;
    let outcome: AisOutcome;
    const text = String(JSON.stringify(item));
    if (text.length > ctx.maxItemBytes) {
      const detail = `report of ${text.length} characters (as JSON); at most ${ctx.maxItemBytes} are accepted`;
      outcome = ctx.records.rejectInput(deadLetter({ feed: 'ais', raw: [text], source: ctx.source, reason: 'record_too_large', detail, at: receivedAt }), tally);
    } else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const report = completeReport(item as Record<string, unknown>, ctx.source, receivedAt, text);
      const future = futureDetail(report, receivedMs);
      const contradiction = future === undefined ? shipTypeContradiction(report) : undefined;
      if (future !== undefined) outcome = ctx.records.rejectInput(deadLetter({ feed: 'ais', raw: rawOf(report), source: ctx.source, station: stationOf(report), reason: 'future_timestamp', detail: future, at: receivedAt }), tally);
      else if (contradiction !== undefined) outcome = ctx.records.rejectInput(deadLetter({ feed: 'ais', raw: rawOf(report), source: ctx.source, station: stationOf(report), reason: 'report_invalid', detail: contradiction, at: receivedAt }), tally);
      else outcome = ctx.records.report(report, tally);
    } else {
      outcome = ctx.records.rejectInput(deadLetter({ feed: 'ais', raw: [text], source: ctx.source, reason: 'item_invalid', detail: 'a report must be a JSON object', at: receivedAt }), tally);
    }
    if (outcome.kind !== 'skip') records.push(outcome.record);
    mark(ledger, index, outcome);
  });
  return { answer: ledger.answer('no_report'), records, tally };
}

const KIND_OF_TYPE: Record<number, AisReport['kind']> = { 1: 'position', 2: 'position', 3: 'position', 18: 'position', 19: 'position', 27: 'position', 5: 'static', 24: 'static', 4: 'non_vessel', 21: 'non_vessel' };

function completeReport(item: Record<string, unknown>, source: string, receivedAt: string, json: string): AisReport {
  const kind = item.kind ?? (typeof item.msg_type === 'number' ? KIND_OF_TYPE[item.msg_type] : undefined);
  return {
    ...item,
    kind,
    ...(kind === 'static' ? shipTypeFields(item) : {}),
    source,
    received_at: receivedAt,
    reported_at: item.reported_at ?? receivedAt,
    raw: item.raw ?? [json],
  } as AisReport;
}

/** The categories the ship type code gives, where the report leaves them out (ingest/ais/ship-types.ts, as for NMEA). */
function shipTypeFields(item: Record<string, unknown>): Record<string, unknown> {
  const described = typeof item.ship_type === 'number' ? describeShipType(item.ship_type) : undefined;
  if (described === undefined) return {}; // no code, or one the schema will refuse
  const fields: Record<string, unknown> = {};
  if (item.ship_category === undefined) fields.ship_category = described.category;
  if (item.hazardous_category === undefined && described.hazardous_category !== undefined) fields.hazardous_category = described.hazardous_category;
  return fields;
}

/** Why a static report's categories contradict its ship type code, or undefined when they agree (or there is no code). */
function shipTypeContradiction(report: AisReport): string | undefined {
  if (report.kind !== 'static' || typeof report.ship_type !== 'number') return undefined;
  const described = describeShipType(report.ship_type);
  if (described === undefined) return undefined;
  if (report.ship_category !== described.category) {
    return `ship_category ${JSON.stringify(report.ship_category)} contradicts ship_type ${report.ship_type} (${described.category}); leave ship_category out to have it derived`;
  }
  if (report.hazardous_category !== undefined && report.hazardous_category !== described.hazardous_category) {
    return `hazardous_category ${JSON.stringify(report.hazardous_category)} contradicts ship_type ${report.ship_type} (${described.hazardous_category ?? 'none'})`;
  }
  return undefined;
}

/** Why a report's reported_at is too far ahead of its receive time, or undefined when it is not (an unparsable time is left to the schema). */
function futureDetail(report: AisReport, receivedMs: number): string | undefined {
  const reportedMs = typeof report.reported_at === 'string' ? Date.parse(report.reported_at) : Number.NaN;
  const ahead = reportedMs - receivedMs;
  if (!(ahead > MAX_REPORTED_AHEAD_MS)) return undefined;
  return `reported_at ${report.reported_at} is ${Math.round(ahead / 1000)} s after received_at ${report.received_at}; at most ${MAX_REPORTED_AHEAD_MS / 1000} s is accepted`;
}

/** The dead letter's raw lines: the report's own `raw` when it is a list of strings, else its JSON. */
function rawOf(report: AisReport): string[] {
  const raw: unknown = report.raw;
  return Array.isArray(raw) && raw.length > 0 && raw.every((line) => typeof line === 'string') ? (raw as string[]) : [JSON.stringify(report)];
}

function stationOf(report: AisReport): string | undefined {
  const station: unknown = report.station;
  return typeof station === 'string' && station !== '' ? station : undefined;
}

function mark(ledger: ItemLedger, index: number, outcome: AisOutcome): void {
  if (outcome.kind === 'report') ledger.accept(index, { mmsi: outcome.report.mmsi, msg_type: outcome.report.msg_type });
  else if (outcome.kind === 'reject') ledger.reject(index, outcome.letter.reason, outcome.letter.detail);
  else ledger.skip(index, outcome.reason);
}
