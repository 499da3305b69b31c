// Reads what the fleet adapter says: drone.telemetry and drone.reports, as text (the adapter is outside the
// service), each record parsed and validated against schemas/drone.ts on the way in. A record that is not
// JSON or fails its schema goes to the dead-letter topic with the reason and is passed over: the feed never
// stalls on it. Valid records are applied in one transaction per batch, reports in the order of their
// partition (one drone's reports keep their order: the key is the drone).
import { compileSchema, describeErrors } from '../ingest/validation.ts';
import { deadLetter } from '../ingest/dead-letter.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { InRecord, OutRecord } from '../platform/kafka/index.ts';
import { counter } from '../platform/metrics.ts';
import type { PoolClient } from '../platform/postgres.ts';
import { droneReportSchema, droneTelemetrySchema, type DroneReport, type DroneTelemetry } from '../schemas/drone.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { applyReport, type MissionSettings, type StepResult } from './missions.ts';
import { applyTelemetry } from './telemetry.ts';

const validTelemetry = compileSchema<DroneTelemetry>(droneTelemetrySchema);
const validReport = compileSchema<DroneReport>(droneReportSchema);
const deadLettered = counter('pss_drone_records_dead_lettered_total', 'Fleet records that were not JSON or failed schemas/drone.ts, by topic', ['topic']);

export type Judged<T> = { ok: true; value: T } | { ok: false; detail: string; reason: 'invalid_json' | 'drone_record_invalid' };

export function judgeTelemetry(text: string): Judged<DroneTelemetry> {
  return judge(text, validTelemetry);
}
export function judgeReport(text: string): Judged<DroneReport> {
  return judge(text, validReport);
}

function judge<T>(text: string, validate: ReturnType<typeof compileSchema<T>>): Judged<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: 'invalid_json', detail: `not JSON: ${(err as Error).message}` };
  }
  if (!validate(value)) return { ok: false, reason: 'drone_record_invalid', detail: describeErrors(validate.errors) };
  return { ok: true, value: value as T };
}

export function droneDeadLetter(ctx: Pick<ServiceContext, 'topics' | 'codec'>, raw: string, source: string, judged: { reason: 'invalid_json' | 'drone_record_invalid'; detail: string }, now: Date): OutRecord {
  const letter = deadLetter({ feed: 'drone', raw: [raw], source, reason: judged.reason, detail: judged.detail, at: now.toISOString() });
  return { topic: ctx.topics.deadLetter, key: letter.source, value: ctx.codec.encode('deadLetter', letter) };
}

export interface IntakeBatch {
  telemetry: DroneTelemetry[];
  reports: DroneReport[];
  letters: OutRecord[];
}

/** Sorts a batch of both topics into valid telemetry, valid reports (in record order) and dead letters. */
export function sortRecords(ctx: Pick<ServiceContext, 'topics' | 'codec'>, records: readonly InRecord[], now: Date): IntakeBatch {
  const out: IntakeBatch = { telemetry: [], reports: [], letters: [] };
  for (const r of records) {
    const text = r.value.toString('utf8');
    const isTelemetry = r.topic === ctx.topics.droneTelemetry;
    const judged = isTelemetry ? judgeTelemetry(text) : judgeReport(text);
    if (judged.ok) {
      if (isTelemetry) out.telemetry.push(judged.value as DroneTelemetry);
      else out.reports.push(judged.value as DroneReport);
      continue;
    }
    deadLettered.inc({ topic: r.topic });
    out.letters.push(droneDeadLetter(ctx, text, `${isTelemetry ? 'drone.telemetry' : 'drone.reports'}:${r.key ?? ''}`, judged, now));
  }
  return out;
}

export type UnansweredHook = (client: PoolClient, unanswered: NonNullable<StepResult['unanswered']>) => Promise<void>;

/** Applies a sorted batch in the caller's transaction; returns the events stored. */
export async function applyBatch(client: PoolClient, batch: IntakeBatch, s: MissionSettings, now: Date, onUnanswered?: UnansweredHook): Promise<SecurityEvent[]> {
  const events = await applyTelemetry(client, batch.telemetry, s, now);
  for (const report of batch.reports) {
    const step = await applyReport(client, report, s, now);
    events.push(...step.events);
    if (step.unanswered !== undefined) await onUnanswered?.(client, step.unanswered);
  }
  return events;
}
