// Output contract of the AIS decoder (ingest/ais/). Every decoded report carries the MMSI, the ITU-R
// M.1371 message type, where it came from, when it happened (`reported_at`, event time) and when we
// received it, plus the raw lines. "Not available" values (lat 91, lon 181, SOG 102.3, COG 360,
// heading 511, ROT -128, draught 0, IMO 0, ship type 0, empty text...) are never emitted as numbers:
// the field is absent. See ingest/ais/README.md for the full list.
// JSON Schema 2020-12 (`dependentRequired`): compile with Ajv2020, as ingest/validation.ts does.
import type { FromSchema } from 'json-schema-to-ts';

const dateTime = { type: 'string', format: 'date-time' } as const;

const rawLines = {
  type: 'array',
  minItems: 1,
  items: { type: 'string' },
  description: 'The input lines as received (tag block and trailing fields kept), fragments in order',
} as const;

const mmsi = { type: 'integer', minimum: 0, maximum: 1073741823, description: '30-bit user ID' } as const;

/** Fields every decoded report shares. */
const reportEnvelope = {
  mmsi,
  repeat: { type: 'integer', minimum: 0, maximum: 3 },
  source: { type: 'string', minLength: 1, description: 'Configured name of the feed the lines came from' },
  station: { type: 'string', minLength: 1, description: 'Receiving station from the NMEA 4.0 tag block (s:)' },
  reported_at: { ...dateTime, description: 'Event time: tag block c:, else $PGHP time, else trailing epoch field, else receive time; never more than 5 minutes after received_at (future_timestamp otherwise)' },
  received_at: { ...dateTime, description: 'When the decoder received the (last) line' },
  raw: rawLines,
} as const;

const envelopeRequired = ['kind', 'msg_type', 'mmsi', 'source', 'reported_at', 'received_at', 'raw'] as const;

const latLon = {
  lat: { type: 'number', minimum: -90, maximum: 90, description: 'WGS 84 degrees, north positive' },
  lon: { type: 'number', minimum: -180, maximum: 180, description: 'WGS 84 degrees, east positive' },
} as const;

const dimensions = {
  to_bow: { type: 'integer', minimum: 0, maximum: 511, description: 'metres from the reference point' },
  to_stern: { type: 'integer', minimum: 0, maximum: 511 },
  to_port: { type: 'integer', minimum: 0, maximum: 63 },
  to_starboard: { type: 'integer', minimum: 0, maximum: 63 },
} as const;

const epfd = { type: 'integer', minimum: 1, maximum: 15, description: 'ITU-R M.1371 type of position fixing device; 0 (undefined) is absent' } as const;

/** Vessel categories for ITU-R M.1371 "type of ship and cargo" codes; the mapping is ingest/ais/ship-types.ts. */
/**
 * How far a report's `reported_at` may lie after its `received_at`. Ingest rejects a report beyond it
 * as `future_timestamp` and the processors ignore one that another producer wrote: a receiver with a
 * wrong clock (or an HTTP client sending 2099) would otherwise push a vessel's last-seen time into the
 * future for every consumer. Five minutes covers ordinary clock skew; past event times are always accepted.
 */
export const MAX_REPORTED_AHEAD_MS = 5 * 60_000;

export const shipCategorySchema = {
  type: 'string',
  enum: [
    'wing_in_ground', 'fishing', 'towing', 'dredging', 'diving', 'military', 'sailing', 'pleasure',
    'high_speed_craft', 'pilot', 'search_and_rescue', 'tug', 'port_authority', 'anti_pollution',
    'law_enforcement', 'local_vessel', 'medical', 'noncombatant', 'passenger', 'cargo', 'tanker',
    'other', 'unknown',
  ],
} as const;
export type ShipCategory = FromSchema<typeof shipCategorySchema>;

export const hazardousCategorySchema = {
  type: 'string',
  enum: ['A', 'B', 'C', 'D'],
  description: 'IMO hazardous / pollutant cargo category from the second digit of the ship type code',
} as const;
export type HazardousCategory = FromSchema<typeof hazardousCategorySchema>;

export const vesselPositionSchema = {
  $id: 'https://schemas.port-security.local/ais/vessel-position.json',
  title: 'AIS vessel position report (types 1, 2, 3, 18, 19, 27)',
  type: 'object',
  additionalProperties: false,
  required: envelopeRequired,
  dependentRequired: { lat: ['lon'], lon: ['lat'] },
  properties: {
    kind: { const: 'position' },
    msg_type: { type: 'integer', enum: [1, 2, 3, 18, 19, 27] },
    ...reportEnvelope,
    ...latLon,
    sog: { type: 'number', minimum: 0, maximum: 102.2, description: 'knots; 102.2 means 102.2 or more' },
    cog: { type: 'number', minimum: 0, exclusiveMaximum: 360, description: 'degrees true' },
    heading: { type: 'integer', minimum: 0, maximum: 359, description: 'degrees true' },
    rot: { type: 'number', minimum: -709, maximum: 709, description: 'rate of turn, degrees per minute, right positive' },
    rot_raw: { type: 'integer', minimum: -127, maximum: 127, description: 'ITU ROT_AIS; +-127 = turning faster than 5 deg/30 s, no rate' },
    nav_status: { type: 'integer', minimum: 0, maximum: 14, description: 'ITU-R M.1371 navigational status; 15 (undefined) is absent' },
    position_accuracy: { type: 'boolean', description: 'true = high (<10 m)' },
    raim: { type: 'boolean' },
    utc_second: { type: 'integer', minimum: 0, maximum: 59, description: 'UTC second of the position fix' },
  },
} as const;
export type VesselPosition = FromSchema<typeof vesselPositionSchema>;

export const vesselStaticSchema = {
  $id: 'https://schemas.port-security.local/ais/vessel-static.json',
  title: 'AIS vessel static and voyage data (types 5, 19, 24 part A and part B)',
  type: 'object',
  additionalProperties: false,
  required: envelopeRequired,
  properties: {
    kind: { const: 'static' },
    msg_type: { type: 'integer', enum: [5, 19, 24] },
    ...reportEnvelope,
    part: { type: 'string', enum: ['A', 'B'], description: 'type 24 only' },
    name: { type: 'string', minLength: 1 },
    callsign: { type: 'string', minLength: 1 },
    imo: { type: 'integer', minimum: 1, maximum: 1073741823 },
    ship_type: { type: 'integer', minimum: 1, maximum: 255, description: 'ITU-R M.1371 type of ship and cargo code' },
    ship_category: shipCategorySchema,
    hazardous_category: hazardousCategorySchema,
    ...dimensions,
    length: { type: 'integer', minimum: 1, maximum: 1022, description: 'metres, to_bow + to_stern' },
    beam: { type: 'integer', minimum: 1, maximum: 126, description: 'metres, to_port + to_starboard' },
    mothership_mmsi: { ...mmsi, description: 'type 24 part B of an auxiliary craft (MMSI 98xxxxxxx)' },
    epfd,
    eta: { ...dateTime, description: 'UTC; AIS sends no year, so the year is the one putting the ETA closest to reported_at' },
    draught: { type: 'number', minimum: 0.1, maximum: 25.5, description: 'metres; 25.5 means 25.5 or more' },
    destination: { type: 'string', minLength: 1 },
  },
} as const;
export type VesselStatic = FromSchema<typeof vesselStaticSchema>;

export const nonVesselReportSchema = {
  $id: 'https://schemas.port-security.local/ais/non-vessel-report.json',
  title: 'AIS base station report (type 4) or aid to navigation report (type 21)',
  type: 'object',
  additionalProperties: false,
  required: envelopeRequired,
  dependentRequired: { lat: ['lon'], lon: ['lat'] },
  properties: {
    kind: { const: 'non_vessel' },
    msg_type: { type: 'integer', enum: [4, 21] },
    ...reportEnvelope,
    ...latLon,
    position_accuracy: { type: 'boolean' },
    raim: { type: 'boolean' },
    epfd,
    station_time: { ...dateTime, description: 'type 4: the base station clock (UTC)' },
    utc_second: { type: 'integer', minimum: 0, maximum: 59 },
    aid_type: { type: 'integer', minimum: 1, maximum: 31, description: 'type 21: ITU-R M.1371 table 74' },
    name: { type: 'string', minLength: 1, description: 'type 21: name plus name extension' },
    ...dimensions,
    off_position: { type: 'boolean', description: 'type 21, only when the time stamp is valid' },
    virtual_aid: { type: 'boolean' },
  },
} as const;
export type NonVesselReport = FromSchema<typeof nonVesselReportSchema>;

export const aisRejectReasonSchema = {
  type: 'string',
  enum: [
    'malformed_sentence', 'bad_talker', 'bad_checksum', 'bad_tag_block', 'empty_payload', 'bad_payload',
    'invalid_type', 'bad_length', 'orphan_fragment', 'decoder_error', 'future_timestamp', 'line_too_long',
  ],
} as const;
export type AisRejectReason = FromSchema<typeof aisRejectReasonSchema>;

export const aisRejectSchema = {
  $id: 'https://schemas.port-security.local/ais/reject.json',
  title: 'AIS input that could not be decoded (dead-letter record)',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'raw', 'source', 'reason', 'detail', 'at'],
  properties: {
    kind: { const: 'reject' },
    raw: rawLines,
    source: { type: 'string', minLength: 1 },
    station: { type: 'string', minLength: 1 },
    reason: aisRejectReasonSchema,
    detail: { type: 'string' },
    at: dateTime,
  },
} as const;
export type AisReject = FromSchema<typeof aisRejectSchema>;

export const aisSkipReasonSchema = {
  type: 'string',
  enum: ['unsupported_type', 'not_ais'],
} as const;
export type AisSkipReason = FromSchema<typeof aisSkipReasonSchema>;

/** Valid input we deliberately do not publish; counted, not dead-lettered. */
export const aisSkipSchema = {
  $id: 'https://schemas.port-security.local/ais/skip.json',
  title: 'AIS input that is valid but not published (counted only)',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'raw', 'source', 'reason', 'at'],
  properties: {
    kind: { const: 'skip' },
    raw: rawLines,
    source: { type: 'string', minLength: 1 },
    reason: aisSkipReasonSchema,
    msg_type: { type: 'integer', minimum: 1, maximum: 27 },
    mmsi,
    at: dateTime,
  },
} as const;
export type AisSkip = FromSchema<typeof aisSkipSchema>;

export type AisReport = VesselPosition | VesselStatic | NonVesselReport;
export type AisDecodeResult = AisReport | AisSkip | AisReject;
