import type { FromSchema } from 'json-schema-to-ts';

/**
 * Threat zone contract (spec: "Threat zone", "Geometry", "Buffer", "Per-zone configuration
 * structures"). The schema checks structure and ranges; what JSON Schema cannot express (ring
 * closure, self-intersection, total vertex count, antimeridian) is checked by
 * `validateZoneGeometry` in processors/maritime/geometry/validate.ts, which returns reasons.
 */

/** Every limit on a zone, in one place. The geometry validator and the H3 cover rely on these. */
export const ZONE_LIMITS = {
  /** Total positions over all rings / polygons / centerline of one zone. */
  maxVertices: 10_000,
  maxPolygons: 100,
  maxRingsPerPolygon: 100,
  /** Circle radius and corridor width: 200 km keeps every zone small against the Earth. */
  maxRadiusMeters: 200_000,
  maxCorridorWidthMeters: 200_000,
  maxBufferMeters: 50_000,
  /**
   * Largest distance from a zone's centre to its farthest point, buffer included. Keeps every
   * zone small against the Earth: the exact test projects a zone gnomonically about its centre
   * and the H3 cover starts from a disk of cells around it. Zones may cross the antimeridian.
   */
  maxExtentMeters: 500_000,
  maxNameLength: 200,
  maxMessageLength: 1_000,
  maxAuthorizedEntries: 100,
  maxMmsiPerEntry: 10_000,
  maxEscalationSteps: 20,
} as const;

export const ZONE_TYPES = ['exclusion', 'restricted', 'monitoring', 'anchorage'] as const;
export const ALERT_LEVELS = ['info', 'low', 'medium', 'high', 'critical'] as const;
export const WEEK_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
/** Spec "Dwell time": escalation actions seen. */
export const ESCALATION_ACTIONS = ['notify_supervisor', 'escalate_to_port_authority', 'escalate_to_coast_guard'] as const;

const alertLevel = { type: 'string', enum: ALERT_LEVELS } as const;

/** A coordinate pair, longitude first (spec "Geometry"). */
const position = {
  type: 'array',
  items: [
    { type: 'number', minimum: -180, maximum: 180 },
    { type: 'number', minimum: -90, maximum: 90 },
  ],
  minItems: 2,
  maxItems: 2,
  additionalItems: false,
} as const;

/** A closed ring: first and last position equal (checked by the geometry validator). */
const linearRing = { type: 'array', items: position, minItems: 4, maxItems: ZONE_LIMITS.maxVertices } as const;

const polygonCoordinates = {
  type: 'array',
  items: linearRing,
  minItems: 1,
  maxItems: ZONE_LIMITS.maxRingsPerPolygon,
} as const;

export const polygonGeometrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'coordinates'],
  properties: {
    type: { const: 'Polygon' },
    /** Outer ring first, then holes (GeoJSON). */
    coordinates: polygonCoordinates,
  },
} as const;

export const multiPolygonGeometrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'coordinates'],
  properties: {
    type: { const: 'MultiPolygon' },
    /** GeoJSON nesting: an array of Polygon coordinate arrays. */
    coordinates: { type: 'array', items: polygonCoordinates, minItems: 1, maxItems: ZONE_LIMITS.maxPolygons },
  },
} as const;

export const circleGeometrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'center', 'radius_meters'],
  properties: {
    type: { const: 'Circle' },
    center: position,
    radius_meters: { type: 'number', exclusiveMinimum: 0, maximum: ZONE_LIMITS.maxRadiusMeters },
  },
} as const;

export const corridorGeometrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'centerline', 'width_meters'],
  properties: {
    type: { const: 'Corridor' },
    centerline: { type: 'array', items: position, minItems: 2, maxItems: ZONE_LIMITS.maxVertices },
    /** Full width: every point within width/2 of the centerline is in the corridor. */
    width_meters: { type: 'number', exclusiveMinimum: 0, maximum: ZONE_LIMITS.maxCorridorWidthMeters },
  },
} as const;

/** Compile with ajv's `discriminator: true` option: errors then name only the chosen geometry type. */
export const zoneGeometrySchema = {
  type: 'object',
  discriminator: { propertyName: 'type' },
  required: ['type'],
  properties: { type: { type: 'string', enum: ['Polygon', 'MultiPolygon', 'Circle', 'Corridor'] } },
  oneOf: [polygonGeometrySchema, multiPolygonGeometrySchema, circleGeometrySchema, corridorGeometrySchema],
} as const;

export const zoneScheduleSchema = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['always_on'],
      properties: { always_on: { type: 'boolean' } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['days', 'hours', 'timezone'],
      properties: {
        days: { type: 'array', items: { type: 'string', enum: WEEK_DAYS }, minItems: 1, maxItems: 7, uniqueItems: true },
        /** `HH:MM-HH:MM`; an end before the start runs past midnight. `24:00` is allowed as an end. */
        hours: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]-(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' },
        /** IANA zone name; that the runtime knows it is checked by the zone validator. */
        timezone: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_+\\-]*(/[A-Za-z0-9_+\\-]+)*$' },
      },
    },
  ],
} as const;

export const authorizedVesselsSchema = {
  type: 'array',
  maxItems: ZONE_LIMITS.maxAuthorizedEntries,
  items: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['mmsi_list'],
        properties: {
          mmsi_list: {
            type: 'array',
            items: { type: 'integer', minimum: 0, maximum: 999_999_999 },
            maxItems: ZONE_LIMITS.maxMmsiPerEntry,
          },
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['vessel_types'],
        properties: {
          vessel_types: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 100 },
        },
      },
    ],
  },
} as const;

export const zoneBufferSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['distance_meters'],
  properties: {
    enabled: { type: 'boolean', default: true },
    /** Distance from the zone's edge outwards. */
    distance_meters: { type: 'number', exclusiveMinimum: 0, maximum: ZONE_LIMITS.maxBufferMeters },
    alert_level: alertLevel,
    message: { type: 'string', maxLength: ZONE_LIMITS.maxMessageLength },
  },
} as const;

/** Per-zone overrides of the dwell defaults (spec "Dwell time"); absent fields use the defaults. */
export const zoneDwellSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean' },
    /** 0 means an alert on entry. */
    threshold_minutes: { type: 'integer', minimum: 0, maximum: 525_600 },
    reset_window_minutes: { type: 'integer', minimum: 0, maximum: 10_080 },
    escalation: {
      type: 'array',
      maxItems: ZONE_LIMITS.maxEscalationSteps,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['after_minutes', 'action'],
        properties: {
          after_minutes: { type: 'integer', minimum: 0, maximum: 525_600 },
          action: { type: 'string', enum: ESCALATION_ACTIONS },
        },
      },
    },
  },
} as const;

/** Body of POST /v1/maritime/zones (and PUT). */
export const zoneCreateSchema = {
  $id: 'https://pss.local/schemas/zone-create.json',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'geometry', 'alert_level'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: ZONE_LIMITS.maxNameLength },
    type: { type: 'string', enum: ZONE_TYPES },
    geometry: zoneGeometrySchema,
    alert_level: alertLevel,
    active: { type: 'boolean', default: true },
    schedule: zoneScheduleSchema,
    authorized_vessels: authorizedVesselsSchema,
    buffer: zoneBufferSchema,
    dwell: zoneDwellSchema,
  },
} as const;

/** A zone as stored and returned: the create body plus identity and timestamps. */
export const storedZoneSchema = {
  $id: 'https://pss.local/schemas/zone.json',
  type: 'object',
  additionalProperties: false,
  required: [...zoneCreateSchema.required, 'id', 'created_at', 'updated_at'],
  properties: {
    ...zoneCreateSchema.properties,
    id: { type: 'string', minLength: 1, maxLength: 64 },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** Types after validation with ajv `useDefaults` (so `active` and `buffer.enabled` are present). */
export type ZoneCreate = FromSchema<typeof zoneCreateSchema>;
export type StoredZone = FromSchema<typeof storedZoneSchema>;
export type ZoneGeometry = FromSchema<typeof zoneGeometrySchema>;
export type PolygonGeometry = FromSchema<typeof polygonGeometrySchema>;
export type MultiPolygonGeometry = FromSchema<typeof multiPolygonGeometrySchema>;
export type CircleGeometry = FromSchema<typeof circleGeometrySchema>;
export type CorridorGeometry = FromSchema<typeof corridorGeometrySchema>;
export type ZoneSchedule = FromSchema<typeof zoneScheduleSchema>;
export type ZoneBuffer = FromSchema<typeof zoneBufferSchema>;
export type ZoneDwell = FromSchema<typeof zoneDwellSchema>;
export type ZoneType = (typeof ZONE_TYPES)[number];
export type AlertLevel = (typeof ALERT_LEVELS)[number];
export type EscalationAction = (typeof ESCALATION_ACTIONS)[number];
/** [longitude, latitude] */
export type Position = [lon: number, lat: number];
