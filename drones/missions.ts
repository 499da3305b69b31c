// What happens to missions, in the caller's transaction: a request recorded and a drone chosen (or the
// mission left waiting), the fleet's reports applied through the state machine (mission-machine.ts), an
// abort, a deadline. Each step writes its mission change, its commands (commands.ts) and its events
// (mission-events.ts, through the one event store) together, so a crash repeats none of them.
import { createHash } from 'node:crypto';
import { storeEvents } from '../events/store.ts';
import { counter } from '../platform/metrics.ts';
import type { PoolClient } from '../platform/postgres.ts';
import type { DroneReport, MissionStatus } from '../schemas/drone.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { markDispatched } from './cause-event.ts';
import { abortCommand, enqueueDroneCommands, launchCommand, launchCommandId } from './commands.ts';
import { chooseDrone, etaOf, type FleetSettings } from './fleet-rules.ts';
import { targetPoint } from './geo.ts';
import { FINAL_STATUSES, transition, type MissionInput } from './mission-machine.ts';
import { evidenceCaptured, missionAborted, missionCompleted, missionLaunched } from './mission-events.ts';
import { claimDrone, existingMission, insertMission, listDrones, readMission, setDroneMission, updateMission, type Mission, type NewMission, type TimelineEntry } from './mission-store.ts';

const refusedReports = counter('pss_drone_reports_refused_total', 'Fleet reports that contradicted their mission\'s state (recorded in its timeline, not applied), by report type', ['type']);
const unknownReports = counter('pss_drone_reports_unknown_mission_total', 'Fleet reports naming a mission we do not know');

export type MissionSettings = FleetSettings & { ackTimeoutMs: number; requestTimeoutMs: number };

/** What a step did beyond its mission row: events stored (wake the relay) and commands written (the sender wakes on NOTIFY). */
export interface StepResult {
  events: SecurityEvent[];
  /** The mission reached a state in which its incident must escalate (timeout, rejected, failed). */
  unanswered?: { mission: Mission; outcome: MissionStatus; detail: string };
}

export function missionIdOf(cause: string): string {
  return `msn_${createHash('sha256').update(cause).digest('hex').slice(0, 24)}`;
}

const at = (now: Date) => now.toISOString();

export interface RequestOutcome {
  mission: Mission;
  /** False: the request named a mission already recorded (a retried action, a repeated key, the incident's active mission for the subject). */
  created: boolean;
  /** Why no drone took it (it waits in requested); undefined once a drone is assigned. */
  waiting?: string[];
  events: SecurityEvent[];
}

/** Records a mission and tries to give it a drone at once. */
export async function requestMission(client: PoolClient, m: NewMission, s: MissionSettings, now: Date): Promise<RequestOutcome> {
  const created = await insertMission(client, m, new Date(now.getTime() + s.requestTimeoutMs), now);
  const mission = created ? await readMission(client, m.id, true) : await existingMission(client, m);
  if (mission === undefined) throw new Error(`mission ${m.id} was neither recorded nor found`);
  // A request seen again (a retried action) tries for a drone again; another mission (same key, the subject's active one) is answered as it is.
  if (mission.id !== m.id || mission.drone_id !== null || mission.status !== 'requested') return { mission, created, events: [] };
  const assigned = await assignDrone(client, mission, s, now);
  const after = (await readMission(client, mission.id)) as Mission;
  return { mission: after, created, waiting: assigned.reasons, events: [] };
}

/**
 * Gives a waiting mission the available drone nearest by flight time and writes its launch command; the
 * fleet's acknowledgement is due within the ack timeout. Without a drone it keeps waiting (its request
 * deadline stands).
 */
export async function assignDrone(client: PoolClient, mission: Mission, s: MissionSettings, now: Date): Promise<{ droneId?: string; reasons?: string[] }> {
  const target = targetPoint(mission.target);
  // Read without locks (the telemetry intake holds drone rows briefly); the chosen drone is then claimed
  // with a conditional update, so two dispatches at once never take one drone: the loser chooses again.
  let drones = await listDrones(client);
  let choice = chooseDrone(drones, target, now.getTime(), s);
  while (choice.drone !== undefined && !(await claimDrone(client, choice.drone.id, mission.id))) {
    const taken = choice.drone.id;
    drones = drones.filter((d) => d.id !== taken);
    choice = chooseDrone(drones, target, now.getTime(), s);
  }
  if (choice.drone === undefined) {
    const detail = `no drone available: ${choice.reasons.join('; ')}`;
    const last = mission.timeline[mission.timeline.length - 1];
    if (last?.detail !== detail) await updateMission(client, mission.id, {}, [{ at: at(now), entry: 'note', detail }], now);
    return { reasons: choice.reasons };
  }
  const drone = choice.drone;
  const attempt = mission.launch_attempts + 1;
  const eta = etaOf(drone.position, target, drone.speedMps, s);
  await updateMission(client, mission.id, {
    drone_id: drone.id, dock_id: drone.dockId, launch_attempts: attempt, deadline_at: new Date(now.getTime() + s.ackTimeoutMs).toISOString(),
    eta_seconds: eta.etaSeconds, remaining_distance_m: eta.remainingM, battery_percent: drone.batteryPercent,
  }, [{ at: at(now), entry: 'command', command_id: launchCommandId(mission.id, attempt), detail: `launch ${drone.id} (${Math.round(choice.flightSeconds)} s away)` }], now);
  await enqueueDroneCommands(client, [launchCommand(mission, drone.id, attempt, now)]);
  if (mission.event_id !== null) await markDispatched(client, mission.event_id, mission.id);
  return { droneId: drone.id };
}

/** Applies an input to a locked mission: the state change, its timeline entry, the drone released, the events. */
async function apply(client: PoolClient, mission: Mission, input: MissionInput, detail: string, now: Date, extra: { reason?: string; droneId?: string; ackTimeoutMs?: number } = {}): Promise<StepResult> {
  const outcome = transition(mission.status, input, mission.drone_id !== null);
  if (!outcome.apply) {
    if (!outcome.repeat) {
      refusedReports.inc({ type: input.kind });
      await updateMission(client, mission.id, {}, [{ at: at(now), entry: 'refused', detail: `${outcome.refused} (${detail})` }], now, 1);
    }
    return { events: [] };
  }
  const to = outcome.to;
  const entry: TimelineEntry = { at: at(now), entry: 'status', from: mission.status, to, detail };
  const patch: Parameters<typeof updateMission>[2] = { status: to };
  if (to === 'launched') patch.launched_at = at(now);
  // Accepted: the launch itself is due within the ack timeout too.
  if (to === 'accepted' && extra.ackTimeoutMs !== undefined) patch.deadline_at = new Date(now.getTime() + extra.ackTimeoutMs).toISOString();
  if (FINAL_STATUSES.has(to)) {
    patch.finished_at = at(now);
    patch.deadline_at = null;
  }
  if (extra.reason !== undefined) patch.reason = extra.reason;
  const droneId = mission.drone_id;
  if (outcome.release === true && droneId !== null) {
    await setDroneMission(client, droneId, null, mission.id);
    // A temporary rejection frees the mission to wait for a drone again (this one or another).
    if (to === 'requested') {
      patch.drone_id = null;
      patch.dock_id = null;
    }
  }
  await updateMission(client, mission.id, patch, [entry], now);
  const after = { ...mission, ...patch, status: to } as Mission;
  const events: SecurityEvent[] = [];
  const drone = droneId ?? extra.droneId ?? 'none';
  if (to === 'launched') events.push(missionLaunched(after, drone, now));
  if (to === 'completed' || to === 'partially_completed') events.push(missionCompleted(after, drone, to, extra.reason, now));
  if (to === 'aborted') events.push(missionAborted(after, 'aborted', extra.reason ?? 'other', detail, now));
  if (to === 'rejected' || to === 'failed' || to === 'timeout') events.push(missionAborted(after, to, 'other', detail, now));
  await storeEvents(client, events);
  const unanswered = to === 'rejected' || to === 'failed' || to === 'timeout' ? { mission: after, outcome: to, detail } : undefined;
  return { events, ...(unanswered === undefined ? {} : { unanswered }) };
}

/** Applies one validated fleet report. Unknown missions are counted and skipped. */
export async function applyReport(client: PoolClient, report: DroneReport, s: Pick<MissionSettings, 'ackTimeoutMs'>, now: Date): Promise<StepResult> {
  const mission = await readMission(client, report.mission_id, true);
  if (mission === undefined) {
    unknownReports.inc();
    return { events: [] };
  }
  if (report.type === 'ack') {
    // Only the answer to the mission's current launch moves it; answers to earlier launches, aborts and other commands are kept as notes.
    if (report.command_id !== launchCommandId(mission.id, mission.launch_attempts)) {
      await updateMission(client, mission.id, {}, [{ at: at(now), entry: 'note', command_id: report.command_id, detail: `ack ${report.result}${report.reason === undefined ? '' : `: ${report.reason}`}` }], now);
      return { events: [] };
    }
    if (report.drone_id !== mission.drone_id) return apply(client, mission, { kind: 'progress', status: 'failed' }, `ack from ${report.drone_id}, not the assigned drone`, now);
    return apply(client, mission, { kind: 'ack', result: report.result }, `ack ${report.result}${report.reason === undefined ? '' : `: ${report.reason}`}`, now, { ackTimeoutMs: s.ackTimeoutMs });
  }
  if (report.type === 'progress') {
    const patch = {
      ...(report.remaining_distance_m === undefined ? {} : { remaining_distance_m: report.remaining_distance_m }),
      ...(report.eta_seconds === undefined ? {} : { eta_seconds: report.eta_seconds }),
    };
    if (Object.keys(patch).length > 0 && !FINAL_STATUSES.has(mission.status)) await updateMission(client, mission.id, patch, [], now);
    return apply(client, mission, { kind: 'progress', status: report.status }, `progress ${report.status}`, now, { ...(report.reason === undefined ? {} : { reason: report.reason }), droneId: report.drone_id });
  }
  // Evidence: kept once per media id; an evidence_captured event for each.
  const outcome = transition(mission.status, { kind: 'evidence' }, mission.drone_id !== null);
  if (!outcome.apply && !outcome.repeat) return apply(client, mission, { kind: 'evidence' }, `evidence ${report.media_id}`, now);
  if (mission.evidence.some((e) => e.media_id === report.media_id)) return { events: [] };
  const evidence = {
    media_id: report.media_id, media_type: report.media_type, at: report.at,
    ...(report.url === undefined ? {} : { url: report.url }), ...(report.position === undefined ? {} : { position: report.position }),
    ...(report.expected === undefined ? {} : { expected: report.expected }), ...(report.uploaded === undefined ? {} : { uploaded: report.uploaded }),
  };
  await updateMission(client, mission.id, {}, [{ at: at(now), entry: 'evidence', detail: `${report.media_type} ${report.media_id}` }], now, 0, evidence);
  const events = [evidenceCaptured({ ...mission, evidence: [...mission.evidence, evidence] }, report.drone_id, evidence, now)];
  await storeEvents(client, events);
  return { events };
}

/** An operator's (or the service's) abort: the mission ends as aborted now and the drone is told to abort and come home. */
export async function abortMission(client: PoolClient, id: string, reason: string, by: string, now: Date): Promise<{ mission: Mission | undefined; step: StepResult; refused?: string }> {
  const mission = await readMission(client, id, true);
  if (mission === undefined) return { mission, step: { events: [] } };
  const outcome = transition(mission.status, { kind: 'abort' }, mission.drone_id !== null);
  if (!outcome.apply) return { mission, step: { events: [] }, refused: `the mission is ${mission.status}` };
  if (mission.drone_id !== null) {
    await enqueueDroneCommands(client, [abortCommand(mission, mission.drone_id, reason, now)]);
    await updateMission(client, mission.id, {}, [{ at: at(now), entry: 'command', command_id: `cmd_${mission.id}_abort`, detail: `abort ${mission.drone_id}` }], now);
  }
  const step = await apply(client, mission, { kind: 'abort' }, `aborted by ${by}: ${reason}`, now, { reason });
  return { mission: await readMission(client, id), step };
}

/** A mission whose deadline passed: no drone in time, or no answer (acknowledgement or launch) from the fleet. */
export async function expireMission(client: PoolClient, mission: Mission, now: Date): Promise<StepResult> {
  const detail = mission.drone_id === null ? 'no drone became available before the deadline' : mission.status === 'requested' ? `no acknowledgement from ${mission.drone_id}` : `${mission.drone_id} did not report its launch`;
  if (mission.drone_id !== null && mission.status === 'accepted') await enqueueDroneCommands(client, [abortCommand(mission, mission.drone_id, 'timeout', now)]);
  return apply(client, mission, { kind: 'deadline' }, detail, now);
}

export interface Progress {
  missionId: string;
  position: { lon: number; lat: number };
  speedMps: number | null;
  battery: number;
}

/** Updates the active missions' ETA, remaining distance and battery from their drones' telemetry: one read and one write per batch. */
export async function trackProgress(client: PoolClient, progress: readonly Progress[], s: MissionSettings, now: Date): Promise<void> {
  if (progress.length === 0) return;
  const { rows } = await client.query<{ id: string; status: MissionStatus; target: Mission['target'] }>(
    `SELECT id, status, target FROM drone_missions WHERE id = ANY($1::text[]) AND status IN ('requested', 'accepted', 'launched', 'on_station', 'returning')`,
    [progress.map((p) => p.missionId)],
  );
  const missions = new Map(rows.map((r) => [r.id, r]));
  const updates = progress.flatMap((p) => {
    const m = missions.get(p.missionId);
    if (m === undefined) return [];
    const eta = etaOf(p.position, targetPoint(m.target), p.speedMps, s);
    return [{ id: m.id, eta: m.status === 'on_station' ? 0 : eta.etaSeconds, remaining: eta.remainingM, battery: p.battery }];
  });
  if (updates.length === 0) return;
  await client.query(
    `UPDATE drone_missions AS m SET eta_seconds = u.eta, remaining_distance_m = u.remaining, battery_percent = u.battery, updated_at = $2
       FROM jsonb_to_recordset($1::jsonb) AS u(id text, eta float8, remaining float8, battery float8) WHERE m.id = u.id`,
    [JSON.stringify(updates), now],
  );
}
