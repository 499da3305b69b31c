// Sends due attempts: claims them from the queue (queue.ts), signs and POSTs each (sender.ts), decides
// what follows (outcome.ts) and records results in batches. Concurrency is bounded per instance and per
// webhook, so a slow or dead endpoint holds at most its own slots while the others keep flowing.
import type { ComponentHealth } from '../../platform/health/model.ts';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { Config } from '../../platform/config.ts';
import type { RelaySignal } from '../../platform/context.ts';
import type { Logger } from '../../platform/log.ts';
import { NotifyListener } from '../../platform/notify-listener.ts';
import type { Pool } from '../../platform/postgres.ts';
import { deliveryRequest } from './delivery-request.ts';
import { webhookMetrics } from './metrics.ts';
import { decide, type AttemptResult } from './outcome.ts';
import { claimDue, recordAttempts, WEBHOOK_DUE_CHANNEL, type AttemptRecord, type ClaimedAttempt } from './queue.ts';
import type { SecretBox } from './secret-box.ts';
import { sendAttempt } from './sender.ts';

/** A claim lasts the attempt's timeout and this margin for recording it. */
const LEASE_MARGIN_MS = 30_000;
const METRICS_EVERY_MS = 10_000;

export type DispatcherConfig = Pick<Config, 'webhookTimeoutMs' | 'webhookConcurrency' | 'webhookEndpointConcurrency' | 'webhookPollMs' | 'webhookAllowLoopback'>;

export interface DispatcherDeps {
  pool: Pool;
  config: DispatcherConfig;
  clock: Clock;
  box: SecretBox;
  relay: RelaySignal;
  log: Logger;
}

/** Opens a sealed secret once per webhook and secret. */
class SecretCache {
  readonly #open = new Map<string, string>();
  constructor(private readonly box: SecretBox) {}
  get(webhookId: string, sealed: string): string {
    const key = `${webhookId}:${sealed}`;
    let secret = this.#open.get(key);
    if (secret === undefined) {
      if (this.#open.size > 10_000) this.#open.clear();
      this.#open.set(key, (secret = this.box.open(webhookId, sealed)));
    }
    return secret;
  }
}

/** Signs, sends and judges one claimed attempt. Shared by the dispatcher and the synchronous test send. */
export async function attemptDelivery(claimed: ClaimedAttempt, secret: string, deps: Pick<DispatcherDeps, 'clock' | 'config'>): Promise<AttemptRecord> {
  const now = deps.clock.now();
  const request = deliveryRequest({ deliveryId: claimed.id, webhookId: claimed.webhookId, event: claimed.event, attempt: claimed.attempt, now, secret, customHeaders: claimed.headers });
  const result: AttemptResult = await sendAttempt({ url: claimed.url, headers: request.headers, body: request.body, timeoutMs: deps.config.webhookTimeoutMs, allowLoopback: deps.config.webhookAllowLoopback });
  const attemptedAt = deps.clock.now();
  const decision = decide({ roundAttempts: claimed.roundAttempts, singleAttempt: claimed.singleAttempt }, result, attemptedAt);
  const outcome = decision.gone ? 'gone' : decision.status === 'pending' ? 'retry' : decision.status;
  webhookMetrics.attempts.inc({ outcome, reason: result.failure?.reason ?? '' });
  webhookMetrics.attemptSeconds.observe({ outcome }, result.responseTimeMs / 1000);
  return { claimed, result, decision, attemptedAt };
}

/** A claim failing for less than this is a retry, not yet a fault worth reporting. */
const FAILING_FOR_MS = 15_000;

export class Dispatcher {
  readonly #deps: DispatcherDeps;
  readonly #secrets: SecretCache;
  readonly #token = randomUUID();
  readonly #inFlight = new Map<string, number>();
  #inFlightTotal = 0;
  /** Attempts answered but not yet recorded. */
  #unrecorded = 0;
  #toRecord: AttemptRecord[] = [];
  #recording: Promise<void> | undefined;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  #running = false;
  #cancelPoll: (() => void) | undefined;
  #metricsTimer: NodeJS.Timeout | undefined;
  readonly #idle = new Set<() => void>();
  #failing: { since: number; error: string } | undefined;
  /** Deliveries recorded by any instance's matcher wake this dispatcher at once; the poll covers gaps. */
  readonly #listener: NotifyListener;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    this.#secrets = new SecretCache(deps.box);
    this.#listener = new NotifyListener({ pool: deps.pool, log: deps.log, channel: WEBHOOK_DUE_CHANNEL, what: 'webhook due listener', onNotify: () => this.wake() });
  }

  /** Whether recorded deliveries wake this dispatcher through NOTIFY. */
  get listening(): boolean {
    return this.#listener.listening;
  }

  /** This instance's matcher recorded deliveries: their NOTIFY wakes a listening dispatcher, so only one that cannot listen is woken here. */
  deliveriesRecorded(): void {
    if (!this.#listener.listening) this.wake();
  }

  start(): void {
    this.#running = true;
    void this.#listener.ensure();
    this.#schedulePoll();
    this.#metricsTimer = setInterval(() => void this.#refreshMetrics(), METRICS_EVERY_MS).unref();
    this.wake();
  }

  /**
   * The dispatcher as a component of the health model (docs/operations.md): down when every claim of due
   * attempts has failed for FAILING_FOR_MS (deliveries wait meanwhile; failing endpoints are the webhooks'
   * own health, GET /v1/webhooks/{id}).
   */
  health(now = Date.now()): ComponentHealth {
    if (!this.#running) return { status: 'down', reason: 'not running' };
    const failing = this.#failing;
    if (failing !== undefined && now - failing.since > FAILING_FOR_MS) {
      return { status: 'down', reason: `claiming due attempts has failed for ${Math.round((now - failing.since) / 1000)} s: ${failing.error}` };
    }
    return { status: 'ok', reason: '' };
  }

  /** Look for due attempts now (new deliveries were recorded, a replay was asked for). */
  wake(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      if (this.#pumpAgain && this.#running) {
        this.#pumpAgain = false;
        this.wake();
      }
    });
  }

  /** Sends every attempt due now and records them; for tests and tools that move the clock themselves. */
  async runOnce(): Promise<void> {
    for (;;) {
      const claimed = await this.#claim();
      if (claimed === 0 && this.#inFlightTotal === 0 && this.#unrecorded === 0) break;
      await this.#untilIdle();
    }
  }

  /** Stops claiming, finishes and records the attempts in flight (until `deadline`). */
  async stop(): Promise<void> {
    this.#running = false;
    this.#cancelPoll?.();
    await this.#listener.stop();
    clearInterval(this.#metricsTimer);
    await this.#pumping;
    await this.#untilIdle();
    await this.#recording;
  }

  #schedulePoll(): void {
    if (!this.#running) return;
    this.#cancelPoll = this.#deps.clock.after(this.#deps.config.webhookPollMs, () => {
      void this.#listener.ensure();
      this.wake();
      this.#schedulePoll();
    });
  }

  async #pump(): Promise<void> {
    try {
      while (this.#running && (await this.#claim()) > 0) {
        // Claim again at once while there is work and room: a backlog drains at full speed.
      }
      this.#failing = undefined;
    } catch (err) {
      this.#failing ??= { since: Date.now(), error: (err as Error).message };
      this.#deps.log.warn({ err }, 'webhook dispatcher: claiming due attempts failed; retrying at the next poll');
    }
  }

  async #claim(): Promise<number> {
    const { config, pool, clock } = this.#deps;
    // Results waiting to be recorded count against the room too, so a slow database slows claiming down.
    const room = config.webhookConcurrency - this.#inFlightTotal - Math.max(0, this.#unrecorded - config.webhookConcurrency);
    // While busy, claim in batches rather than one query per freed slot.
    if (room <= 0 || (this.#inFlightTotal > 0 && room < Math.ceil(config.webhookConcurrency / 8))) return 0;
    const claimed = await claimDue(pool, {
      now: clock.now(), limit: room, perEndpoint: config.webhookEndpointConcurrency, inFlight: this.#inFlight,
      leaseMs: config.webhookTimeoutMs + LEASE_MARGIN_MS, token: this.#token,
    });
    for (const c of claimed) this.#launch(c);
    return claimed.length;
  }

  #launch(claimed: ClaimedAttempt): void {
    this.#inFlight.set(claimed.webhookId, (this.#inFlight.get(claimed.webhookId) ?? 0) + 1);
    this.#inFlightTotal += 1;
    let secret: string;
    try {
      secret = this.#secrets.get(claimed.webhookId, claimed.secretSealed);
    } catch (err) {
      // Sealed with another key: nothing can be sent until the key is right; the lease brings it back.
      this.#deps.log.error({ err, webhook_id: claimed.webhookId }, 'webhook secret cannot be opened with PSS_WEBHOOK_SECRET_KEY (or PSS_WEBHOOK_SECRET_KEY_PREVIOUS)');
      this.#release([claimed]);
      return;
    }
    void attemptDelivery(claimed, secret, this.#deps).then(
      (record) => {
        // The slot is free once the endpoint answered; the lease keeps the delivery ours until it is recorded.
        this.#unrecorded += 1;
        this.#release([claimed]);
        this.#record(record);
      },
      (err: unknown) => {
        this.#deps.log.error({ err, delivery_id: claimed.id }, 'webhook attempt failed unexpectedly; its lease brings it back');
        this.#release([claimed]);
      },
    );
  }

  #record(record: AttemptRecord): void {
    this.#toRecord.push(record);
    this.#recording ??= this.#flush();
  }

  /** Records what finished, in batches, one transaction at a time; a failed write is retried. */
  async #flush(): Promise<void> {
    let failures = 0;
    while (this.#toRecord.length > 0) {
      const batch = this.#toRecord.splice(0, 500);
      try {
        const alerts = await recordAttempts(this.#deps.pool, batch);
        if (alerts > 0) this.#deps.relay.wake();
        failures = 0;
        this.#recorded(batch.length);
        if (batch.some((r) => r.decision.status === 'pending' || r.decision.gone)) this.#pumpAgain = true;
      } catch (err) {
        failures += 1;
        this.#deps.log.warn({ err, attempts: batch.length }, 'webhook dispatcher: recording attempts failed; retrying');
        this.#toRecord.unshift(...batch);
        if (failures > 20) {
          // The leases will bring these attempts back to be sent again: at most the attempts in flight repeat.
          this.#recorded(this.#toRecord.splice(0).length);
          break;
        }
        await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** failures)));
      }
    }
    this.#recording = undefined;
  }

  #release(claimed: ClaimedAttempt[]): void {
    for (const c of claimed) {
      const n = (this.#inFlight.get(c.webhookId) ?? 1) - 1;
      if (n <= 0) this.#inFlight.delete(c.webhookId);
      else this.#inFlight.set(c.webhookId, n);
      this.#inFlightTotal -= 1;
    }
    this.#checkIdle();
    if (this.#running && claimed.length > 0) this.wake();
  }

  #recorded(n: number): void {
    this.#unrecorded -= n;
    this.#checkIdle();
    if (this.#running) this.wake();
  }

  #checkIdle(): void {
    if (this.#inFlightTotal === 0 && this.#unrecorded === 0) for (const resolve of this.#idle) resolve();
  }

  #untilIdle(): Promise<void> {
    if (this.#inFlightTotal === 0 && this.#unrecorded === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#idle.delete(done);
        resolve();
      };
      this.#idle.add(done);
    });
  }

  async #refreshMetrics(): Promise<void> {
    try {
      const { rows } = await this.#deps.pool.query<{ depth: string; oldest: Date | null }>(
        `SELECT count(*) AS depth, min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
        [new Date(this.#deps.clock.now())],
      );
      const row = rows[0];
      webhookMetrics.queueDepth.set(Number(row?.depth ?? 0));
      webhookMetrics.oldestDueSeconds.set(row?.oldest ? Math.max(0, (this.#deps.clock.now() - row.oldest.getTime()) / 1000) : 0);
    } catch (err) {
      this.#deps.log.debug({ err }, 'webhook queue metrics not refreshed');
    }
  }
}
