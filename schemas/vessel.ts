// Shapes of the vessel API (GET /v1/maritime/vessels...): query parameters and responses.
import { pageQueryProperties } from './common.ts';
import { shipCategorySchema } from './ais.ts';

const nullable = <const T extends string>(type: T) => ({ type: [type, 'null'] }) as const;
const timestamp = { type: ['string', 'null'], format: 'date-time' } as const;

export const vesselListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    search: { type: 'string', minLength: 1, maxLength: 64, description: 'Name or call sign prefix (case-insensitive); when all digits also an MMSI or IMO prefix; "IMO 9321483" an IMO number prefix' },
    category: { ...shipCategorySchema, description: 'Vessel category' },
    zone: { type: 'string', minLength: 1, maxLength: 128, description: 'Zone id or name: vessels inside it now' },
    bbox: {
      type: 'string',
      maxLength: 128,
      pattern: '^-?\\d{1,3}(\\.\\d+)?,-?\\d{1,2}(\\.\\d+)?,-?\\d{1,3}(\\.\\d+)?,-?\\d{1,2}(\\.\\d+)?$',
      description: 'min_lon,min_lat,max_lon,max_lat (WGS 84 degrees): vessels whose last position lies within',
    },
    seen_since: { type: 'string', format: 'date-time', description: 'Vessels whose last position is at or after this time' },
  },
} as const;

export const vesselTrackQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    start_date: { type: 'string', format: 'date-time', description: 'Default: 24 hours before end_date' },
    end_date: { type: 'string', format: 'date-time', description: 'Default: now' },
    tolerance_meters: { type: 'number', minimum: 0, maximum: 100_000, default: 0, description: 'Drop points within this distance of the simplified line; 0 keeps every point' },
  },
} as const;

export const mmsiParamsSchema = {
  type: 'object',
  required: ['mmsi'],
  properties: { mmsi: { type: 'string', pattern: '^\\d{1,10}$', maxLength: 10 } },
} as const;

const lastPositionSchema = {
  type: ['object', 'null'],
  required: ['lat', 'lon', 'reported_at', 'source'],
  properties: {
    lat: { type: 'number' },
    lon: { type: 'number' },
    sog: nullable('number'),
    cog: nullable('number'),
    heading: nullable('integer'),
    nav_status: nullable('integer'),
    reported_at: { type: 'string', format: 'date-time' },
    source: { type: 'string' },
  },
} as const;

export const vesselSchema = {
  type: 'object',
  required: ['mmsi', 'name', 'callsign', 'imo', 'ship_type', 'category', 'dimensions', 'destination', 'last_position'],
  properties: {
    mmsi: { type: 'integer' },
    name: nullable('string'),
    callsign: nullable('string'),
    imo: nullable('integer'),
    ship_type: nullable('integer'),
    category: nullable('string'),
    hazardous_category: nullable('string'),
    dimensions: {
      type: 'object',
      description: 'Metres; null when not reported',
      properties: {
        to_bow: nullable('integer'), to_stern: nullable('integer'), to_port: nullable('integer'), to_starboard: nullable('integer'),
        length: nullable('integer'), beam: nullable('integer'),
      },
    },
    draught: nullable('number'),
    destination: nullable('string'),
    eta: timestamp,
    static_reported_at: timestamp,
    last_position: lastPositionSchema,
  },
} as const;

export const vesselDetailSchema = {
  type: 'object',
  required: [...vesselSchema.required, 'zones', 'risk_score', 'recent_events'],
  properties: {
    ...vesselSchema.properties,
    zones: {
      type: 'array',
      description: 'Zones the vessel is inside now, with dwell (as GET /v1/maritime/zones/{zone_id}/dwell reports it)',
      items: {
        type: 'object',
        properties: {
          zone_id: { type: 'string' }, zone_name: { type: 'string' }, zone_type: { type: 'string' },
          entered_at: { type: 'string', format: 'date-time' }, dwell_minutes: { type: 'integer' }, alert_status: { type: 'string' },
        },
      },
    },
    risk_score: { type: 'integer', minimum: 0, maximum: 100, description: 'Vessel risk score 0-100 from its recent findings, decayed (half-life 6 h) to its newest report; 0 when it has none (docs/zones-and-rules.md "Maritime rules", vessel risk score)' },
    recent_events: { type: 'array', description: 'The 10 newest events about the vessel, newest first', items: { type: 'object' } },
  },
} as const;

export const vesselTrackSchema = {
  type: 'object',
  required: ['type', 'geometry', 'properties'],
  description: 'GeoJSON Feature: a LineString of the positions in time order (null with fewer than 2 points)',
  properties: {
    type: { const: 'Feature' },
    geometry: {
      type: ['object', 'null'],
      properties: { type: { const: 'LineString' }, coordinates: { type: 'array', items: { type: 'array', items: { type: 'number' } } } },
    },
    properties: {
      type: 'object',
      properties: {
        mmsi: { type: 'integer' },
        start_date: { type: 'string', format: 'date-time' },
        end_date: { type: 'string', format: 'date-time' },
        times: { type: 'array', items: { type: 'string', format: 'date-time' }, description: 'Report time of each coordinate, same order' },
        points: { type: 'integer' },
        original_points: { type: 'integer' },
        tolerance_meters: { type: 'number' },
      },
    },
  },
} as const;
