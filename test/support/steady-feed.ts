// A topic whose records keep arriving, for the consumer-lag tests: a group is judged stalled when its
// committed offset stands still while its lag grows, so the topic must keep growing the whole time.
import type { KafkaProducer } from '../../platform/kafka/index.ts';

export interface SteadyFeed {
  /** Stops sending and waits for the send in flight. */
  stop(): Promise<void>;
}

/** Sends 10 keyed records to `topic` every 100 ms until stopped. */
export function steadyFeed(producer: KafkaProducer, topic: string): SteadyFeed {
  let producing = true;
  let sent = 0;
  const loop = (async () => {
    while (producing) {
      await producer.send(Array.from({ length: 10 }, (_, i) => ({ topic, key: `k-${sent + i}`, value: String(sent + i) })));
      sent += 10;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      producing = false;
      await loop;
    },
  };
}
