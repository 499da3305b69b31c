// Which schema ids each topic's values may carry in schema-registry mode: the id this instance registered
// for the topic (and writes with), and any other id the registry confirms belongs to the topic's subject,
// such as a newer version of the schema registered by a newer instance of the service.
import { TOPICS, type TopicId } from '../topics.ts';
import type { SchemaRegistry } from './schema-registry.ts';

/** An id the registry denied is asked about again after this long, not for every record that carries it. */
const REFUSAL_MS = 60_000;
/** Bounds the memory a stream of garbage ids can take. */
const MAX_REFUSALS = 1_000;

export class TopicSchemas {
  readonly #known = new Map<TopicId, Set<number>>();
  /** `${topic}/${id}` -> when the refusal expires. */
  readonly #refused = new Map<string, number>();

  private constructor(
    private readonly registry: SchemaRegistry,
    private readonly subjects: ReadonlyMap<TopicId, string>,
    private readonly writeIds: ReadonlyMap<TopicId, number>,
    private readonly now: () => number,
  ) {
    for (const [topic, id] of writeIds) this.#known.set(topic, new Set([id]));
  }

  /** Registers the schema of every JSON topic under `<topic>-value`; safe to repeat (the registry keeps ids). */
  static async register(registry: SchemaRegistry, topics: Record<TopicId, string>, now = Date.now): Promise<TopicSchemas> {
    const subjects = new Map<TopicId, string>();
    const writeIds = new Map<TopicId, number>();
    for (const [topic, spec] of Object.entries(TOPICS) as [TopicId, (typeof TOPICS)[TopicId]][]) {
      if (!('schema' in spec.value)) continue;
      const subject = `${topics[topic]}-value`;
      subjects.set(topic, subject);
      writeIds.set(topic, await registry.register(subject, spec.value.schema));
    }
    return new TopicSchemas(registry, subjects, writeIds, now);
  }

  writeId(topic: TopicId): number {
    const id = this.writeIds.get(topic);
    if (id === undefined) throw new TypeError(`topic ${topic} has no JSON Schema to write with`);
    return id;
  }

  isKnown(topic: TopicId, id: number): boolean {
    return this.#known.get(topic)?.has(id) ?? false;
  }

  /** Asks the registry about the ids not known yet (each once, unless refused long ago). */
  async learn(topic: TopicId, ids: Iterable<number>): Promise<void> {
    const subject = this.subjects.get(topic);
    const known = this.#known.get(topic);
    if (subject === undefined || known === undefined) return;
    for (const id of ids) {
      const key = `${topic}/${id}`;
      if (known.has(id) || (this.#refused.get(key) ?? 0) > this.now()) continue;
      if ((await this.registry.subjectsOf(id)).includes(subject)) {
        known.add(id);
        this.#refused.delete(key);
      } else {
        this.#refuse(key);
      }
    }
  }

  #refuse(key: string): void {
    this.#refused.delete(key);
    if (this.#refused.size >= MAX_REFUSALS) this.#refused.delete(this.#refused.keys().next().value as string);
    this.#refused.set(key, this.now() + REFUSAL_MS);
  }
}
