// Every ingest metric, registered once in the process registry (served at /metrics).
// Hot paths count per chunk or per batch, never per record, so metrics cost nothing measurable.
// Label values known in advance are series at zero from the start (platform/metrics.ts KnownLabels):
// here, on the first ingest runtime (startIngestSeries) and per source when it starts.
import { RECORD_REFUSAL_CODES } from '../platform/kafka/index.ts';
import { counter, gauge, histogram, startAtZero } from '../platform/metrics.ts';
import type { TopicId } from '../platform/topics.ts';
import { deadLetterReasonSchema } from '../schemas/dead-letter.ts';

/** What takes input in: AIS over TCP, UDP, a raw topic, HTTP or a replayed recording, and gate readings over HTTP or their raw topic. */
export const INPUT_KINDS = ['tcp', 'udp', 'raw', 'http', 'replay', 'gate_http', 'gate_raw'] as const;
/** The topics the ingest producer queue writes. */
const INGEST_TOPICS: readonly TopicId[] = ['aisPositions', 'aisStatic', 'aisStations', 'gateReadings', 'deadLetter'];

export const ingestMetrics = {
  sentences: counter('pss_ingest_sentences_total', 'Input lines (NMEA sentences, gate readings) taken in, by source kind.', ['kind'], { kind: INPUT_KINDS }),
  produced: counter('pss_ingest_records_total', 'Records acknowledged by Kafka, by topic.', ['topic']),
  rejected: counter('pss_ingest_rejected_total', 'Input rejected to the dead-letter topic, by reason.', ['reason'], { reason: deadLetterReasonSchema.enum }),
  skipped: counter('pss_ingest_skipped_total', 'Valid input deliberately not published (not AIS, unsupported message type), by reason.', ['reason']),
  dropped: counter('pss_ingest_udp_dropped_total', 'UDP datagrams dropped because the producer was behind, by source.', ['source']),
  sendFailures: counter('pss_ingest_send_failures_total', 'Kafka sends that failed and were retried.'),
  refused: counter('pss_ingest_refused_total', 'Records Kafka refused for good (e.g. MESSAGE_TOO_LARGE), never retried: replaced by their dead letter (outcome dead_lettered) or dropped, by topic, broker code and outcome.', ['topic', 'code', 'outcome']),
  undelivered: counter('pss_ingest_undelivered_total', 'Records given up without a Kafka acknowledgement because the shutdown deadline passed (PSS_SHUTDOWN_TIMEOUT_MS), or handed in after that.'),
  queued: gauge('pss_ingest_queued_records', 'Records held by the ingest producer and not yet acknowledged.'),
  paused: gauge('pss_ingest_source_paused', '1 while a source is paused because the producer is behind.', ['source']),
  connected: gauge('pss_ingest_source_connected', '1 while a TCP source is connected.', ['source']),
  connects: counter('pss_ingest_source_connects_total', 'TCP source connection attempts, by source and outcome.', ['source', 'outcome']),
  ackSeconds: histogram('pss_ingest_batch_ack_seconds', 'Time from handing a batch to Kafka until it is acknowledged.', [], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30]),
};

/** The series whose labels name this instance's topics (prefixed), at zero: when the ingest runtime starts. */
export function startIngestSeries(topics: Record<TopicId, string>): void {
  const names = INGEST_TOPICS.map((id) => topics[id]);
  startAtZero(ingestMetrics.produced, { topic: names });
  startAtZero(ingestMetrics.refused, { topic: names, code: RECORD_REFUSAL_CODES, outcome: ['dead_lettered', 'dropped'] });
}

/** A source's series at zero when it starts: not connected, not paused, nothing dropped. */
export function startSourceSeries(source: string, transport: 'tcp' | 'udp' | 'other'): void {
  startAtZero(ingestMetrics.paused, { source: [source] });
  if (transport === 'tcp') startAtZero(ingestMetrics.connected, { source: [source] });
  if (transport === 'udp') startAtZero(ingestMetrics.dropped, { source: [source] });
}
