// Produces the drone command outbox (commands.ts) to drone.commands, as the gate's sender does its outbox
// (processors/gate/command-sender.ts): it claims drones whose oldest unsent command is due (FOR UPDATE SKIP
// LOCKED on that head, so two instances never hold one drone and a drone's commands keep their order), sends
// them in one request keyed by drone, and records the outcome in the claiming transaction. It wakes on the
// NOTIFY of a commit that wrote commands and sweeps for retries. A crash between Kafka's acknowledgement and
// the commit sends those commands again with the same ids: the adapter executes each id once.
// The loop (wakes, sweeps, the bounded stop) is the platform's outbox publisher; this file is the outbox's part.
import type { KafkaProducer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { counter, histogram } from '../platform/metrics.ts';
import { OutboxPublisher, type OutboxSource } from '../platform/outbox-publisher.ts';
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { TopicCodec } from '../platform/codec/index.ts';
import { DRONE_COMMANDS_CHANNEL } from './commands.ts';

const sentTotal = counter('pss_drone_commands_sent_total', 'Drone commands Kafka acknowledged, by type', ['type']);
const failedAttempts = counter('pss_drone_command_failed_attempts_total', 'Drone command sends Kafka did not acknowledge (each retried)');
const outboxSeconds = histogram('pss_drone_command_outbox_seconds', 'From a drone command written to Kafka acknowledging it', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]);

const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000];
/** Drones claimed per turn, with all their unsent commands. */
const DRONES_PER_TURN = 100;

interface Pending {
  command_id: string;
  drone_id: string;
  type: string;
  json: string;
  attempts: number;
  age: number;
}

export interface DroneCommandSenderDeps {
  pool: Pool;
  producer: KafkaProducer;
  codec: TopicCodec;
  topic: string;
  log: Logger;
  sendTimeoutMs: number;
  sweepEveryMs?: number;
}

async function claim(client: PoolClient, drones: number): Promise<Pending[]> {
  const { rows: heads } = await client.query<{ drone_id: string }>(
    `SELECT o.drone_id FROM drone_command_outbox AS o
      WHERE o.command_id IN (SELECT DISTINCT ON (drone_id) command_id FROM drone_command_outbox WHERE sent_at IS NULL ORDER BY drone_id, seq)
        AND o.next_attempt_at <= clock_timestamp()
      LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
    [drones],
  );
  if (heads.length === 0) return [];
  const { rows } = await client.query<Pending>(
    `SELECT command_id, drone_id, command->>'type' AS type, command::text AS json, attempts, extract(epoch FROM clock_timestamp() - created_at)::float8 AS age
       FROM drone_command_outbox WHERE drone_id = ANY($1::text[]) AND sent_at IS NULL ORDER BY seq FOR UPDATE`,
    [heads.map((h) => h.drone_id)],
  );
  return rows;
}

/** The drone command outbox as the publisher sees it: commands keyed by drone, the outcome recorded in the claiming transaction. */
function droneCommandOutbox(deps: DroneCommandSenderDeps): OutboxSource<Pending> {
  return {
    claim: (client) => claim(client, DRONES_PER_TURN),
    records: (claimed) => claimed.map((c) => ({ topic: deps.topic, key: c.drone_id, value: deps.codec.encodeJsonText('droneCommands', c.json) })),
    sent: async (client, claimed) => {
      await client.query('UPDATE drone_command_outbox SET sent_at = clock_timestamp(), attempts = attempts + 1 WHERE command_id = ANY($1::text[])', [claimed.map((c) => c.command_id)]);
      for (const c of claimed) {
        sentTotal.inc({ type: c.type });
        outboxSeconds.observe({}, c.age);
      }
    },
    unsent: async (client, claimed, error) => {
      failedAttempts.inc();
      deps.log.warn({ err: error, commands: claimed.length }, 'drone commands not acknowledged by Kafka; retried after their delay');
      await client.query(
        `UPDATE drone_command_outbox SET attempts = attempts + 1, last_error = $2, next_attempt_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000) WHERE command_id = ANY($1::text[])`,
        [claimed.map((c) => c.command_id), error.message.slice(0, 1_000), RETRY_MS[Math.min(RETRY_MS.length - 1, claimed[0]?.attempts ?? 0)]],
      );
    },
  };
}

export class DroneCommandSender {
  readonly #publisher: OutboxPublisher<Pending>;

  constructor(deps: DroneCommandSenderDeps) {
    const sweepEveryMs = deps.sweepEveryMs ?? 1_000;
    this.#publisher = new OutboxPublisher({
      name: 'drone command sender', items: 'commands', outbox: 'drone_command_outbox', channel: DRONE_COMMANDS_CHANNEL,
      pool: deps.pool, producer: deps.producer, log: deps.log, source: droneCommandOutbox(deps), sendTimeoutMs: deps.sendTimeoutMs,
      // A claim is bounded by drones, not by commands: the drain goes on until a turn finds nothing due.
      sweepEveryMs, batchSize: 1,
      // A turn fails only on Postgres (Kafka's failures are recorded per command): tried again at the sweep's pace.
      backoff: { firstMs: sweepEveryMs, maxMs: sweepEveryMs },
    });
  }

  /** Listens for NOTIFY and starts the loop; its first turn sends everything due. */
  start(): Promise<void> {
    return this.#publisher.start();
  }

  wake(): void {
    this.#publisher.wake();
  }

  /** As the gate's sender: bounded by `deadline` (epoch ms; default 10 s from now), what is unacknowledged then stays in the outbox. */
  stop(deadline?: number): Promise<void> {
    return this.#publisher.stop(deadline);
  }

  /** Sends everything due now; how many commands were claimed. */
  drain(): Promise<number> {
    return this.#publisher.drain();
  }
}
