// Events for the event backbone's tests: consistent with the type table, one module's events told
// apart by `n`, and removed again afterwards (the test database is shared by every file of a run).
import { eventId } from '../../events/event-id.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { unique } from './stack.ts';

/** A maritime-zone-like event by default; `gate` gives a gate module's kind. */
export function testEvent(sourceModule: string, n: number, kind: 'maritime' | 'gate' = 'maritime'): SecurityEvent {
  const shape =
    kind === 'maritime'
      ? ({ type: 'zone_entry', category: 'maritime', severity: 'high', location: { lat: 55.69, lng: 12.6, zone: 'zone_test' } } as const)
      : ({ type: 'seal_violation', category: 'gate', severity: 'high', location: {} } as const);
  return {
    id: eventId(`${sourceModule}:${n}`),
    ...shape,
    timestamp: new Date(Date.UTC(2026, 10, 21, 7, 0, n % 60, Math.floor(n / 60))).toISOString(),
    source_module: sourceModule,
    source_device: 'test',
    title: `event ${n}`,
    description: '',
    metadata: { n },
    requires_action: true,
    assigned_to: '',
    incident_id: null,
  };
}

/** Unique source module names, and a cleanup that deletes their events (outbox and triage rows go with them). */
export function testModules(pool: () => Pool) {
  const names: string[] = [];
  return {
    next(name = 'module'): string {
      const module = unique(name);
      names.push(module);
      return module;
    },
    async cleanup(): Promise<void> {
      await pool().query('DELETE FROM security_events WHERE source_module = ANY($1::text[])', [names]);
    },
  };
}
