// The start-up check of the topics (issue 27): create what is missing, then compare every declared topic
// with what the cluster has and log each difference by name. The service runs on a drifted cluster (an
// operator may have reasons); /readyz keeps naming the drift (topicsCheck in readiness.ts).
import type { KafkaAdmin } from './kafka/index.ts';
import type { Logger } from './log.ts';
import { declaredTopics, describeDrift, topicDrift, type DeclaredTopic, type ReplicationRequest } from './topic-check.ts';
import type { TopicSpec } from './topics.ts';

export async function ensureAndVerifyTopics(admin: KafkaAdmin, specs: TopicSpec[], request: ReplicationRequest, log: Logger): Promise<DeclaredTopic[]> {
  const created = await admin.ensureTopics(specs, request);
  if (created.length > 0) log.info({ created }, 'kafka topics created');
  const declared = declaredTopics(specs, await admin.replication(request));
  for (const drift of topicDrift(declared, await admin.describeTopics(declared))) {
    log.warn({ topic: drift.topic, kind: drift.kind, key: drift.key, declared: drift.declared, actual: drift.actual }, `topic differs from its declaration: ${describeDrift(drift)}`);
  }
  return declared;
}
