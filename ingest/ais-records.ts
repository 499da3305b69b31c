// Decoder results -> Kafka records. Reports are validated against their JSON Schema and keyed by MMSI:
// positions -> ais.positions, static data -> ais.static, base stations and aids to navigation ->
// ais.stations; rejects (and reports failing validation) -> ingest.deadletter keyed by source; skips are
// only counted. The value is the report exactly as schemas/ais.ts describes it: `source` is the feed and
// `received_at` the moment this ingest instance decoded it.
import type { TopicCodec } from '../platform/codec/index.ts';
import type { OutRecord } from '../platform/kafka/index.ts';
import type { TopicId } from '../platform/topics.ts';
import {
  nonVesselReportSchema,
  vesselPositionSchema,
  vesselStaticSchema,
  type AisDecodeResult,
  type AisReport,
  type NonVesselReport,
  type VesselPosition,
  type VesselStatic,
} from '../schemas/ais.ts';
import type { DeadLetter } from '../schemas/dead-letter.ts';
import { deadLetter, fromAisReject } from './dead-letter.ts';
import { ingestMetrics } from './metrics.ts';
import { compileSchema, describeErrors, type ValidateFunction } from './validation.ts';

const VALIDATORS = {
  position: { topic: 'aisPositions', validate: compileSchema<VesselPosition>(vesselPositionSchema) },
  static: { topic: 'aisStatic', validate: compileSchema<VesselStatic>(vesselStaticSchema) },
  non_vessel: { topic: 'aisStations', validate: compileSchema<NonVesselReport>(nonVesselReportSchema) },
} as const satisfies Record<AisReport['kind'], { topic: TopicId; validate: ValidateFunction<unknown> }>;

/** What became of one decoder result. */
export type AisOutcome =
  | { kind: 'report'; record: OutRecord; report: AisReport }
  | { kind: 'reject'; record: OutRecord; letter: DeadLetter }
  | { kind: 'skip'; reason: string };

/** Counts of one chunk, added to the metrics in one go. */
export class AisTally {
  lines = 0;
  reports = 0;
  readonly rejects = new Map<string, number>();
  readonly skips = new Map<string, number>();

  publish(kind: string): void {
    if (this.lines > 0) ingestMetrics.sentences.inc({ kind }, this.lines);
    for (const [reason, n] of this.rejects) ingestMetrics.rejected.inc({ reason }, n);
    for (const [reason, n] of this.skips) ingestMetrics.skipped.inc({ reason }, n);
    this.lines = 0;
    this.reports = 0;
    this.rejects.clear();
    this.skips.clear();
  }
}

export class AisRecords {
  constructor(
    private readonly topics: Record<TopicId, string>,
    private readonly codec: TopicCodec,
    /** Told the source of every valid report and a position's report time (feed silence, ingest/feed-watch.ts). */
    private readonly heard?: (source: string, reportedAt?: number) => void,
  ) {}

  /** Maps one result; `tally` counts it. */
  toOutcome(result: AisDecodeResult, tally: AisTally): AisOutcome {
    if (result.kind === 'skip') {
      tally.skips.set(result.reason, (tally.skips.get(result.reason) ?? 0) + 1);
      return { kind: 'skip', reason: result.reason };
    }
    if (result.kind === 'reject') return this.#reject(fromAisReject(result), tally);
    return this.report(result, tally);
  }

  /** A decoded report (from the decoder or an HTTP client): validated, then keyed by MMSI. */
  report(report: AisReport, tally: AisTally): AisOutcome {
    // HTTP clients send any JSON: the kind may be missing or unknown, and the raw lines need not be strings.
    const route = (VALIDATORS as Partial<Record<string, (typeof VALIDATORS)[AisReport['kind']]>>)[report.kind];
    const valid = route?.validate as ((value: unknown) => boolean) | undefined;
    if (route === undefined || valid === undefined || !valid(report)) {
      const detail = route === undefined ? `kind must be position, static or non_vessel (msg_type ${String(report.msg_type)} is not published)` : describeErrors(route.validate.errors);
      const raw = Array.isArray(report.raw) && report.raw.length > 0 ? report.raw.map(String) : [JSON.stringify(report)];
      const letter = deadLetter({ feed: 'ais', raw, source: report.source, station: report.station, reason: 'report_invalid', detail, at: new Date().toISOString() });
      return this.#reject(letter, tally);
    }
    tally.reports++;
    this.heard?.(report.source, report.kind === 'position' ? Date.parse(report.reported_at) : undefined);
    const record: OutRecord = { topic: this.topics[route.topic], key: String(report.mmsi), value: this.codec.encode(route.topic, report) };
    return { kind: 'report', record, report };
  }

  /** A dead letter for input rejected before it reached the decoder (HTTP items that are not strings, ...). */
  rejectInput(letter: DeadLetter, tally: AisTally): AisOutcome {
    return this.#reject(letter, tally);
  }

  /** The streaming path: appends the records of `results` to `out`. */
  appendRecords(results: AisDecodeResult[], out: OutRecord[], tally: AisTally): void {
    for (const result of results) {
      const outcome = this.toOutcome(result, tally);
      if (outcome.kind !== 'skip') out.push(outcome.record);
    }
  }

  #reject(letter: DeadLetter, tally: AisTally): AisOutcome {
    tally.rejects.set(letter.reason, (tally.rejects.get(letter.reason) ?? 0) + 1);
    const record: OutRecord = { topic: this.topics.deadLetter, key: letter.source, value: this.codec.encode('deadLetter', letter) };
    return { kind: 'reject', record, letter };
  }
}
