// Decoding of ais.raw records, apart from the consumer that feeds it: one decoder per source (fragments
// may span records and batches), the oldest record whose fragments each source still holds (the consumer
// commits only below it), and the fragment timeout, applied to every holding source at every call, so the
// orphan of a source that fell quiet is dead-lettered on time and stops holding back its partition.
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { HeldRecord, InRecord, OutRecord } from '../../platform/kafka/index.ts';
import { AisTally, type AisRecords } from '../ais-records.ts';
import type { AisSettings } from '../ais-settings.ts';
import { createAisDecoder, type AisDecoder } from '../ais/index.ts';
import { deadLetter } from '../dead-letter.ts';

/** Enough for every receiver of a national network; beyond it the least recently used decoder is dropped. */
const MAX_RAW_SOURCES = 1_000;
/** A source is a name (record key or `source` header); anything longer is cut, so no name can make records large. */
const MAX_SOURCE_NAME = 256;

/** ais.raw is keyed by source; gate.readings.raw by gate, so only its `source` header names the source. */
export function rawSourceOf(record: InRecord, fallback: string, keyIsSource: boolean): string {
  const named = record.headers.source ?? (keyIsSource ? record.key : undefined);
  const name = named?.trim() ?? '';
  if (name === '') return fallback;
  return name.length > MAX_SOURCE_NAME ? name.slice(0, MAX_SOURCE_NAME) : name;
}

export interface RawAisOptions {
  records: AisRecords;
  /** Reads the records' text (ais.raw is declared latin1 text in platform/topics.ts). */
  codec: TopicCodec;
  settings: AisSettings;
  /** Largest record decoded; a larger one is dead-lettered whole as record_too_large (first 4 KiB kept). */
  maxRecordBytes: number;
  now: () => number;
}

export class RawAisDecoders {
  readonly #opts: RawAisOptions;
  #decoders = new Map<string, AisDecoder>();
  /** Per source: the oldest record whose fragments its decoder still holds. */
  #holding = new Map<string, HeldRecord>();
  readonly #tally = new AisTally();

  constructor(opts: RawAisOptions) {
    this.#opts = opts;
  }

  /** Decodes a batch of records, then lets every source's timed-out fragments go; appends what to produce. */
  decode(records: InRecord[], out: OutRecord[]): void {
    for (const record of records) {
      const source = rawSourceOf(record, 'ais.raw', true);
      if (record.value.length > this.#opts.maxRecordBytes) {
        this.#rejectRecord(record, source, out);
        continue;
      }
      const text = this.#opts.codec.decodeValue('aisRaw', record.value);
      const decoder = this.#decoderFor(source, out);
      this.#opts.records.appendRecords(decoder.push(text), out, this.#tally);
      this.#tally.lines += countLines(text);
      if (decoder.pendingGroups === 0) this.#holding.delete(source);
      else if (!this.#holding.has(source)) this.#holding.set(source, { topic: record.topic, partition: record.partition, offset: record.offset });
    }
    this.expire(out);
  }

  /** Dead-letters the incomplete messages that timed out, in every source; a source left holding nothing releases its record. */
  expire(out: OutRecord[]): void {
    for (const source of this.#holding.keys()) {
      const decoder = this.#decoders.get(source);
      if (decoder === undefined) {
        this.#holding.delete(source);
        continue;
      }
      if ((decoder.nextExpiryMs ?? Number.POSITIVE_INFINITY) <= this.#opts.now()) this.#opts.records.appendRecords(decoder.expire(), out, this.#tally);
      if (decoder.pendingGroups === 0) this.#holding.delete(source);
    }
    this.#tally.publish('raw');
  }

  /** The oldest record each source still holds: offsets are committed only below these. */
  held(): HeldRecord[] {
    return [...this.#holding.values()];
  }

  /** Partitions may have moved: forget everything; their next owner reads the held records again. */
  reset(): void {
    this.#decoders = new Map();
    this.#holding = new Map();
  }

  #decoderFor(source: string, out: OutRecord[]): AisDecoder {
    let decoder = this.#decoders.get(source);
    if (decoder === undefined) {
      decoder = createAisDecoder({ source, now: this.#opts.now, ...this.#opts.settings });
      if (this.#decoders.size >= MAX_RAW_SOURCES) {
        const [oldest, dropped] = this.#decoders.entries().next().value as [string, AisDecoder];
        this.#decoders.delete(oldest);
        this.#holding.delete(oldest);
        // Its fragments must not vanish with it.
        if (dropped.pendingGroups > 0) this.#opts.records.appendRecords(dropped.flush(), out, this.#tally);
      }
    } else {
      this.#decoders.delete(source);
    }
    this.#decoders.set(source, decoder);
    return decoder;
  }

  #rejectRecord(record: InRecord, source: string, out: OutRecord[]): void {
    const detail = `record of ${record.value.length} bytes; at most ${this.#opts.maxRecordBytes} are decoded (PSS_INGEST_MAX_ITEM_BYTES)`;
    const letter = deadLetter({ feed: 'ais', raw: [this.#opts.codec.decodeValue('aisRaw', record.value)], source, reason: 'record_too_large', detail, at: new Date(this.#opts.now()).toISOString() });
    const outcome = this.#opts.records.rejectInput(letter, this.#tally);
    if (outcome.kind !== 'skip') out.push(outcome.record);
  }
}

function countLines(text: string): number {
  let n = 0;
  for (const line of text.split(/\r\n|\r|\n/)) if (line.trim() !== '') n++;
  return n;
}
