// Reads, at a fixed interval, the committed offset and the end offset of every partition of this
// instance's consumer groups (consumerGroups: the groups its consumers commit, in workers too), keeps a
// window of them per group, shows them in /metrics and judges each group's lag with lag-status.ts.
// Kafka keeps no commit history a client could ask for, so the window is built here (as Burrow does).
import { withDeadline } from '../deadline.ts';
import type { Logger } from '../log.ts';
import { counter, gauge } from '../metrics.ts';
import { KafkaAdmin } from './admin.ts';
import { consumerGroups } from './consumer.ts';
import { DEFAULT_LAG_RULES, evaluateGroupLag, type LagEvaluation, type LagRules, type LagSample, type LagStatus } from './lag-status.ts';
import type { KafkaOptions } from './records.ts';

const committedGauge = gauge('pss_consumer_group_committed_offset', 'The offset a consumer group of this instance committed on a partition (the next it will read).', ['group', 'topic', 'partition']);
const endGauge = gauge('pss_consumer_group_end_offset', 'The end offset (next to be written) of a partition a consumer group of this instance reads.', ['group', 'topic', 'partition']);
const lagGauge = gauge('pss_consumer_group_lag', 'Records on a partition a consumer group of this instance has not committed yet: end offset - committed offset.', ['group', 'topic', 'partition']);
const statusGauge = gauge('pss_consumer_group_status', 'Lag status of a consumer group of this instance (platform/kafka/lag-status.ts): 0 ok, 1 degraded, 2 down.', ['group']);
const sampleFailures = counter('pss_consumer_lag_sample_failures_total', 'Rounds of the consumer lag sampler that could not read the offsets from Kafka.');

const STOP_WAIT_MS = 1_000;
const STATUS_VALUE: Record<LagStatus, number> = { ok: 0, degraded: 1, down: 2 };

export interface GroupLag extends LagEvaluation {
  group: string;
  topics: string[];
  /** Epoch ms of the last successful reading of this group; undefined before the first. */
  sampledAt: number | undefined;
  /** Records not committed yet, over the group's partitions, at the last reading. */
  lag: number;
}

export interface LagSamplerOptions {
  intervalMs: number;
  rules?: LagRules;
  /** The groups to watch (default: this instance's, consumerGroups(kafka)). */
  groups?: () => ReadonlyMap<string, readonly string[]>;
}

const samplers = new WeakMap<KafkaOptions, ConsumerLagSampler>();

/** The running sampler of the service started with these Kafka options (its health model reads the groups' statuses here). */
export function lagSamplerOf(kafka: KafkaOptions): ConsumerLagSampler | undefined {
  return samplers.get(kafka);
}

export class ConsumerLagSampler {
  readonly #kafka: KafkaOptions;
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #rules: LagRules;
  readonly #groups: () => ReadonlyMap<string, readonly string[]>;
  /** Samples by group, oldest first, kept as long as the rules look back. */
  readonly #history = new Map<string, LagSample[]>();
  readonly #sampledAt = new Map<string, number>();
  readonly #topicsOf = new Map<string, readonly string[]>();
  #admin: KafkaAdmin | undefined;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #failing = false;

  constructor(kafka: KafkaOptions, opts: LagSamplerOptions) {
    this.#kafka = kafka;
    this.#log = kafka.log.child({ component: 'consumer-lag' });
    this.#intervalMs = opts.intervalMs;
    this.#rules = opts.rules ?? DEFAULT_LAG_RULES;
    this.#groups = opts.groups ?? (() => consumerGroups(kafka));
  }

  /** Samples now and every interval after, until `stop`. */
  start(): void {
    samplers.set(this.#kafka, this);
    const tick = () => {
      this.#round = this.sampleOnce().finally(() => {
        if (this.#timer !== undefined) this.#timer = setTimeout(tick, this.#intervalMs);
      });
    };
    this.#timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // A round against an unreachable broker can take a while (each request waits its timeout): the shutdown does not wait for it.
    await withDeadline(this.#round ?? Promise.resolve(), STOP_WAIT_MS).catch(() => undefined);
    if (samplers.get(this.#kafka) === this) samplers.delete(this.#kafka);
    for (const [group, samples] of this.#history) {
      statusGauge.remove({ group });
      for (const s of latestByPartition(samples)) {
        const labels = { group, topic: s.topic, partition: String(s.partition) };
        committedGauge.remove(labels);
        endGauge.remove(labels);
        lagGauge.remove(labels);
      }
    }
    await this.#admin?.close().catch(() => undefined);
    this.#admin = undefined;
  }

  /** One reading of every group; a failure is counted and logged once until a reading succeeds again. */
  async sampleOnce(now = Date.now()): Promise<void> {
    const groups = this.#groups();
    if (groups.size === 0) return;
    try {
      this.#admin ??= new KafkaAdmin(this.#kafka);
      const ends = new Map<string, Map<number, bigint>>();
      for (const topic of new Set([...groups.values()].flat())) ends.set(topic, await this.#admin.endOffsets(topic));
      for (const [group, topics] of groups) {
        const samples: LagSample[] = [];
        for (const topic of topics) {
          const committed = await this.#admin.committedOffsets(group, topic);
          for (const [partition, end] of ends.get(topic) ?? []) {
            const offset = committed.get(partition);
            samples.push({ topic, partition, at: now, committed: offset === undefined ? null : Number(offset), end: Number(end) });
          }
        }
        this.#record(group, topics, samples, now);
      }
      if (this.#failing) this.#log.info('consumer lag readable again');
      this.#failing = false;
    } catch (err) {
      sampleFailures.inc();
      if (!this.#failing) this.#log.warn({ err }, 'consumer lag could not be read; the groups keep their last status');
      this.#failing = true;
      // A fresh connection at the next round: the broker may have come back elsewhere.
      await this.#admin?.close().catch(() => undefined);
      this.#admin = undefined;
    }
  }

  #record(group: string, topics: readonly string[], samples: LagSample[], now: number): void {
    const keepFrom = now - this.#rules.downAfterMs - this.#rules.windowSamples * this.#intervalMs;
    const history = [...(this.#history.get(group) ?? []).filter((s) => s.at >= keepFrom), ...samples];
    this.#history.set(group, history);
    this.#sampledAt.set(group, now);
    this.#topicsOf.set(group, topics);
    for (const s of samples) {
      const labels = { group, topic: s.topic, partition: String(s.partition) };
      endGauge.set(labels, s.end);
      if (s.committed === null) {
        committedGauge.remove(labels);
        // Nothing committed on a partition nothing was ever written to: nothing is behind (a fresh
        // deployment's panels and rules see 0, not no data). With records on it, the lag depends on where
        // the group will start reading, which only its first commit says.
        if (s.end === 0) lagGauge.set(labels, 0);
        else lagGauge.remove(labels);
      } else {
        committedGauge.set(labels, s.committed);
        lagGauge.set(labels, Math.max(0, s.end - s.committed));
      }
    }
    statusGauge.set({ group }, STATUS_VALUE[evaluateGroupLag(history, this.#rules).status]);
  }

  /** Each watched group's status by the lag rules, from the samples read so far. */
  statuses(): GroupLag[] {
    return [...this.#topicsOf].map(([group, topics]) => {
      const history = this.#history.get(group) ?? [];
      const lag = latestByPartition(history).reduce((total, s) => total + (s.committed === null ? 0 : Math.max(0, s.end - s.committed)), 0);
      return { group, topics: [...topics], sampledAt: this.#sampledAt.get(group), lag, ...evaluateGroupLag(history, this.#rules) };
    });
  }

  /** One group's samples, oldest first (a copy). */
  samples(group: string): LagSample[] {
    return [...(this.#history.get(group) ?? [])];
  }
}

function latestByPartition(samples: readonly LagSample[]): LagSample[] {
  const latest = new Map<string, LagSample>();
  for (const s of samples) latest.set(`${s.topic}/${s.partition}`, s);
  return [...latest.values()];
}
