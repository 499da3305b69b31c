import type { FromSchema } from 'json-schema-to-ts';

/**
 * One gate lane sensor reading (issue 4, "Gate sensor feed"): what the OCR, LPR, seal, weight and damage
 * sensors of a lane saw for one vehicle passage. Field names follow the spec's "Gate transaction"
 * (`vehicle.*`, `container.*`, `container.seal.*`, `inspection.damage_regions`, `inspection.images`),
 * so the gate processor copies them into the transaction without renaming. The processor derives what the
 * spec adds on top (status, decision, risk score, inspection.ocr_match, seal_verified, ...).
 *
 * Validation rejects only what is structurally wrong. Poor OCR is data, not an error: a container id
 * whose ISO 6346 check digit fails is kept and flagged in `findings` (ingest/gate/findings.ts).
 */

export const GATE_LIMITS = {
  maxIdLength: 128,
  maxTextLength: 200,
  maxUrlLength: 2048,
  maxDamageRegions: 100,
  maxImages: 32,
  /** The heaviest road container load is far below this; anything above is a sensor fault. */
  maxWeightKg: 200_000,
} as const;

const id = { type: 'string', minLength: 1, maxLength: GATE_LIMITS.maxIdLength } as const;
const text = { type: 'string', minLength: 1, maxLength: GATE_LIMITS.maxTextLength } as const;
/**
 * An evidence image's address: http or https only (scheme in any case, RFC 3986). The transaction detail
 * and the webhooks serve it back as sent, and consoles and receivers open it: a `javascript:` or
 * `data:text/html` URL there would run in whoever clicks it (issue 33). In the schema, so the HTTP ingest
 * (422), the raw topic (dead letter `reading_invalid`) and the gate.readings record all refuse it.
 */
export const EVIDENCE_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://';
const url = { type: 'string', format: 'uri', pattern: EVIDENCE_URL_PATTERN, maxLength: GATE_LIMITS.maxUrlLength, description: 'http(s) URL of the image' } as const;
const confidence = { type: 'number', minimum: 0, maximum: 1 } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const weight = { type: 'number', minimum: 0, maximum: GATE_LIMITS.maxWeightKg } as const;

/** Spec "Gate transaction": inspection.images[].type. */
export const IMAGE_TYPES = ['front', 'left_side', 'right_side', 'rear'] as const;

const vehicle = {
  type: 'object',
  additionalProperties: false,
  properties: {
    plate: { ...text, description: 'licence plate text as read by LPR/OCR' },
    plate_confidence: confidence,
    plate_image_url: url,
    type: { ...text, description: 'vehicle type, e.g. truck, chassis, bobtail (values not fixed by the spec)' },
    carrier: text,
    driver_id: id,
    appointment_id: id,
  },
} as const;

const seal = {
  type: 'object',
  additionalProperties: false,
  properties: {
    number: text,
    status: { ...text, description: 'e.g. intact, broken, missing, tampered (spec shows intact only)' },
    confidence,
    seal_image_url: url,
  },
} as const;

const container = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { ...text, description: 'container id as read by OCR (ISO 6346 expected; checked, see findings)' },
    ocr_confidence: confidence,
    ocr_image_url: url,
    iso_type: { type: 'string', pattern: '^[0-9A-Z]{4}$', description: 'ISO 6346 size and type code, e.g. 22G1, 45G1' },
    size: { ...text, description: 'e.g. 20ft, 40ft, 45ft' },
    weight_declared_kg: weight,
    weight_estimated_kg: weight,
    seal,
  },
} as const;

const damageRegion = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { ...text, description: 'e.g. dent, hole, corrosion, deformation' },
    area: { ...text, description: 'where on the unit, e.g. left_side, roof, door' },
    severity: { type: 'string', enum: ['low', 'medium', 'high', 'critical'] },
    confidence,
    image_url: url,
    bounding_box: {
      type: 'object',
      additionalProperties: false,
      required: ['x', 'y', 'width', 'height'],
      description: 'region in the image, as fractions of its width and height',
      properties: { x: confidence, y: confidence, width: confidence, height: confidence },
    },
  },
} as const;

const image = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'url', 'captured_at'],
  properties: { type: { type: 'string', enum: IMAGE_TYPES }, url, captured_at: timestamp },
} as const;

const readingProperties = {
  reading_id: { ...id, description: 'unique per passage and lane; the gate processor deduplicates on it (idempotent retries)' },
  gate: { ...id, description: 'gate identifier (Kafka key of gate.readings)' },
  lane: id,
  captured_at: { ...timestamp, description: 'event time of the passage' },
  vehicle,
  container,
  inspection: {
    type: 'object',
    additionalProperties: false,
    properties: {
      damage_regions: { type: 'array', maxItems: GATE_LIMITS.maxDamageRegions, items: damageRegion },
      images: { type: 'array', maxItems: GATE_LIMITS.maxImages, items: image },
    },
  },
} as const;

/** What a lane's sensors send (HTTP body item, or a gate.readings.raw record value). */
export const gateReadingSchema = {
  $id: 'https://schemas.port-security.local/gate/reading.json',
  title: 'Gate lane sensor reading',
  type: 'object',
  additionalProperties: false,
  required: ['reading_id', 'gate', 'lane', 'captured_at'],
  anyOf: [{ required: ['vehicle'] }, { required: ['container'] }],
  properties: readingProperties,
} as const;
export type GateReading = FromSchema<typeof gateReadingSchema>;

/** Findings the ingest adds for the gate processor; none of them rejects the reading. */
export const GATE_FINDINGS = [
  /** container.id has the ISO 6346 shape but its check digit does not match. */
  'container_check_digit_invalid',
  /** container.id is not owner code + U/J/Z + 6 digits + check digit (after removing spaces and dashes). */
  'container_id_malformed',
] as const;
export type GateFinding = (typeof GATE_FINDINGS)[number];

/** Value of a gate.readings record: the reading as sent, plus where and when ingest got it and its findings. */
export const gateReadingRecordSchema = {
  $id: 'https://schemas.port-security.local/gate/reading-record.json',
  title: 'Validated gate lane reading (gate.readings)',
  type: 'object',
  additionalProperties: false,
  required: ['reading_id', 'gate', 'lane', 'captured_at', 'source', 'received_at', 'findings'],
  anyOf: [{ required: ['vehicle'] }, { required: ['container'] }],
  properties: {
    ...readingProperties,
    source: { type: 'string', minLength: 1, description: 'http:<credential id> or the raw-topic record key' },
    received_at: { ...timestamp, description: 'when the ingest validated it' },
    findings: { type: 'array', uniqueItems: true, items: { type: 'string', enum: GATE_FINDINGS } },
  },
} as const;
export type GateReadingRecord = FromSchema<typeof gateReadingRecordSchema>;
