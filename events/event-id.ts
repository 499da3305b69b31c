import { createHash } from 'node:crypto';

/**
 * Event ids are derived from what caused the event (a stable cause key such as
 * `zone_entry:<zone>:<mmsi>:<visit start>`), so reprocessing the same input after a crash or a
 * rebalance yields the same id and every sink can deduplicate on it.
 */
export function eventId(causeKey: string): string {
  return `evt_${createHash('sha256').update(causeKey).digest('hex').slice(0, 32)}`;
}
