// The small types every Kafka role shares, and the conversions between them and the client library's.
import { stringDeserializer, stringSerializer, type Message } from '@platformatic/kafka';
import type { Logger } from '../log.ts';

export interface OutRecord {
  topic: string;
  key?: string;
  value: string | Buffer;
  headers?: Record<string, string>;
  /** Milliseconds since the epoch; defaults to the append time. */
  timestamp?: number;
}

export interface InRecord {
  topic: string;
  partition: number;
  offset: bigint;
  key: string | undefined;
  value: Buffer;
  headers: Record<string, string>;
  timestamp: number;
}

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
  /** How long a producer retries a record before its send fails (PSS_KAFKA_DELIVERY_TIMEOUT_MS); 30 s when absent. */
  deliveryTimeoutMs?: number;
}

/** A record a handler has read but not finished with (e.g. the first fragment of a message). */
export interface HeldRecord {
  topic: string;
  partition: number;
  offset: bigint;
}

/**
 * Handles one batch. Offsets are committed only after it resolves, so effects must be durable (or
 * idempotent) by then. A rejection means "try this batch again later": the consumer pauses, backs off and
 * redelivers; records that can never succeed must be dead-lettered by the handler, not thrown.
 * A handler that keeps records in memory across batches returns, each time, the oldest record it still
 * holds per partition: commits then stop below it, so a crash or rebalance re-reads it.
 */
export type BatchHandler = (records: InRecord[]) => Promise<void | Iterable<HeldRecord>>;

export const byteSerializers = {
  key: stringSerializer,
  value: (v?: string | Buffer) => (v === undefined ? undefined : typeof v === 'string' ? Buffer.from(v) : v),
  headerKey: stringSerializer,
  headerValue: stringSerializer,
};

export const byteDeserializers = {
  key: stringDeserializer,
  value: (v?: Buffer) => v,
  headerKey: stringDeserializer,
  headerValue: stringDeserializer,
};

export type Msg = Message<string, Buffer, string, string>;

/** An offset commit (or close) that cannot finish within this long is abandoned: the commit is only an optimisation of replay. */
export const COMMIT_DEADLINE_MS = 5_000;

export function toInRecord(m: Msg): InRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of m.headers) headers[k] = v;
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers,
    timestamp: Number(m.timestamp),
  };
}
