// `pss topics [--apply]`: creates missing topics, then compares every declared topic (platform/topics.ts and
// the PSS_KAFKA_REPLICATION_FACTOR, PSS_KAFKA_MIN_INSYNC_REPLICAS, PSS_TOPIC_PARTITIONS settings) with the
// cluster and prints each difference. --apply mends what can be mended in place; exit 1 while drift remains.
import { parseArgs } from 'node:util';
import { loadConfig } from '../app/config.ts';
import { KafkaAdmin } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { declaredTopics, describeDrift, topicDrift } from '../platform/topic-check.ts';
import { topicSpecs } from '../platform/topics.ts';

export async function topicsCommand(args: string[] = []): Promise<number> {
  const { values } = parseArgs({ args, options: { apply: { type: 'boolean', default: false } } });
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const admin = new KafkaAdmin({ brokers: config.kafkaBrokers, clientId: config.kafkaClientId, log });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const request = { replicationFactor: config.kafkaReplicationFactor, minInsyncReplicas: config.kafkaMinInsyncReplicas };
    const specs = topicSpecs(config.topicPrefix, config.topicPartitions);
    const created = await admin.ensureTopics(specs, request);
    for (const name of created) out(`created ${name}`);
    const replication = await admin.replication(request);
    const declared = declaredTopics(specs, replication);
    out(`declared: ${declared.length} topics, replication factor ${replication.replicationFactor}${replication.cappedFrom === undefined ? '' : ` (capped from ${replication.cappedFrom}: fewer brokers)`}, min.insync.replicas ${replication.minInsyncReplicas}`);
    let drift = topicDrift(declared, await admin.describeTopics(declared));
    for (const d of drift) out(`drift ${describeDrift(d)}`);
    if (values.apply && drift.length > 0) {
      const { applied } = await admin.applyTopics(drift, specs, request);
      for (const line of applied) out(`applied ${line}`);
      drift = topicDrift(declared, await admin.describeTopics(declared));
      for (const d of drift) out(`left ${describeDrift(d)}`);
    }
    out(drift.length === 0 ? 'topics match their declaration' : `${drift.length} difference(s) remain${values.apply ? '' : '; `pss topics --apply` mends those it can'}`);
    return drift.length === 0 ? 0 : 1;
  } finally {
    await admin.close();
  }
}
