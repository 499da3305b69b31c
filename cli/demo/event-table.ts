// The table `pss demo` prints: one line per security event, whatever module made it. A vessel's event
// names its zone and the vessel (a drone's event carries the vessel too, but is about the drone); a gate transaction its lane and the truck; anything else (a gate lock,
// the health of a component, a drone, an incident, an escalation) what it is about and its title.
import type { SecurityEvent } from '../../schemas/event.ts';
import { ALL_LANES, type LockTaken } from './lane-locks.ts';

const SEVERITY_MARK: Record<string, string> = { low: '.', medium: '*', high: '!', critical: '!!' };
const TYPE_WIDTH = 24;
const WHERE_WIDTH = 32;

export const TABLE_HEADER = `${'time (UTC)'.padEnd(12)}${'severity'.padEnd(11)} ${'type'.padEnd(TYPE_WIDTH)} ${'zone / gate / component'.padEnd(WHERE_WIDTH)} what`;

type Metadata = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** One line: never a line break, whatever a title or a vessel name holds. */
export function formatEvent(e: SecurityEvent): string {
  const m = e.metadata as Metadata;
  const [where, what] = e.source_module === 'gate' && (text(m.container_id) ?? text(m.vehicle_plate)) !== undefined
    ? gateTransaction(e, m)
    : e.category === 'maritime' && number(m.mmsi) !== undefined ? vesselEvent(e, m) : aboutSomethingElse(e, m);
  const line = `${e.timestamp.slice(11, 19)}    ${(SEVERITY_MARK[e.severity] ?? '').padEnd(2)} ${e.severity.padEnd(8)} ${e.type.padEnd(TYPE_WIDTH)} ${where.padEnd(WHERE_WIDTH)} ${what}`;
  return line.replace(/[\r\n]+/g, ' ').trimEnd();
}

function gateTransaction(e: SecurityEvent, m: Metadata): [string, string] {
  const truck = `${text(m.container_id) ?? '-'} on ${text(m.vehicle_plate) ?? '-'}`;
  return [e.source_device, e.type === 'gate_transaction_created' && text(m.status) ? `${truck} -> ${text(m.status)}` : truck];
}

function vesselEvent(e: SecurityEvent, m: Metadata): [string, string] {
  const name = text(m.vessel_name) ?? 'unnamed vessel';
  const dwell = number(m.dwell_minutes);
  return [e.location.zone ?? '', `${name} (${number(m.mmsi)})${dwell ? ` dwell ${dwell} min` : ''}`];
}

/** Not about a vessel: the gate, component, drone, party or incident it concerns, by the best name it carries. */
function aboutSomethingElse(e: SecurityEvent, m: Metadata): [string, string] {
  const where = text(m.component) ?? text(m.gate_id) ?? text(m.party_name) ?? text(m.drone_id) ?? e.location.zone ?? (text(e.source_device) || e.source_module);
  return [where, e.title];
}

/** The demo lane's own line when it takes a lock: a row of the table, though not an event. */
export function formatLockNotice(gate: string, lock: LockTaken, at: Date): string {
  const where = lock.lane === ALL_LANES ? gate : `${gate}/${lock.lane}`;
  const time = `${at.toISOString().slice(11, 19)}    ${''.padEnd(11)}`;
  if (lock.released_by !== undefined) {
    return `${time} ${'lane released'.padEnd(TYPE_WIDTH)} ${where.padEnd(WHERE_WIDTH)} takes trucks again (${lock.command_id} released by ${lock.released_by})`;
  }
  const what = lock.lane === ALL_LANES ? 'trucks are turned away' : 'its trucks take the other lanes';
  return `${time} ${'lane locked'.padEnd(TYPE_WIDTH)} ${where.padEnd(WHERE_WIDTH)} ${what} (${lock.command_id} from ${lock.issued_by}); locked until released (POST /v1/gates/{gate}/release, pss gates release)`;
}
