// Runs the action log: claims due actions (response/action-log.ts), hands each to the executor of its
// kind (response/executors/, one small file each) and records a failure for a retry. Woken when the
// planner records actions, and polling for retries and for what a crashed instance's lease gave back.
import type { Logger } from '../platform/log.ts';
import { counter, histogram } from '../platform/metrics.ts';
import { inTransaction, type Pool } from '../platform/postgres.ts';
import { RESPONSE_ACTION_KINDS } from '../schemas/incident.ts';
import { claimDueActions, completeAction, failAction, type ClaimedAction } from './action-log.ts';
import { RetryLater } from './retry-later.ts';
import { EventReads, type ActionEffect, type ExecutorContext } from './executors/context.ts';
import type { ActionKind } from './planner.ts';

const executed = counter('pss_response_actions_total', 'Response actions executed, by kind and outcome (done, retry, given_up, lost_claim)', ['kind', 'outcome'], { kind: RESPONSE_ACTION_KINDS, outcome: ['done', 'retry', 'given_up', 'lost_claim'] });
const latency = histogram('pss_response_action_seconds', 'From an action being recorded to its execution, first attempts', ['kind'], [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30], { kind: RESPONSE_ACTION_KINDS });

/**
 * Executes one action and records it done (completeAction) in the same transaction as its effect, so a
 * crash in between repeats neither. Returns false when the claim was lost; throws to have it retried.
 */
export type ActionHandler = (action: ClaimedAction) => Promise<boolean>;

/** An effect (executors/context.ts) run by the executor: in a transaction of its own that also records it done. */
export function effectHandler(ctx: ExecutorContext, effect: ActionEffect): ActionHandler {
  return async (action) => {
    const kept = await inTransaction(ctx.pool, async (client) => {
      const result = await effect(action, { client, events: new EventReads(client), now: ctx.now() });
      return completeAction(client, action, result);
    });
    ctx.relay.wake();
    return kept;
  };
}

/** Counts an action whose first attempt ran in the planning transaction (response/planning.ts). */
export function countExecutedInline(kind: ActionKind): void {
  executed.inc({ kind, outcome: 'done' });
  latency.observe({ kind }, 0);
}

export interface ExecutorOptions {
  pool: Pool;
  log: Logger;
  handlers: Readonly<Record<ActionKind, ActionHandler>>;
  pollMs?: number;
  batch?: number;
  /** Actions executed at once (each holds a pool connection while it runs). */
  concurrency?: number;
}

export class ActionExecutor {
  readonly #o: Required<ExecutorOptions>;
  #running = false;
  #pumping: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #settled: (() => void) | undefined;

  constructor(options: ExecutorOptions) {
    this.#o = { pollMs: 500, batch: 100, concurrency: 6, ...options };
  }

  start(): void {
    this.#running = true;
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs).unref();
    this.wake();
  }

  /** Look for due actions now (the planner just recorded some). */
  wake(): void {
    if (!this.#running) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Executes everything due now, for tests that move time themselves. */
  async runOnce(now = Date.now()): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await claimDueActions(this.#o.pool, this.#o.batch, now);
      if (claimed.length === 0) return total;
      await Promise.all(claimed.map((a) => this.#execute(a, now)));
      total += claimed.length;
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearInterval(this.#timer);
    await this.#pumping;
    // Actions in flight finish (their transactions commit or roll back) before the pool closes.
    while (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#settled = resolve));
  }

  /**
   * Keeps up to `concurrency` actions in flight, claiming more as slots free up, so one slow action (a lock
   * waiting on the outbox) never holds back the others; returns when nothing is due. A finishing action
   * wakes the pump again, since more may have come due meanwhile.
   */
  async #pump(): Promise<void> {
    try {
      while (this.#running) {
        const room = Math.min(this.#o.batch, this.#o.concurrency - this.#inFlight);
        if (room <= 0) return;
        const claimed = await claimDueActions(this.#o.pool, room);
        if (claimed.length === 0) return;
        for (const action of claimed) {
          this.#inFlight++;
          void this.#execute(action, Date.now()).finally(() => {
            this.#inFlight--;
            this.#settled?.();
            this.wake();
          });
        }
      }
    } catch (err) {
      this.#o.log.warn({ err }, 'response executor: claiming due actions failed; retrying at the next poll');
    }
  }

  async #execute(action: ClaimedAction, now: number): Promise<void> {
    const log = this.#o.log.child({ action_id: action.id, kind: action.kind, target: action.target, event_id: action.eventId });
    try {
      const kept = await this.#o.handlers[action.kind](action);
      executed.inc({ kind: action.kind, outcome: kept ? 'done' : 'lost_claim' });
      if (action.attempt === 1) latency.observe({ kind: action.kind }, Math.max(0, now - action.recordedAt) / 1000);
    } catch (err) {
      const outcome = await failAction(this.#o.pool, action, err instanceof Error ? err.message : String(err), now).catch((e: unknown) => {
        log.warn({ err: e }, 'response executor: recording a failed action failed; its lease brings it back');
        return 'retry' as const;
      });
      executed.inc({ kind: action.kind, outcome });
      if (err instanceof RetryLater && outcome === 'retry') {
        // Expected and handled (e.g. no drone free yet: the incident was escalated meanwhile): a line, not an alarm.
        log.info({ attempt: action.attempt, reason: err.message }, 'response action waiting; retried on its schedule');
      } else {
        (outcome === 'given_up' ? log.error.bind(log) : log.warn.bind(log))({ err, attempt: action.attempt }, `response action failed (${outcome})`);
      }
    }
  }
}
