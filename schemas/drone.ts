// Drone missions (issue 24, docs/drones.md): the fleet contract over Kafka (drone.commands out, drone.telemetry
// and drone.reports in) and the missions API. An adapter to a real fleet (a DJI dock over MQTT, FlytBase, a
// MAVLink ground station) translates between these records and its fleet; `pss drones simulate` is one.
import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';
import { DRONE_MISSIONS } from './maritime-rules.ts';

/** Mission kinds: the alert rules' `dispatch_drone` missions (schemas/maritime-rules.ts). */
export const MISSION_KINDS = DRONE_MISSIONS;
export type MissionKind = (typeof MISSION_KINDS)[number];

export const MISSION_STATUSES = ['requested', 'accepted', 'rejected', 'launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted', 'failed', 'timeout'] as const;
export type MissionStatus = (typeof MISSION_STATUSES)[number];

export const ABORT_REASONS = ['weather', 'manual', 'low_battery', 'other'] as const;

const lonLat = {
  type: 'object',
  additionalProperties: false,
  required: ['lon', 'lat'],
  properties: { lon: { type: 'number', minimum: -180, maximum: 180 }, lat: { type: 'number', minimum: -90, maximum: 90 } },
} as const;

const coordinate = { type: 'array', minItems: 2, maxItems: 3, items: { type: 'number', minimum: -180, maximum: 180 } } as const;

/** Where a mission flies: a point (inspect, evidence, track) or an area (perimeter_sweep, a zone), GeoJSON in WGS 84. */
export const missionTargetSchema = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['type', 'coordinates'], properties: { type: { const: 'Point' }, coordinates: coordinate } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'coordinates'],
      properties: { type: { const: 'Polygon' }, coordinates: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'array', minItems: 4, maxItems: 1000, items: coordinate } } },
    },
  ],
} as const;
export type MissionTarget = FromSchema<typeof missionTargetSchema>;

export const DRONE_COMMAND_TYPES = ['launch', 'update_target', 'abort', 'return_home'] as const;

/** drone.commands (key: drone_id): what we ask of the fleet. The adapter executes each command_id once. */
export const droneCommandSchema = {
  $id: 'https://schemas.port-security.local/drone/command.json',
  title: 'Drone command (drone.commands)',
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'drone_id', 'mission_id', 'type', 'issued_at'],
  properties: {
    command_id: { type: 'string', minLength: 1, maxLength: 128, description: 'Derived from the cause: a replay names the same id; execute each id once and acknowledge it again if seen again.' },
    drone_id: { type: 'string', minLength: 1, maxLength: 64 },
    mission_id: { type: 'string', minLength: 1, maxLength: 64 },
    type: { type: 'string', enum: DRONE_COMMAND_TYPES },
    kind: { type: 'string', enum: MISSION_KINDS, description: 'launch: what to do on station.' },
    target: { ...missionTargetSchema, description: 'launch, update_target: where to fly (a track_vessel mission sends the vessel\'s newer positions as update_target).' },
    rth_altitude_m: { type: 'number', minimum: 0, maximum: 500, description: 'launch: return-to-home altitude.' },
    lost_link_action: { type: 'string', enum: ['return_home', 'hover', 'land'], description: 'launch: what the drone does when it loses its link.' },
    reason: { type: 'string', maxLength: 500, description: 'abort, return_home: why.' },
    issued_at: { type: 'string', format: 'date-time' },
  },
} as const;
export type DroneCommand = FromSchema<typeof droneCommandSchema>;

export const DRONE_MODES = ['docked', 'idle', 'flying', 'on_station', 'returning', 'landing', 'charging', 'error'] as const;

/** drone.telemetry (key: drone_id), at 0.5-1 Hz per drone; also POST /v1/ingest/drones. */
export const droneTelemetrySchema = {
  $id: 'https://schemas.port-security.local/drone/telemetry.json',
  title: 'Drone telemetry (drone.telemetry)',
  type: 'object',
  additionalProperties: false,
  required: ['drone_id', 'at', 'position', 'altitude_m', 'battery_percent', 'mode', 'link'],
  properties: {
    drone_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:-]+$' },
    dock_id: { type: 'string', minLength: 1, maxLength: 64, description: 'The dock the drone belongs to (returns to).' },
    at: { type: 'string', format: 'date-time', description: 'When the drone measured it.' },
    position: lonLat,
    altitude_m: { type: 'number', minimum: -100, maximum: 10_000 },
    battery_percent: { type: 'number', minimum: 0, maximum: 100 },
    mode: { type: 'string', enum: DRONE_MODES },
    link: { type: 'string', enum: ['up', 'degraded'], description: 'The adapter\'s view of its link; silence is judged by us (drone_lost_link).' },
    speed_mps: { type: 'number', minimum: 0, maximum: 200 },
    mission_id: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;
export type DroneTelemetry = FromSchema<typeof droneTelemetrySchema>;

/** Command acknowledgement results (MAVLink COMMAND_ACK, DJI task replies). */
export const ACK_RESULTS = ['accepted', 'in_progress', 'temporarily_rejected', 'denied', 'failed', 'cancelled'] as const;
export type AckResult = (typeof ACK_RESULTS)[number];
/** Mission progress statuses the fleet reports. */
export const PROGRESS_STATUSES = ['launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted', 'failed'] as const;
export type ProgressStatus = (typeof PROGRESS_STATUSES)[number];

const reportBase = {
  drone_id: { type: 'string', minLength: 1, maxLength: 64 },
  mission_id: { type: 'string', minLength: 1, maxLength: 64 },
  at: { type: 'string', format: 'date-time' },
} as const;

/** drone.reports (key: drone_id): acknowledgements, progress and evidence, in the order the drone made them. */
export const droneReportSchema = {
  $id: 'https://schemas.port-security.local/drone/report.json',
  title: 'Drone report (drone.reports)',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'command_id', 'drone_id', 'mission_id', 'result', 'at'],
      properties: { type: { const: 'ack' }, ...reportBase, command_id: { type: 'string', minLength: 1, maxLength: 128 }, result: { type: 'string', enum: ACK_RESULTS }, reason: { type: 'string', maxLength: 500 } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'drone_id', 'mission_id', 'status', 'at'],
      properties: {
        type: { const: 'progress' }, ...reportBase,
        status: { type: 'string', enum: PROGRESS_STATUSES },
        remaining_distance_m: { type: 'number', minimum: 0 },
        eta_seconds: { type: 'number', minimum: 0 },
        reason: { type: 'string', enum: ABORT_REASONS, description: 'aborted, partially_completed: why.' },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'drone_id', 'mission_id', 'media_id', 'media_type', 'at'],
      properties: {
        type: { const: 'evidence' }, ...reportBase,
        media_id: { type: 'string', minLength: 1, maxLength: 128 },
        media_type: { type: 'string', enum: ['photo', 'video', 'thermal'] },
        url: { type: 'string', format: 'uri', maxLength: 2000 },
        position: lonLat,
        expected: { type: 'integer', minimum: 0, description: 'Media the drone means to upload for this mission.' },
        uploaded: { type: 'integer', minimum: 0, description: 'Media uploaded so far, this one included.' },
      },
    },
  ],
} as const;
export type DroneReport = FromSchema<typeof droneReportSchema>;

/** One fleet status row (GET /v1/drones). */
export const droneStatusSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'state', 'battery_percent', 'position', 'altitude_m', 'link', 'last_seen'],
  properties: {
    id: { type: 'string' },
    dock_id: { type: ['string', 'null'] },
    state: { type: 'string', description: 'The mode last reported.' },
    battery_percent: { type: 'number' },
    position: lonLat,
    altitude_m: { type: 'number' },
    link: { type: 'string', enum: ['up', 'degraded', 'lost'], description: 'lost: no telemetry for PSS_DRONE_LOST_LINK_INTERVALS expected intervals.' },
    mission_id: { type: ['string', 'null'] },
    last_seen: { type: 'string', format: 'date-time' },
  },
} as const;

export const missionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'status', 'target', 'subject', 'incident_id', 'event_id', 'drone_id', 'dock_id', 'created_at', 'updated_at', 'evidence', 'contradictions'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: MISSION_KINDS },
    status: { type: 'string', enum: MISSION_STATUSES },
    target: missionTargetSchema,
    subject: { type: 'string', description: 'What the mission is about: vessel:<mmsi>, zone:<name>, event:<id>, or the requester\'s own.' },
    incident_id: { type: ['string', 'null'] },
    event_id: { type: ['string', 'null'], description: 'The triggering event.' },
    action_id: { type: ['string', 'null'], description: 'The response action that dispatched it.' },
    drone_id: { type: ['string', 'null'] },
    dock_id: { type: ['string', 'null'] },
    priority: { type: 'string' },
    requested_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    deadline_at: { type: ['string', 'null'], format: 'date-time' },
    launched_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    eta_seconds: { type: ['number', 'null'] },
    remaining_distance_m: { type: ['number', 'null'] },
    battery_percent: { type: ['number', 'null'] },
    reason: { type: ['string', 'null'] },
    evidence: { type: 'array', items: { type: 'object' } },
    contradictions: { type: 'integer', description: 'Reports that contradicted the mission\'s state: recorded in the timeline, not applied.' },
    timeline: { type: 'array', items: { type: 'object' }, description: 'Detail only: each state change and refused report, oldest first.' },
  },
} as const;

export const missionCreateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'target'],
  properties: {
    kind: { type: 'string', enum: MISSION_KINDS },
    target: missionTargetSchema,
    incident_id: { type: 'string', minLength: 1, maxLength: 64 },
    event_id: { type: 'string', minLength: 1, maxLength: 64 },
    subject: { type: 'string', minLength: 1, maxLength: 200, description: 'Default: the event\'s subject, else mission:<id>.' },
    mmsi: { type: 'integer', minimum: 1, maximum: 1073741823, description: 'track: the vessel to follow.' },
  },
} as const;
export type MissionCreate = FromSchema<typeof missionCreateSchema>;

export const missionAbortSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: { type: 'string', enum: ABORT_REASONS }, note: { type: 'string', maxLength: 500 } },
} as const;

export const missionListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: MISSION_STATUSES },
    kind: { type: 'string', enum: MISSION_KINDS },
    drone_id: { type: 'string', minLength: 1, maxLength: 64 },
    incident_id: { type: 'string', minLength: 1, maxLength: 64 },
    start_date: { type: 'string', format: 'date-time' },
    end_date: { type: 'string', format: 'date-time' },
    ...pageQueryProperties,
  },
} as const;
export type MissionListQuery = FromSchema<typeof missionListQuerySchema>;
