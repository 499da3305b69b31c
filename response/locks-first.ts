// Gate locks ahead of everything else. A consumer group of its own on security.events records and executes
// the lock_gate actions of each new event whose zone alert rule asks for them, in one transaction per batch,
// before (and independently of) the incident bookkeeping, notifications and escalations of the main
// response group (response/role.ts). That work costs a dozen statements and more per event and falls
// behind under a burst; a lock waits for none of it. Both groups plan the same deterministic action ids,
// so whichever sees an event first executes its lock and the other finds it recorded: once either way.
// The lock is recorded before its event is attached to an incident; the main group fills its incident_id
// in when it attaches the event (action-log.ts recordNewActions), so the incident detail lists it.
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { inTransaction } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { recordExecuted, recordNewActions } from './action-log.ts';
import { countExecutedInline } from './executor.ts';
import { EventReads, type ActionInput, type EffectTransaction } from './executors/context.ts';
import { planActions, type PlannedAction } from './planner.ts';
import { matchedRule, respondsTo, type PlanningSnapshot } from './planning.ts';

/** The lock_gate actions of a batch's events: those their zone rules ask for (levels never lock). Pure. */
export function locksOf(events: readonly SecurityEvent[], snapshot: PlanningSnapshot): PlannedAction[] {
  const locks: PlannedAction[] = [];
  for (const event of events) {
    const rule = matchedRule(snapshot.alertRules, event);
    if (rule === undefined || !rule.actions.some((a) => a.action === 'lock_gates')) continue;
    // Without its incident (not attached yet): a lock is never muted and does not depend on it.
    locks.push(...planActions({ event, rule, config: snapshot.config, incident: undefined }).filter((a) => a.kind === 'lock_gate'));
  }
  return locks;
}

export interface LocksFirstOptions {
  snapshot(): Promise<PlanningSnapshot>;
  /** The lock_gate effect for many actions at once (executors/lock-gate.ts lockGatesEffect). */
  lockGates: (actions: readonly ActionInput[], tx: EffectTransaction) => Promise<Record<string, unknown>[]>;
  /** Records appended before this (ms) are history, not alerts (the response loop's first start). */
  since: number;
  log: Logger;
}

export async function startLocksFirst(ctx: ServiceContext, options: LocksFirstOptions): Promise<RunningRole> {
  const { snapshot, lockGates, since, log } = options;
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}response-locks`,
    topics: [ctx.topics.securityEvents],
    maxBatch: 200,
    lingerMs: 0,
    startAt: 'earliest',
  });
  await consumer.run(async (records) => {
    const { values } = await ctx.codec.decode('securityEvents', records);
    const events = values.filter((v) => v.record.timestamp >= since && respondsTo(v.record, v.value)).map((v) => v.value);
    if (events.length === 0) return;
    const locks = locksOf(events, await snapshot());
    if (locks.length === 0) return;
    const executed = await inTransaction(ctx.pool, async (client) => {
      const fresh = await recordNewActions(client, locks);
      // The causes as read from the topic: what a lock names of its cause (type, id, title) never changes.
      const reads = new EventReads(client);
      for (const event of events) reads.put(event);
      const due: ActionInput[] = locks.filter((l) => fresh.has(l.id)).map((l) => ({
        id: l.id, kind: l.kind, target: l.target, eventId: l.event_id, incidentId: null, level: l.level, reason: l.reason, params: l.params,
      }));
      const results = await lockGates(due, { client, events: reads, now: new Date() });
      await recordExecuted(client, due.map((a, i) => ({ id: a.id, result: results[i] ?? {} })));
      return due.length;
    }).catch((err: unknown) => {
      // A lock that cannot be made here (its gate left the configuration) is left to the main group,
      // which records it for the executor and its retries: this group never holds the topic up.
      log.warn({ err, locks: locks.length }, 'response locks: executing locks ahead failed; the response loop takes them');
      return 0;
    });
    for (let i = 0; i < executed; i++) countExecutedInline('lock_gate');
    if (executed > 0) ctx.relay.wake();
  });
  return { name: 'response-locks', stop: () => consumer.stop() };
}
