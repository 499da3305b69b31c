// Produces the gate command outbox (command-outbox.ts) to gate.commands. One sender runs on every
// processors instance (app/features.ts): it claims whole gates whose oldest unsent command is due, sends
// their commands in one request (key: gate, so a gate's commands keep their order on its partition),
// and records the outcome in the claiming transaction: sent, or due again after the retry delay. It wakes
// on the NOTIFY of a commit that wrote commands (any instance, any role) and sweeps every second for
// retries and for what a crashed instance left. The override's API sends its own command at once
// (`deliverCommandNow`) under the same claim, so the two never send one command at the same time. A
// crash between Kafka's acknowledgement and the commit sends those commands again, with the same ids.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import type { KafkaProducer } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import { counter, gauge } from '../../platform/metrics.ts';
import { startRetention } from '../../platform/periodic-job.ts';
import { NotifyListener } from '../../platform/notify-listener.ts';
import { inTransaction, type Pool, type PoolClient } from '../../platform/postgres.ts';
import { WakeSignal } from '../../platform/wake-signal.ts';
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

/** Sends claimed commands in one request and records the outcome in the claiming transaction; true once Kafka acknowledged. */
async function sendClaimed(deps: CommandSenderDeps, client: PoolClient, claimed: readonly PendingCommand[]): Promise<boolean> {
  const records = claimed.map((c) => ({ topic: deps.topic, key: c.gate, value: deps.codec.encodeJsonText('gateCommands', c.json) }));
  const error = await acknowledged(deps.producer.send(records), deps.sendTimeoutMs);
  if (error === undefined) {
    await recordSent(client, claimed, new Date());
    for (const c of claimed) sentTotal.inc({ origin: c.origin });
    return true;
  }
  failedAttempts.inc();
  deps.log.warn({ err: error, commands: claimed.length, gates: [...new Set(claimed.map((c) => c.gate))] }, 'gate commands not acknowledged by Kafka; retried after their delay');
  await recordFailed(client, claimed, error.message, new Date());
  return false;
}

/** undefined once `send` resolved within `timeoutMs`; else why not. */
async function acknowledged(send: Promise<void>, timeoutMs: number): Promise<Error | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error(`not acknowledged within ${timeoutMs} ms`)), timeoutMs)));
  try {
    return await Promise.race([send.then(() => undefined, (err: unknown) => (err instanceof Error ? err : new Error(String(err)))), timeout]);
  } finally {
    clearTimeout(timer);
  }
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
      return sendClaimed(deps, client, claimed);
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
  readonly #deps: CommandSenderDeps;
  readonly #opts: Required<CommandSenderOptions>;
  readonly #signal = new WakeSignal();
  #loop: Promise<void> | undefined;
  readonly #listener: NotifyListener;
  #nextHousekeeping = 0;

  constructor(deps: CommandSenderDeps, opts: CommandSenderOptions = {}) {
    this.#deps = deps;
    this.#opts = { ...DEFAULTS, ...opts };
    // Lost, the sweep covers the gap and housekeeping listens again.
    this.#listener = new NotifyListener({ pool: deps.pool, log: deps.log, channel: GATE_COMMANDS_CHANNEL, what: 'gate command listener', onNotify: () => this.wake() });
  }

  /** Listens for NOTIFY and starts the loop; its first turn sends everything due. */
  async start(): Promise<void> {
    await this.#listener.ensure();
    this.#loop ??= this.#run();
  }

  /** Send what is due now rather than at the next sweep. Wakes coalesce. */
  wake(): void {
    this.#signal.wake();
  }

  /** Finishes the turn in progress (a send waits at most its timeout), then stops listening. */
  async stop(): Promise<void> {
    this.#signal.stop();
    await this.#loop;
    await this.#listener.stop();
  }

  async #run(): Promise<void> {
    const signal = this.#signal;
    while (!signal.stopping) {
      signal.take();
      try {
        await this.#drain();
        if (Date.now() >= this.#nextHousekeeping) {
          this.#nextHousekeeping = Date.now() + HOUSEKEEPING_MS;
          oldestUnsent.set(await oldestUnsentSeconds(this.#deps.pool));
          await this.#listener.ensure();
        }
      } catch (err) {
        this.#deps.log.warn({ err }, 'gate command sender turn failed; the commands stay in the outbox');
      }
      await signal.pause(this.#opts.sweepEveryMs);
    }
  }

  /** Claims, sends and records turns until a turn finds less than a full batch. */
  async #drain(): Promise<void> {
    for (;;) {
      const claimed = await inTransaction(this.#deps.pool, async (client) => {
        const due = await claimDueGates(client, this.#opts.gatesPerTurn, this.#opts.batchSize);
        if (due.length > 0) await sendClaimed(this.#deps, client, due);
        return due.length;
      });
      if (claimed < this.#opts.batchSize || this.#signal.stopping) return;
    }
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
  return { name: 'gate-commands', stop: async () => void (await Promise.all([sender.stop(), retention.stop()])) };
}
