// Produces the drone command outbox (commands.ts) to drone.commands, as the gate's sender does its outbox
// (processors/gate/command-sender.ts): it claims drones whose oldest unsent command is due (FOR UPDATE SKIP
// LOCKED on that head, so two instances never hold one drone and a drone's commands keep their order), sends
// them in one request keyed by drone, and records the outcome in the claiming transaction. It wakes on the
// NOTIFY of a commit that wrote commands and sweeps for retries. A crash between Kafka's acknowledgement and
// the commit sends those commands again with the same ids: the adapter executes each id once.
import type { KafkaProducer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { counter, histogram } from '../platform/metrics.ts';
import { NotifyListener } from '../platform/notify-listener.ts';
import { inTransaction, type Pool, type PoolClient } from '../platform/postgres.ts';
import { WakeSignal } from '../platform/wake-signal.ts';
import type { TopicCodec } from '../platform/codec/index.ts';
import { DRONE_COMMANDS_CHANNEL } from './commands.ts';

const sentTotal = counter('pss_drone_commands_sent_total', 'Drone commands Kafka acknowledged, by type', ['type']);
const failedAttempts = counter('pss_drone_command_failed_attempts_total', 'Drone command sends Kafka did not acknowledge (each retried)');
const outboxSeconds = histogram('pss_drone_command_outbox_seconds', 'From a drone command written to Kafka acknowledging it', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]);

const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000];

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

async function sendClaimed(deps: DroneCommandSenderDeps, client: PoolClient, claimed: Pending[]): Promise<void> {
  const records = claimed.map((c) => ({ topic: deps.topic, key: c.drone_id, value: deps.codec.encodeJsonText('droneCommands', c.json) }));
  let timer: NodeJS.Timeout | undefined;
  const error = await Promise.race([
    deps.producer.send(records).then(() => undefined, (err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error(`not acknowledged within ${deps.sendTimeoutMs} ms`)), deps.sendTimeoutMs))),
  ]).finally(() => clearTimeout(timer));
  const ids = claimed.map((c) => c.command_id);
  if (error === undefined) {
    await client.query('UPDATE drone_command_outbox SET sent_at = clock_timestamp(), attempts = attempts + 1 WHERE command_id = ANY($1::text[])', [ids]);
    for (const c of claimed) {
      sentTotal.inc({ type: c.type });
      outboxSeconds.observe({}, c.age);
    }
    return;
  }
  failedAttempts.inc();
  deps.log.warn({ err: error, commands: claimed.length }, 'drone commands not acknowledged by Kafka; retried after their delay');
  await client.query(
    `UPDATE drone_command_outbox SET attempts = attempts + 1, last_error = $2, next_attempt_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000) WHERE command_id = ANY($1::text[])`,
    [ids, error.message.slice(0, 1_000), RETRY_MS[Math.min(RETRY_MS.length - 1, claimed[0]?.attempts ?? 0)]],
  );
}

export class DroneCommandSender {
  readonly #deps: DroneCommandSenderDeps;
  readonly #signal = new WakeSignal();
  readonly #listener: NotifyListener;
  #loop: Promise<void> | undefined;

  constructor(deps: DroneCommandSenderDeps) {
    this.#deps = deps;
    // Lost, the sweep covers the gap and the next turn listens again.
    this.#listener = new NotifyListener({ pool: deps.pool, log: deps.log, channel: DRONE_COMMANDS_CHANNEL, what: 'drone command listener', onNotify: () => this.wake() });
  }

  async start(): Promise<void> {
    await this.#listener.ensure();
    this.#loop ??= this.#run();
  }

  wake(): void {
    this.#signal.wake();
  }

  async stop(): Promise<void> {
    this.#signal.stop();
    await this.#loop;
    await this.#listener.stop();
  }

  /** Sends everything due now (tests and the bench call it between steps). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await inTransaction(this.#deps.pool, async (client) => {
        const due = await claim(client, 100);
        if (due.length > 0) await sendClaimed(this.#deps, client, due);
        return due.length;
      });
      total += n;
      if (n === 0 || this.#signal.stopping) return total;
    }
  }

  async #run(): Promise<void> {
    const signal = this.#signal;
    while (!signal.stopping) {
      signal.take();
      try {
        await this.drain();
        await this.#listener.ensure();
      } catch (err) {
        this.#deps.log.warn({ err }, 'drone command sender turn failed; the commands stay in the outbox');
      }
      await signal.pause(this.#deps.sweepEveryMs ?? 1_000);
    }
  }
}
