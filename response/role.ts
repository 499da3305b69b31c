// The response loop of a processors instance: a consumer group on security.events that attaches each new
// event to its incident and records its planned actions (response/planning.ts), the executor that runs
// them (response/executor.ts, one handler per kind), and the sweep that escalates unacknowledged incidents.
// Instances share the group, the action log and the sweep (SKIP LOCKED), so each action runs once.
import { dueEscalations } from '../incidents/store.ts';
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { startPeriodicJob } from '../platform/periodic-job.ts';
import { inTransaction, type Pool } from '../platform/postgres.ts';
import type { AlertRules } from '../schemas/maritime-rules.ts';
import type { SystemConfig } from '../schemas/system-config.ts';
import { loadAlertRules } from '../processors/maritime/rules-config/rule-store.ts';
import { recordActions } from './action-log.ts';
import { ActionExecutor, effectHandler } from './executor.ts';
import { closeIncidentEffect } from './executors/close-incident.ts';
import type { ExecutorContext } from './executors/context.ts';
import { dispatchDroneExecutor } from './executors/dispatch-drone.ts';
import { escalateEffect } from './executors/escalate.ts';
import { lockGateEffect, lockGatesEffect } from './executors/lock-gate.ts';
import { notifyEffect } from './executors/notify.ts';
import { actionId, type PlannedAction } from './planner.ts';
import { startLocksFirst } from './locks-first.ts';
import { planInLanes, respondsTo, type FirstAttempts } from './planning.ts';
import { SystemConfigCache } from './settings/system-config-cache.ts';
import { fleetSettings } from '../drones/settings.ts';

/** Zone alert rules are re-read at most this often, at the next batch after a change could have landed. */
const ALERT_RULES_MAX_AGE_MS = 1_000;
/**
 * Planning transactions run side by side per batch (by subject, response/planning.ts lanesOf): each event
 * costs about a dozen statements in order, so one transaction at a time capped the loop near 125 events/s
 * (bench response); four overlap their round trips without taking more than a few pool connections.
 */
const PLANNING_LANES = 4;
/** How often unacknowledged incidents are looked for. */
export const ACK_SWEEP_MS = 5_000;

/** The zone alert rules by zone name, read again when older than ALERT_RULES_MAX_AGE_MS: one query per second at most, never per event. */
class AlertRulesSnapshot {
  #rules: Map<string, AlertRules> | undefined;
  #readAt = 0;
  constructor(private readonly pool: Pool) {}
  async current(now = Date.now()): Promise<ReadonlyMap<string, AlertRules>> {
    if (this.#rules === undefined || now - this.#readAt > ALERT_RULES_MAX_AGE_MS) {
      this.#rules = await loadAlertRules(this.pool);
      this.#readAt = now;
    }
    return this.#rules;
  }
}

/** When the loop first ran on this site; events appended before it are history, not alerts to answer. */
async function firstStartedAt(pool: Pool): Promise<number> {
  await pool.query('INSERT INTO response_loop DEFAULT VALUES ON CONFLICT (singleton) DO NOTHING');
  const { rows } = await pool.query<{ ms: string }>('SELECT (extract(epoch FROM first_started_at) * 1000)::bigint AS ms FROM response_loop');
  return Number(rows[0]?.ms ?? 0);
}

/** The party an unacknowledged incident goes to next: the first of the escalation order not yet escalated to for it. */
export function nextParty(order: readonly string[], escalatedTo: ReadonlySet<string>): string | undefined {
  return order.find((party) => !escalatedTo.has(party));
}

/**
 * One acknowledgement-timeout sweep at `now`: each incident whose timeout passed moves one escalation step
 * up (incidents/store.ts stores its incident_escalated event) and an escalate action to the next party not
 * yet escalated to for it is recorded, its id derived from the escalation event. Returns the actions recorded.
 */
export async function sweepAckTimeouts(pool: Pool, config: SystemConfig, now: Date): Promise<PlannedAction[]> {
  const ackTimeoutMinutes = Object.fromEntries(Object.entries(config.alert_levels).map(([level, b]) => [level, b.ack_timeout_minutes]));
  return inTransaction(pool, async (client) => {
    const escalated = await dueEscalations(client, now, { ackTimeoutMinutes, escalationSteps: config.escalation_order.length });
    const actions: PlannedAction[] = [];
    for (const { incident, event } of escalated) {
      const { rows } = await client.query<{ target: string }>(`SELECT DISTINCT target FROM response_actions WHERE incident_id = $1 AND kind = 'escalate'`, [incident.id]);
      const party = nextParty(config.escalation_order, new Set(rows.map((r) => r.target)));
      if (party === undefined) continue;
      actions.push({
        id: actionId(event.id, 'escalate', party), kind: 'escalate', target: party, event_id: event.id, incident_id: incident.id,
        level: incident.severity, source: 'ack_timeout', reason: `ack_timeout:step ${incident.escalation_step}`, params: { escalation_event_id: event.id }, muted: false,
      });
    }
    await recordActions(client, actions);
    return actions;
  });
}

export async function startResponse(ctx: ServiceContext): Promise<RunningRole> {
  const log = ctx.log.child({ role: 'response' });
  const cache = new SystemConfigCache();
  await cache.start(ctx.pool, log);
  const rules = new AlertRulesSnapshot(ctx.pool);
  const since = await firstStartedAt(ctx.pool);
  const exec: ExecutorContext = { pool: ctx.pool, config: () => cache.current(), relay: ctx.relay, now: () => new Date() };
  // Every kind that only writes to Postgres makes its first attempt in the planning transaction; the
  // executor runs what planning left (a failed first attempt, a drone dispatch) and every retry.
  const effects = { notify: notifyEffect(exec), escalate: escalateEffect(exec), lock_gate: lockGateEffect(exec), close_incident: closeIncidentEffect() } satisfies FirstAttempts;
  const executor = new ActionExecutor({
    pool: ctx.pool, log,
    // Planning makes the first attempts; the executor runs retries and drone dispatches, so two connections
    // at most keep it from starving planning and the locks ahead of their share of the pool.
    concurrency: 2,
    handlers: {
      notify: effectHandler(exec, effects.notify), escalate: effectHandler(exec, effects.escalate), lock_gate: effectHandler(exec, effects.lock_gate),
      close_incident: effectHandler(exec, effects.close_incident), dispatch_drone: dispatchDroneExecutor(exec, fleetSettings(ctx.config)),
    },
  });
  executor.start();
  const snapshot = async () => ({ config: cache.current(), alertRules: await rules.current() });
  const locks = await startLocksFirst(ctx, { snapshot, lockGates: lockGatesEffect(exec), since, log });

  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}response`,
    topics: [ctx.topics.securityEvents],
    // A batch commits whole: smaller batches let the first actions out sooner.
    maxBatch: 200,
    lingerMs: 5,
    // A new group reads from the start, so nothing published before its first join is missed; what was
    // appended before the loop first ran on this site is skipped (`since`).
    startAt: 'earliest',
  });
  await consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('securityEvents', records);
    for (const f of failures) log.warn({ err: f.error, partition: f.record.partition, offset: String(f.record.offset) }, 'unreadable security event skipped');
    const events = values.filter((v) => v.record.timestamp >= since && respondsTo(v.record, v.value)).map((v) => v.value);
    if (events.length === 0) return;
    await planInLanes(ctx.pool, events, await snapshot(), new Date(), PLANNING_LANES, effects, log);
    // Attaching stores incident_created and republishes the events with their incident_id.
    ctx.relay.wake();
    executor.wake();
  });

  const sweep = startPeriodicJob({
    name: 'incident acknowledgement timeouts', everyMs: ACK_SWEEP_MS, log,
    run: async () => {
      const actions = await sweepAckTimeouts(ctx.pool, cache.current(), new Date());
      if (actions.length === 0) return;
      ctx.relay.wake();
      executor.wake();
    },
  });

  return {
    name: 'response',
    stop: async () => {
      await locks.stop();
      await consumer.stop();
      await sweep.stop();
      await executor.stop();
      await cache.stop();
    },
  };
}
