// Produces the gate command outbox (command-outbox.ts) to gate.commands. One sender runs on every
// processors instance (app/features.ts): it claims whole gates whose oldest unsent command is due, sends
// their commands in one request (key: gate, so a gate's commands keep their order on its partition),
// and records the outcome in the claiming transaction: sent, or due again after the retry delay. It wakes
// on the NOTIFY of a commit that wrote commands (any instance, any role) and sweeps every second for
// retries and for what a crashed instance left. The override's API sends its own command at once
// (`deliverCommandNow`) under the same claim, so the two never send one command at the same time. A
// crash between Kafka's acknowledgement and the commit sends those commands again, with the same ids.
// The loop (wakes, sweeps, the bounded stop) is the platform's outbox publisher; this file is the outbox's part.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import type { KafkaProducer } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import { counter, gauge } from '../../platform/metrics.ts';
import { OutboxPublisher, sendClaimed, type OutboxSource } from '../../platform/outbox-publisher.ts';
import { startRetention } from '../../platform/periodic-job.ts';
import { inTransaction, type Pool } from '../../platform/postgres.ts';
import type { TopicCodec } from '../../platform/codec/index.ts';
import { GATE_COMMAND_ORIGINS } from '../../schemas/gate-transaction.ts';
import { claimDueGates, claimThrough, expireSentCommands, GATE_COMMANDS_CHANNEL, oldestUnsentSeconds, recordFailed, recordSent, type PendingCommand } from './command-outbox.ts';

const sentTotal = counter('pss_gate_commands_sent_total', 'Gate commands Kafka acknowledged, by origin (decision, override, response)', ['origin'], { origin: GATE_COMMAND_ORIGINS });
const failedAttempts = counter('pss_gate_command_failed_attempts_total', 'Gate command sends Kafka did not acknowledge in time (each retried after its delay)');
const oldestUnsent = gauge('pss_gate_commands_oldest_unsent_seconds', 'Age of the oldest gate command not yet acknowledged by Kafka, at the last sweep');

/** Sent commands are kept as long as gate.commands keeps them (platform/topics.ts), then deleted. */
const SENT_RETENTION_DAYS = 7;

export interface CommandSenderDeps {
  pool: Pool;
  producer: KafkaProducer;
  codec: TopicCodec;
  /** gate.commands as deployed. */
  topic: string;
  log: Logger;
  /** How long one send waits for Kafka's acknowledgement before it counts as failed. */
  sendTimeoutMs: number;
}

export function commandSenderDeps(ctx: Pick<ServiceContext, 'pool' | 'producer' | 'codec' | 'topics' | 'log' | 'config'>): CommandSenderDeps {
  return { pool: ctx.pool, producer: ctx.producer, codec: ctx.codec, topic: ctx.topics.gateCommands, log: ctx.log, sendTimeoutMs: ctx.config.gateCommandAckTimeoutMs };
}

/**
 * The gate command outbox as the publisher sees it: commands keyed by gate (a gate's keep their order on
 * its partition), the outcome recorded in the claiming transaction: sent, or due again after the retry delay.
 */
function gateCommandOutbox(deps: CommandSenderDeps, opts: Required<CommandSenderOptions>): OutboxSource<PendingCommand> {
  return {
    claim: (client) => claimDueGates(client, opts.gatesPerTurn, opts.batchSize),
    records: (claimed) => claimed.map((c) => ({ topic: deps.topic, key: c.gate, value: deps.codec.encodeJsonText('gateCommands', c.json) })),
    sent: async (client, claimed) => {
      await recordSent(client, claimed, new Date());
      for (const c of claimed) sentTotal.inc({ origin: c.origin });
    },
    unsent: async (client, claimed, error) => {
      failedAttempts.inc();
      deps.log.warn({ err: error, commands: claimed.length, gates: [...new Set(claimed.map((c) => c.gate))] }, 'gate commands not acknowledged by Kafka; retried after their delay');
      await recordFailed(client, claimed, error.message, new Date());
    },
  };
}

/**
 * The first attempt of a command someone waits for (an override): claims its gate up to it (waiting for
 * a sender that holds the gate, within the send timeout) and sends. True once Kafka acknowledged it, by
 * this call or by the sender it waited for. False otherwise; the command stays in the outbox and the
 * senders retry it. Never throws: the cause is committed whatever happens here.
 */
export async function deliverCommandNow(deps: CommandSenderDeps, commandId: string): Promise<boolean> {
  try {
    return await inTransaction(deps.pool, async (client) => {
      const claimed = await claimThrough(client, commandId, deps.sendTimeoutMs);
      if (claimed === 'sent' || claimed === 'unknown') return claimed === 'sent';
      return sendClaimed({ producer: deps.producer, sendTimeoutMs: deps.sendTimeoutMs, source: gateCommandOutbox(deps, DEFAULTS) }, client, claimed);
    });
  } catch (err) {
    deps.log.warn({ err, command_id: commandId }, 'gate command not sent at once; the outbox senders retry it');
    return false;
  }
}

export interface CommandSenderOptions {
  /** How often the outbox is swept without a NOTIFY (retries due, what a crashed instance left). */
  sweepEveryMs?: number;
  /** Gates claimed per turn. */
  gatesPerTurn?: number;
  /** Commands sent per turn. */
  batchSize?: number;
}

const DEFAULTS: Required<CommandSenderOptions> = { sweepEveryMs: 1_000, gatesPerTurn: 100, batchSize: 1_000 };
/** The oldest-unsent gauge and a lost LISTEN connection are looked at this often. */
const HOUSEKEEPING_MS = 5_000;

export class GateCommandSender {
  readonly #publisher: OutboxPublisher<PendingCommand>;

  constructor(deps: CommandSenderDeps, options: CommandSenderOptions = {}) {
    const opts = { ...DEFAULTS, ...options };
    this.#publisher = new OutboxPublisher({
      name: 'gate command sender', items: 'commands', outbox: 'gate_command_outbox', channel: GATE_COMMANDS_CHANNEL,
      pool: deps.pool, producer: deps.producer, log: deps.log, source: gateCommandOutbox(deps, opts), sendTimeoutMs: deps.sendTimeoutMs,
      sweepEveryMs: opts.sweepEveryMs, batchSize: opts.batchSize,
      // A turn fails only on Postgres (Kafka's failures are recorded per command): tried again at the sweep's pace.
      backoff: { firstMs: opts.sweepEveryMs, maxMs: opts.sweepEveryMs },
      housekeepingEveryMs: HOUSEKEEPING_MS,
      housekeeping: async () => oldestUnsent.set(await oldestUnsentSeconds(deps.pool)),
    });
  }

  /** Listens for NOTIFY and starts the loop; its first turn sends everything due. */
  start(): Promise<void> {
    return this.#publisher.start();
  }

  /** Send what is due now rather than at the next sweep. Wakes coalesce. */
  wake(): void {
    this.#publisher.wake();
  }

  /**
   * Finishes the turn in progress (a send waits at most its timeout), and one more if a wake came first,
   * until `deadline` (epoch ms; default 10 s from now), then stops listening. A batch still unacknowledged
   * then stays in the outbox, logged, for the next turn of any sender.
   */
  stop(deadline?: number): Promise<void> {
    return this.#publisher.stop(deadline);
  }
}

/** The processors role's sender, and the retention of what it sent. */
export async function startGateCommandSender(ctx: ServiceContext): Promise<RunningRole> {
  const log = ctx.log.child({ role: 'gate-commands' });
  const sender = new GateCommandSender({ ...commandSenderDeps(ctx), log });
  await sender.start();
  const retention = startRetention({
    name: 'gate-command-retention', days: SENT_RETENTION_DAYS, log,
    expire: (days) => expireSentCommands(ctx.pool, days), deletedMessage: 'sent gate commands deleted from the outbox',
  });
  return { name: 'gate-commands', stop: async (deadline) => void (await Promise.all([sender.stop(deadline), retention.stop()])) };
}
