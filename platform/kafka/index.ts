// The one module that talks to a Kafka client library (@platformatic/kafka; see docs/design-notes.md "Kafka client"
// for the benchmark that chose it). Everything else uses these small types, so the client can be swapped.
// One file per role: records.ts (shared types), producer.ts, consumer.ts, partition-reader.ts, admin.ts;
// lag-sampler.ts reads the consumer groups' offsets and lag-status.ts judges them.
export type { BatchHandler, HeldRecord, InRecord, KafkaOptions, OutRecord } from './records.ts';
export { KafkaProducer, RECORD_REFUSAL_CODES, partitionOfKey } from './producer.ts';
export { CONSUMER_STUCK_AFTER_MS, KafkaConsumer, addRemoteConsumers, addRemoteGroups, consumerGroups, stuckConsumers, type ConsumerGroups, type ConsumerOptions } from './consumer.ts';
export { KafkaPartitionReader } from './partition-reader.ts';
export { KafkaAdmin } from './admin.ts';
export { ConsumerLagSampler, lagSamplerOf, type GroupLag } from './lag-sampler.ts';
export { DEFAULT_LAG_RULES, evaluateGroupLag, type LagEvaluation, type LagRules, type LagSample, type LagStatus } from './lag-status.ts';
