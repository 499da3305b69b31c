// What became of each item of an HTTP ingest request, and the answer body that says so
// (202 when nothing was rejected, 422 when something was; both list accepted, rejected and skipped items).
import type { OutRecord } from '../../platform/kafka/index.ts';
import type { IngestAnswer } from '../../schemas/ingest.ts';

export type { IngestAnswer };

/** The outcome of a request's items plus the records to produce (accepted ones and dead letters). */
export interface ItemsOutcome {
  answer: IngestAnswer;
  records: OutRecord[];
}

type Status = { status: 'accepted'; extra: Record<string, unknown> } | { status: 'rejected'; reason: string; detail: string } | { status: 'skipped'; reason: string };

/** Collects per-item statuses; a rejection outranks an acceptance, which outranks a skip. */
export class ItemLedger {
  readonly #statuses: (Status | undefined)[];

  constructor(readonly count: number) {
    this.#statuses = new Array<Status | undefined>(count).fill(undefined);
  }

  accept(index: number, extra: Record<string, unknown> = {}): void {
    const current = this.#statuses[index];
    if (current === undefined || current.status === 'skipped') this.#statuses[index] = { status: 'accepted', extra };
  }

  reject(index: number, reason: string, detail: string): void {
    if (this.#statuses[index]?.status !== 'rejected') this.#statuses[index] = { status: 'rejected', reason, detail };
  }

  skip(index: number, reason: string): void {
    if (this.#statuses[index] === undefined) this.#statuses[index] = { status: 'skipped', reason };
  }

  answer(unresolvedReason: string): IngestAnswer {
    const accepted: IngestAnswer['accepted'] = [];
    const rejected: IngestAnswer['rejected'] = [];
    const skipped: IngestAnswer['skipped'] = [];
    this.#statuses.forEach((s, index) => {
      const status: Status = s ?? { status: 'skipped', reason: unresolvedReason };
      if (status.status === 'accepted') accepted.push({ ...status.extra, index });
      else if (status.status === 'rejected') rejected.push({ index, reason: status.reason, detail: status.detail });
      else skipped.push({ index, reason: status.reason });
    });
    return { received: this.count, accepted_count: accepted.length, rejected_count: rejected.length, skipped_count: skipped.length, accepted, rejected, skipped };
  }
}
