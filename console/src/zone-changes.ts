// What the zone editor sends (docs/console.md "Zones"): the PATCH body holding only the fields the operator
// changed, the API's rule being that a top-level field given replaces the stored one whole (buffer, dwell).
// Pure: the stored zone and the form's values in, the body out.

export interface EditableZone {
  id: string;
  name: string;
  alert_level: string;
  active?: boolean;
  buffer?: { distance_meters: number; enabled?: boolean; alert_level?: string; message?: string };
  dwell?: { threshold_minutes?: number; enabled?: boolean; reset_window_minutes?: number; escalation?: unknown[] };
}

/** The form as typed: numbers as the input's text, '' for empty. */
export interface ZoneForm {
  name: string;
  alert_level: string;
  buffer: string;
  dwell: string;
  active: boolean;
}

/** The form's values for a stored zone: a disabled buffer shows as none, an absent threshold as the default. */
export function formOf(zone: EditableZone): ZoneForm {
  const buffer = zone.buffer && zone.buffer.enabled !== false ? String(zone.buffer.distance_meters) : '';
  const dwell = zone.dwell?.threshold_minutes === undefined ? '' : String(zone.dwell.threshold_minutes);
  return { name: zone.name, alert_level: zone.alert_level, buffer, dwell, active: zone.active !== false };
}

/**
 * The PATCH body, {} when nothing changed. Values are sent as typed (a negative buffer too): the API is the
 * one that judges them, and its 422 names the field. A buffer emptied is kept but disabled (the schema has
 * no null for it), keeping its own alert level and message; a threshold emptied goes back to the default.
 */
export function zoneChanges(zone: EditableZone, form: ZoneForm): Record<string, unknown> {
  const before = formOf(zone);
  const body: Record<string, unknown> = {};
  if (form.name.trim() !== before.name) body.name = form.name.trim();
  if (form.alert_level !== before.alert_level) body.alert_level = form.alert_level;
  if (form.active !== before.active) body.active = form.active;
  if (form.buffer.trim() !== before.buffer) {
    const text = form.buffer.trim();
    if (text === '') body.buffer = { ...zone.buffer, enabled: false };
    else body.buffer = { ...zone.buffer, distance_meters: Number(text), enabled: true };
  }
  if (form.dwell.trim() !== before.dwell) {
    const text = form.dwell.trim();
    const { threshold_minutes: _old, ...rest } = zone.dwell ?? {};
    body.dwell = text === '' ? rest : { ...rest, threshold_minutes: Number(text) };
  }
  return body;
}

/** Which field of the form a 422 detail's path names ('/buffer/distance_meters' -> buffer); 'form' for the rest. */
export function fieldOfPath(path: string): 'name' | 'alert_level' | 'buffer' | 'dwell' | 'active' | 'form' {
  const top = path.split('/')[1] ?? '';
  return top === 'name' || top === 'alert_level' || top === 'buffer' || top === 'dwell' || top === 'active' ? top : 'form';
}
