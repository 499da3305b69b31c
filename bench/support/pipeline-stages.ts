// What bench/pipeline.ts measures in one rate step: for each stage of the service's path, the time from
// the moment a sentence was written to the TCP socket to the moment that stage had its result. The send
// time needs no bookkeeping: the sentence's tag block carries it (ais-traffic.ts), and ingest makes it the
// position's `reported_at` and the `timestamp` of every event dated to that report.

/**
 * In path order. Besides the five the benchmark is about, three split the path for reading the figures:
 * `ingest sent` and `relay sent` are the records' Kafka timestamps (set by the producing client as it
 * sends), `webhook queued` the matcher's delivery row.
 */
export const STAGES = ['ingest sent', 'ais.positions', 'event stored', 'relay sent', 'security.events', 'WebSocket client', 'webhook queued', 'webhook'] as const;
/** The stages every position has (the others are timed by events). */
const POSITION_STAGES: ReadonlySet<Stage> = new Set(['ingest sent', 'ais.positions']);
export type Stage = (typeof STAGES)[number];

/**
 * The events timed: those emitted at the report they are dated to (docs/zones-and-rules.md, decision 9). An exit
 * is dated to the first report outside but emitted once confirmed, 60 s later; rule episodes and
 * occupancy have times of their own.
 */
export const TRACED_TYPES: ReadonlySet<string> = new Set(['zone_entry', 'zone_approach']);

/** An event as every stage shows it (the stream's `event_type` renamed `type`). */
export interface SeenEvent {
  id: string;
  type: string;
  timestamp: string;
  metadata?: { mmsi?: unknown };
}

export interface StageFigures {
  count: number;
  entries: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export class StepSamples {
  /** `mmsi@ms` of every position sentence written in this step. */
  readonly sent = new Set<string>();
  readonly #latencies = new Map<Stage, number[]>(STAGES.map((s) => [s, []]));
  readonly #seen = new Map<Stage, Set<string>>(STAGES.map((s) => [s, new Set()]));
  readonly #entries = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
  /** When an event last reached the WebSocket client or the webhook receiver (drain detection). */
  lastArrivalMs = Date.now();

  constructor(readonly startMs: number) {}

  /** A position read back from ais.positions (sampled: one partition): when ingest sent it, when it was read. */
  position(sentMs: number, producedMs: number, arrivalMs: number): void {
    if (sentMs < this.startMs) return;
    this.#latencies.get('ingest sent')?.push(producedMs - sentMs);
    this.#latencies.get('ais.positions')?.push(arrivalMs - sentMs);
  }

  /** Whether `stage` is timed by positions rather than by events. */
  static timesPositions(stage: Stage): boolean {
    return POSITION_STAGES.has(stage);
  }

  /** An event seen at `stage`; counted once per event id, if it is traced and dated to a sentence of this step. */
  event(stage: Stage, e: SeenEvent, arrivalMs: number): void {
    if (stage === 'WebSocket client' || stage === 'webhook') this.lastArrivalMs = Date.now();
    if (!TRACED_TYPES.has(e.type)) return;
    const sentMs = Date.parse(e.timestamp);
    if (!this.sent.has(`${String(e.metadata?.mmsi)}@${sentMs}`)) return;
    const seen = this.#seen.get(stage) as Set<string>;
    if (seen.has(e.id)) return;
    seen.add(e.id);
    this.#latencies.get(stage)?.push(arrivalMs - sentMs);
    if (e.type === 'zone_entry') this.#entries.set(stage, (this.#entries.get(stage) ?? 0) + 1);
  }

  figures(stage: Stage): StageFigures {
    const sorted = [...(this.#latencies.get(stage) ?? [])].sort((a, b) => a - b);
    const at = (q: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) : NaN);
    return { count: sorted.length, entries: this.#entries.get(stage) ?? 0, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: Math.round(sorted.at(-1) ?? NaN) };
  }
}
