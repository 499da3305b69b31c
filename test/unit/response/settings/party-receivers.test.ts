// Who hears a party's escalations (issue 33, item 9): its receivers (today its active webhooks), what can
// escalate to it, and the PUT's warnings for the parties reached and heard by nobody.
import { describe, expect, it } from 'vitest';
import { configWarnings, noReceiverReason, partyReach, receiversOf, unheard } from '../../../../response/settings/party-receivers.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../../schemas/system-config.ts';

const config = (change: (c: SystemConfig) => void): SystemConfig => {
  const c = structuredClone(DEFAULT_SYSTEM_CONFIG) as SystemConfig;
  change(c);
  return c;
};
const BUILT_IN_LADDER = new Map([['supervisor', ['the built-in dwell_time escalation']], ['port_authority', ['the built-in dwell_time escalation']], ['coast_guard', ['the built-in dwell_time escalation']]]);

describe('party receivers', () => {
  it('a receiver is an active webhook of the party; one that is missing or inactive is none', () => {
    const party = { id: 'supervisor', name: 'Shift supervisor', webhook_ids: ['wh_on', 'wh_off', 'wh_deleted'], operator_groups: ['supervisors'] };
    expect(receiversOf(party, { activeWebhooks: new Set(['wh_on']) })).toEqual([{ kind: 'webhook', id: 'wh_on' }]);
    expect(receiversOf(party, { activeWebhooks: new Set() })).toEqual([]);
  });

  it('the shipped configuration: every party is reached (escalation order and the built-in ladder) and none is heard', () => {
    const reach = partyReach(DEFAULT_SYSTEM_CONFIG, { activeWebhooks: new Set() }, BUILT_IN_LADDER);
    expect(reach.map((r) => [r.party.id, r.paths, unheard(r)])).toEqual([
      ['supervisor', ['escalation_order', 'the built-in dwell_time escalation'], true],
      ['port_authority', ['escalation_order', 'the built-in dwell_time escalation'], true],
      ['coast_guard', ['escalation_order', 'the built-in dwell_time escalation'], true],
    ]);
    expect(noReceiverReason(reach[0]!)).toBe('no receiver: no webhook_ids, so its escalations are recorded and nobody is told (reached by escalation_order; the built-in dwell_time escalation)');
    expect(configWarnings(reach).map((w) => [w.code, w.path, w.party])).toEqual([
      ['party_without_receiver', '/parties/0/webhook_ids', 'supervisor'],
      ['party_without_receiver', '/parties/1/webhook_ids', 'port_authority'],
      ['party_without_receiver', '/parties/2/webhook_ids', 'coast_guard'],
    ]);
  });

  it('no warning for a party that is heard, nor for one that nothing escalates to', () => {
    const c = config((x) => {
      (x.parties[0] as { webhook_ids: string[] }).webhook_ids.push('wh_sup');
      x.parties.push({ id: 'harbour_master', name: 'Harbour master', webhook_ids: [], operator_groups: [] });
      x.escalation_order = ['supervisor'];
    });
    const reach = partyReach(c, { activeWebhooks: new Set(['wh_sup']) }, new Map([['coast_guard', ['zone "Basin" dwell escalation']]]));
    expect(reach.map((r) => [r.party.id, r.paths.length, r.receivers.length])).toEqual([['supervisor', 1, 1], ['port_authority', 0, 0], ['coast_guard', 1, 0], ['harbour_master', 0, 0]]);
    expect(configWarnings(reach)).toEqual([
      { code: 'party_without_receiver', path: '/parties/2/webhook_ids', party: 'coast_guard', message: 'party "coast_guard" (Coast guard) has no receiver: no webhook_ids, so its escalations are recorded and nobody is told (reached by zone "Basin" dwell escalation)' },
    ]);
  });
});
