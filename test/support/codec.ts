// Tests read topic values as the service does: through the codec, so a value the service could not read
// fails the test. Plain JSON, as the test stack runs; the schema-registry tests build their own codec.
import { TopicCodec } from '../../platform/codec/index.ts';
import { TOPICS, type TopicId } from '../../platform/topics.ts';

export const jsonCodec = new TopicCodec();

/** The decoded value of a record of any service topic, whatever the topic prefix. */
export function valueOf(record: { topic: string; value: string | Buffer }, codec: TopicCodec = jsonCodec): unknown {
  return codec.decodeValue(topicIdOf(record.topic), record.value);
}

function topicIdOf(name: string): TopicId {
  // No topic name ends with another's, so the suffix identifies the topic.
  const id = (Object.keys(TOPICS) as TopicId[]).find((t) => name.endsWith(TOPICS[t].name));
  if (id === undefined) throw new Error(`${name} is not a topic of the service`);
  return id;
}
