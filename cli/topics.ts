import { loadConfig } from '../app/config.ts';
import { KafkaAdmin } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { topicSpecs } from '../platform/topics.ts';

export async function topicsCommand(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const admin = new KafkaAdmin({ brokers: config.kafkaBrokers, clientId: config.kafkaClientId, log });
  try {
    const created = await admin.ensureTopics(topicSpecs(config.topicPrefix));
    log.info({ created }, created.length ? 'topics created' : 'all topics exist');
  } finally {
    await admin.close();
  }
  return 0;
}
