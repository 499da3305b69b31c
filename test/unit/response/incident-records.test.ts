import { describe, expect, it } from 'vitest';
import type { ActionView } from '../../../response/action-log.ts';
import { escalationDeliveryPairs, incidentResponseRecords } from '../../../response/incident-records.ts';

const action = (kind: ActionView['kind'], target: string, extra: Partial<ActionView> = {}): ActionView => ({
  id: `act-${kind}-${target}`, kind, target, event_id: 'evt-cause', incident_id: 'inc_1', level: 'critical', source: 'rule', reason: 'zone:Quay:on_entry',
  params: {}, status: 'pending', attempts: 0, result: null, last_error: null, created_at: '2026-11-28T13:02:10.000Z', done_at: null, ...extra,
});

describe('an incident\'s escalations with their deliveries', () => {
  const told = action('escalate', 'port_authority', { status: 'done', result: { event_id: 'evt-esc-pa', webhook_ids: ['wh-1', 'wh-2'] }, done_at: '2026-11-28T13:02:11.000Z' });
  const nobody = action('escalate', 'supervisor', { status: 'done', result: { event_id: 'evt-esc-sup', webhook_ids: [] } });
  const waiting = action('escalate', 'coast_guard');
  const notify = action('notify', 'push', { status: 'done', result: { webhook_ids: ['wh-9'] } });

  it('asks for the deliveries of each done escalation\'s event to each of its webhooks, and nothing else', () => {
    expect(escalationDeliveryPairs([told, nobody, waiting, notify])).toEqual([{ webhookId: 'wh-1', eventId: 'evt-esc-pa' }, { webhookId: 'wh-2', eventId: 'evt-esc-pa' }]);
  });

  it('gives each escalation the counts of its own event, none where there is no webhook or no event yet', () => {
    const { escalations } = incidentResponseRecords([told, nobody, waiting, notify], new Map([['evt-esc-pa', { delivered: 1, pending: 1, failed: 0 }]]));
    expect(escalations.map((e) => [e.party, e.deliveries])).toEqual([
      ['port_authority', { delivered: 1, pending: 1, failed: 0 }],
      ['supervisor', { delivered: 0, pending: 0, failed: 0 }],
      ['coast_guard', { delivered: 0, pending: 0, failed: 0 }],
    ]);
  });
});
