// Whether a gate reading must have a known booking (issue 21, item 3), pure. Nothing in the spec tells a
// site to send gate.appointments, and the `appointment` risk factor (100 x 0.3 = 30) reaches manual review
// on its own: scored at a site without a booking feed, every truck would be flagged for an operator.
//   required: no (known) booking scores `appointment` 100, so a clean truck is flagged;
//   optional: no booking adds no risk (a booking that is there is still checked against the reading);
//   auto:     required once the site has ever received a booking (gate.appointments holds or held a
//             record), optional before. Offsets of the topic never go back, so once a booking feed has
//             spoken, compaction, cancellations or a quiet night do not relax the rule.
// The site's mode (PSS_GATE_APPOINTMENTS) may be overridden per gate (PSS_GATE_APPOINTMENTS_BY_GATE).

export const APPOINTMENT_MODES = ['required', 'optional', 'auto'] as const;
export type AppointmentMode = (typeof APPOINTMENT_MODES)[number];

export interface AppointmentPolicy {
  site: AppointmentMode;
  /** Gate id -> its own mode; gates not listed follow the site. */
  byGate: Readonly<Record<string, AppointmentMode>>;
}

export const DEFAULT_APPOINTMENT_POLICY: AppointmentPolicy = { site: 'auto', byGate: {} };

/**
 * Whether a reading at `gate` needs a known booking. `bookingsSeen`: the site has ever received one;
 * undefined while the broker has not said yet, when `auto` errs on the side of review (required).
 */
export function bookingRequired(policy: AppointmentPolicy, gate: string, bookingsSeen: boolean | undefined): boolean {
  const mode = Object.hasOwn(policy.byGate, gate) ? policy.byGate[gate] : policy.site;
  if (mode === 'auto') return bookingsSeen !== false;
  return mode === 'required';
}

/** `gate=mode` pairs, comma-separated (PSS_GATE_APPOINTMENTS_BY_GATE); empty: none. */
export function parseGateModes(raw: string): Record<string, AppointmentMode> {
  const modes: Record<string, AppointmentMode> = {};
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = item.lastIndexOf('=');
    const gate = item.slice(0, at).trim();
    const mode = item.slice(at + 1).trim();
    if (at <= 0 || gate === '') throw new Error(`"${item}" is not gate=mode`);
    if (!(APPOINTMENT_MODES as readonly string[]).includes(mode)) throw new Error(`"${item}": mode must be one of ${APPOINTMENT_MODES.join(', ')}`);
    if (Object.hasOwn(modes, gate)) throw new Error(`gate "${gate}" is listed twice`);
    // defineProperty: a gate named __proto__ is a key like any other.
    Object.defineProperty(modes, gate, { value: mode, enumerable: true });
  }
  return modes;
}
