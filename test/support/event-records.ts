// security.events carries each event once as new (header `change: created`) and again at every change of
// it (`change: updated`, same key: an operator's triage, or the response loop setting incident_id and
// requires_action; events/event-record.ts). Every processors instance of a run runs the response loop over
// the run's shared topic, so a test counting events, or proving none was published twice, reads only the
// first kind: a second `created` copy of an id is a real duplicate, an `updated` one is not.
import type { InRecord } from '../../platform/kafka/index.ts';

/** The records of new events, in the order read; updates of published events left out. */
export function newEventRecords(records: readonly InRecord[]): InRecord[] {
  return records.filter((r) => r.headers.change === 'created');
}
