import type { FromSchema } from 'json-schema-to-ts';
import { GATE_LIMITS } from './gate-reading.ts';

/**
 * A truck appointment from the terminal operating system (issue 11): what the terminal expects at the
 * gate, which the gate processor compares with what the lane's sensors read. Posted to
 * POST /v1/gate/appointments (or produced to gate.appointments by the TOS), keyed by appointment_id on
 * the compacted topic: a later version of an appointment replaces the earlier one.
 */
const id = { type: 'string', minLength: 1, maxLength: GATE_LIMITS.maxIdLength } as const;
const text = { type: 'string', minLength: 1, maxLength: GATE_LIMITS.maxTextLength } as const;

const appointmentItemSchema = {
  title: 'Truck appointment',
  type: 'object',
  additionalProperties: false,
  required: ['appointment_id', 'plate', 'container_id'],
  properties: {
    appointment_id: { ...id, description: 'the TOS appointment id; readings name it in vehicle.appointment_id' },
    plate: { ...text, description: 'expected licence plate' },
    carrier: { ...text, description: 'expected haulier' },
    container_id: { ...text, description: 'expected container (ISO 6346)' },
    iso_type: { type: 'string', pattern: '^[0-9A-Z]{4}$', description: 'expected ISO 6346 size and type code' },
    seal_number: { ...text, description: 'seal number booked with the container' },
    weight_declared_kg: { type: 'number', minimum: 0, maximum: GATE_LIMITS.maxWeightKg, description: 'verified gross mass declared by the shipper (SOLAS VGM)' },
    window_start: { type: 'string', format: 'date-time', description: 'start of the booked time slot' },
    window_end: { type: 'string', format: 'date-time', description: 'end of the booked time slot' },
    // Optional vessel link (issue 23): a gate event on this container joins the incident of that vessel.
    vessel_mmsi: { type: 'integer', minimum: 1, maximum: 999999999, description: 'MMSI of the ship the container is booked on' },
    vessel_imo: { type: 'integer', minimum: 1000000, maximum: 9999999, description: 'IMO number of the ship the container is booked on (7 digits, valid check digit)' },
  },
} as const;
/** The gate.appointments topic's value. */
export const gateAppointmentSchema = { $id: 'https://schemas.port-security.local/gate/appointment.json', ...appointmentItemSchema } as const;
export type GateAppointment = FromSchema<typeof appointmentItemSchema>;

/** Most appointments in one POST /v1/gate/appointments. */
export const MAX_APPOINTMENTS_PER_REQUEST = 1000;

/** POST /v1/gate/appointments: `{"appointments": [...]}`; the request is accepted whole or refused whole. */
export const gateAppointmentBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['appointments'],
  properties: { appointments: { type: 'array', minItems: 1, maxItems: MAX_APPOINTMENTS_PER_REQUEST, items: appointmentItemSchema } },
} as const;

export const gateAppointmentAnswerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['accepted_count', 'appointment_ids'],
  properties: { accepted_count: { type: 'integer', minimum: 0 }, appointment_ids: { type: 'array', items: { type: 'string' } } },
} as const;
