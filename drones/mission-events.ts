// The six drone events (events/event-types.ts, fixed severities), built from the mission or drone they are
// about. Each id is derived from its cause (the mission and the transition, the media, the silence or the
// telemetry record that crossed the threshold), so a replayed report or a retried sweep stores nothing twice.
import { eventId } from '../events/event-id.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { targetPoint } from './geo.ts';
import type { Mission } from './mission-store.ts';

/** source_module of the events the drone missions store. */
export const DRONES_MODULE = 'drones';

type DroneEventType = 'mission_launched' | 'mission_completed' | 'evidence_captured' | 'drone_low_battery' | 'drone_lost_link' | 'mission_aborted';
const SEVERITY = { mission_launched: 'low', mission_completed: 'low', evidence_captured: 'low', drone_low_battery: 'medium', drone_lost_link: 'high', mission_aborted: 'medium' } as const;

interface Parts {
  type: DroneEventType;
  cause: string;
  at: Date;
  droneId: string;
  title: string;
  description: string;
  position?: { lon: number; lat: number };
  mission?: Mission;
  metadata?: Record<string, unknown>;
}

function droneEvent(p: Parts): SecurityEvent {
  const m = p.mission;
  const where = p.position ?? (m === undefined ? undefined : targetPoint(m.target));
  return {
    id: eventId(`${p.type}:${p.cause}`),
    type: p.type,
    timestamp: p.at.toISOString(),
    category: 'drone',
    severity: SEVERITY[p.type],
    source_module: DRONES_MODULE,
    source_device: p.droneId,
    title: p.title,
    description: p.description,
    location: where === undefined ? {} : { lat: where.lat, lng: where.lon },
    metadata: {
      drone_id: p.droneId,
      ...(m === undefined ? {} : { mission_id: m.id, mission_kind: m.kind, incident_id: m.incident_id, cause_event_id: m.event_id, subject: m.subject }),
      // The cause's vessel: the mission's events join its incident (incidents/grouping.ts).
      ...(m?.mmsi == null ? {} : { mmsi: m.mmsi }),
      ...p.metadata,
    },
    requires_action: p.type === 'drone_lost_link' || p.type === 'drone_low_battery' || p.type === 'mission_aborted',
    assigned_to: '',
    incident_id: m?.incident_id ?? null,
  };
}

export function missionLaunched(m: Mission, droneId: string, at: Date): SecurityEvent {
  return droneEvent({ type: 'mission_launched', cause: m.id, at, droneId, mission: m, title: `Drone ${droneId} launched: ${m.kind} ${m.subject}`, description: `Mission ${m.id} (${m.kind}) launched from ${m.dock_id ?? 'its dock'}`, metadata: { eta_seconds: m.eta_seconds, dock_id: m.dock_id } });
}

export function missionCompleted(m: Mission, droneId: string, outcome: 'completed' | 'partially_completed', reason: string | undefined, at: Date): SecurityEvent {
  return droneEvent({
    type: 'mission_completed', cause: m.id, at, droneId, mission: m,
    title: `Drone mission ${outcome === 'completed' ? 'completed' : 'partially completed'}: ${m.kind} ${m.subject}`,
    description: `Mission ${m.id} ${outcome.replace('_', ' ')}${reason === undefined ? '' : ` (${reason})`} with ${m.evidence.length} evidence records`,
    metadata: { outcome, ...(reason === undefined ? {} : { reason }), evidence_count: m.evidence.length },
  });
}

export function evidenceCaptured(m: Mission, droneId: string, media: { media_id: string; media_type: string; url?: string; position?: { lon: number; lat: number } }, at: Date): SecurityEvent {
  return droneEvent({
    type: 'evidence_captured', cause: `${m.id}:${media.media_id}`, at, droneId, mission: m, position: media.position,
    title: `Drone evidence: ${media.media_type} of ${m.subject}`, description: `Mission ${m.id} captured ${media.media_type} ${media.media_id}`,
    metadata: { media_id: media.media_id, media_type: media.media_type, ...(media.url === undefined ? {} : { url: media.url }) },
  });
}

/** An ended mission that did not fly to the end: aborted (reason weather, manual, low_battery, other), or rejected, failed, timed out (reason other, outcome says which). */
export function missionAborted(m: Mission, outcome: 'aborted' | 'rejected' | 'failed' | 'timeout', reason: string, detail: string, at: Date): SecurityEvent {
  return droneEvent({
    type: 'mission_aborted', cause: m.id, at, droneId: m.drone_id ?? 'none', mission: m,
    title: `Drone mission ${outcome === 'aborted' ? 'aborted' : outcome === 'timeout' ? 'timed out' : outcome}: ${m.kind} ${m.subject}`,
    description: `Mission ${m.id}: ${detail}`,
    metadata: { outcome, reason, detail },
  });
}

export function droneLowBattery(droneId: string, battery: number, position: { lon: number; lat: number }, recordAt: string, mission: Mission | undefined, at: Date): SecurityEvent {
  return droneEvent({
    type: 'drone_low_battery', cause: `${droneId}:${recordAt}`, at, droneId, mission, position,
    title: `Drone ${droneId} battery low: ${Math.round(battery)}%`, description: `Drone ${droneId} reported ${battery}% battery${mission === undefined ? '' : ` on mission ${mission.id}`}`,
    metadata: { battery_percent: battery },
  });
}

export function droneLostLink(droneId: string, lastSeen: Date, position: { lon: number; lat: number }, silentMs: number, mission: Mission | undefined, at: Date): SecurityEvent {
  return droneEvent({
    type: 'drone_lost_link', cause: `${droneId}:${lastSeen.toISOString()}`, at, droneId, mission, position,
    title: `Drone ${droneId} lost link`, description: `No telemetry from drone ${droneId} for ${Math.round(silentMs / 1000)} s (last seen ${lastSeen.toISOString()})`,
    metadata: { last_seen: lastSeen.toISOString(), silent_seconds: Math.round(silentMs / 1000) },
  });
}
