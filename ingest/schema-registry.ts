// Optional schema-registry mode: registers the JSON Schema of every topic the ingest writes with a
// Confluent-compatible registry (tested against Apicurio Registry's ccompat API) and returns an encoder
// that writes the Confluent wire format. Registration is idempotent: the registry returns the existing
// id for a schema it already holds.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { TopicId } from '../platform/topics.ts';
import { TOPIC_SCHEMAS, wireEncoder, type ValueEncoder } from './encoding.ts';
import { schemaRegistryAjv } from './validation.ts';

// The client types `ajvInstance` as its default (draft-07) Ajv class; an Ajv2020 instance has the same
// addSchema/compile surface, hence the cast.
export async function registerTopicSchemas(url: string, topics: Record<TopicId, string>): Promise<Partial<Record<TopicId, number>>> {
  const registry = new SchemaRegistry({ host: url, clientId: 'pss-ingest' }, { [SchemaType.JSON]: { ajvInstance: schemaRegistryAjv() as never } });
  const ids: Partial<Record<TopicId, number>> = {};
  for (const [topic, schema] of Object.entries(TOPIC_SCHEMAS) as [TopicId, object][]) {
    const { id } = await registry.register({ type: SchemaType.JSON, schema: JSON.stringify(schema) }, { subject: `${topics[topic]}-value` });
    ids[topic] = id;
  }
  return ids;
}

export async function registryEncoder(url: string, topics: Record<TopicId, string>): Promise<ValueEncoder> {
  return wireEncoder(await registerTopicSchemas(url, topics));
}
