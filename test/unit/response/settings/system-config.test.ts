import { describe, expect, it } from 'vitest';
import { compile, problems } from '../../../../api/http/validation.ts';
import { systemConfigProblems, type SystemConfigFacts } from '../../../../response/settings/system-config-rules.ts';
import { DEFAULT_SYSTEM_CONFIG, DWELL_LADDER_PARTIES, NOTIFY_CHANNELS, systemConfigSchema, type SystemConfig } from '../../../../schemas/system-config.ts';
import { ESCALATION_ACTIONS } from '../../../../schemas/zone.ts';

/** The spec's "Alert levels (default behaviour)" table, as written. */
const SPEC_TABLE = [
  ['info', 'none', 'none', 'none', 'yes'],
  ['low', 'dashboard only', 'none', 'none', 'yes'],
  ['medium', 'push notification', 'optional', 'none', 'yes'],
  ['high', 'push plus audio alarm', 'automatic', 'supervisor', 'yes'],
  ['critical', 'all channels', 'immediate', 'all stakeholders', 'yes'],
] as const;

const CHANNELS_OF: Record<string, readonly string[]> = {
  none: [],
  'dashboard only': ['dashboard'],
  'push notification': ['push'],
  'push plus audio alarm': ['push', 'audio_alarm'],
  'all channels': NOTIFY_CHANNELS,
};

const copy = (): SystemConfig => structuredClone(DEFAULT_SYSTEM_CONFIG) as SystemConfig;
const noFacts: SystemConfigFacts = { existingWebhooks: new Set(), partiesInUse: new Map(), gatesInUse: new Map() };

const schemaProblems = (doc: unknown) => {
  const validate = compile('body', systemConfigSchema);
  validate(doc);
  return problems('body', validate.errors).map(({ path, message }) => `${path} ${message}`);
};

describe('the shipped system configuration', () => {
  it.each(SPEC_TABLE)('level %s does what the spec table says: %s, drone %s, escalation %s, logging %s', (level, notification, drone, escalation, logging) => {
    const behaviour = DEFAULT_SYSTEM_CONFIG.alert_levels[level];
    expect([...behaviour.notify].sort()).toEqual([...(CHANNELS_OF[notification] ?? ['missing'])].sort());
    expect(behaviour.drone_dispatch).toBe(drone);
    expect(behaviour.escalation).toBe(escalation.replace(' ', '_'));
    expect(behaviour.log).toBe(logging === 'yes');
  });

  it('has a row for every level of the table and no other', () => {
    expect(Object.keys(DEFAULT_SYSTEM_CONFIG.alert_levels).sort()).toEqual(SPEC_TABLE.map((r) => r[0]).sort());
  });

  it('passes its own schema and rules, with the built-in dwell ladder naming its three parties', () => {
    expect(schemaProblems(DEFAULT_SYSTEM_CONFIG)).toEqual([]);
    const ladder = new Map(ESCALATION_ACTIONS.map((a) => [DWELL_LADDER_PARTIES[a], ['the built-in dwell_time escalation']]));
    expect(systemConfigProblems(DEFAULT_SYSTEM_CONFIG, { ...noFacts, partiesInUse: ladder })).toEqual([]);
  });

  it('defines every party the dwell ladder escalates to, in escalation order', () => {
    expect(DEFAULT_SYSTEM_CONFIG.escalation_order).toEqual(ESCALATION_ACTIONS.map((a) => DWELL_LADDER_PARTIES[a]));
  });
});

describe('system configuration rules', () => {
  const cases: { name: string; change: (c: SystemConfig) => void; facts?: Partial<SystemConfigFacts>; expected: { path: string; message: RegExp }[] }[] = [
    {
      name: 'a party id given twice',
      change: (c) => c.parties.push({ id: 'supervisor', name: 'Night supervisor', webhook_ids: [], operator_groups: [] }),
      expected: [{ path: '/parties/3/id', message: /"supervisor" is already used by \/parties\/0/ }],
    },
    {
      name: 'a gate id given twice',
      change: (c) => c.gates.push({ id: 'G1', name: 'Gate 1' }, { id: 'G2', name: 'Gate 2' }, { id: 'G1', name: 'Gate one' }),
      expected: [{ path: '/gates/2/id', message: /"G1" is already used by \/gates\/0/ }],
    },
    {
      name: 'escalation_order naming a party that is not defined',
      change: (c) => c.escalation_order.push('harbour_master'),
      expected: [{ path: '/escalation_order/3', message: /"harbour_master", which \/parties does not define/ }],
    },
    {
      name: 'webhooks that do not exist, on the push channel and on a party',
      change: (c) => {
        c.channels.push.webhook_ids.push('wh_ok', 'wh_gone');
        c.parties[1]?.webhook_ids.push('wh_missing');
      },
      facts: { existingWebhooks: new Set(['wh_ok']) },
      expected: [
        { path: '/channels/push/webhook_ids/1', message: /"wh_gone" does not exist/ },
        { path: '/parties/1/webhook_ids/0', message: /"wh_missing" does not exist/ },
      ],
    },
    {
      name: 'a party removed while an alert rule names it',
      change: (c) => {
        c.parties = c.parties.filter((p) => p.id !== 'port_authority');
        c.escalation_order = ['supervisor', 'coast_guard'];
      },
      facts: { partiesInUse: new Map([['port_authority', ['zone "Holmen" alert_rules.on_entry', 'zone "Quay 4" alert_rules.on_dwell']], ['supervisor', ['zone "Holmen" alert_rules.on_entry']]]) },
      expected: [{ path: '/parties', message: /party "port_authority" cannot be removed: zone "Holmen" alert_rules.on_entry; zone "Quay 4" alert_rules.on_dwell still name it/ }],
    },
    {
      name: 'a gate removed while an alert rule locks it',
      change: (c) => c.gates.push({ id: 'G1', name: 'Gate 1' }),
      facts: { gatesInUse: new Map([['G1', ['zone "Holmen" alert_rules.on_entry']], ['G2', ['zone "Holmen" alert_rules.on_entry']]]) },
      expected: [{ path: '/gates', message: /gate "G2" cannot be removed: zone "Holmen" alert_rules.on_entry still names it/ }],
    },
    {
      name: 'levels that escalate with nobody to escalate to',
      change: (c) => {
        c.escalation_order = [];
        for (const level of ['medium', 'high', 'critical'] as const) c.alert_levels[level].ack_timeout_minutes = null;
        c.alert_levels.medium.ack_timeout_minutes = 30;
      },
      expected: [
        { path: '/alert_levels/medium/ack_timeout_minutes', message: /escalation_order, which is empty/ },
        { path: '/alert_levels/high/escalation', message: /supervisor escalates along \/escalation_order, which is empty/ },
        { path: '/alert_levels/critical/escalation', message: /all_stakeholders escalates along/ },
      ],
    },
  ];

  it.each(cases)('refuses $name', ({ change, facts, expected }) => {
    const doc = copy();
    change(doc);
    expect(systemConfigProblems(doc, { ...noFacts, ...facts })).toEqual(expected.map((e) => ({ path: e.path, message: expect.stringMatching(e.message) })));
  });

  it('lists every problem of a document at once', () => {
    const doc = copy();
    for (const c of cases) c.change(doc);
    const facts = Object.assign({}, noFacts, ...cases.map((c) => c.facts ?? {})) as SystemConfigFacts;
    expect(systemConfigProblems(doc, facts).length).toBeGreaterThanOrEqual(7);
  });

  it('accepts a site of its own: other parties, gates, webhooks that exist', () => {
    const doc = copy();
    doc.parties.push({ id: 'harbour_master', name: 'Harbour master', webhook_ids: ['wh_1'], operator_groups: ['harbour'] });
    doc.escalation_order = ['harbour_master', 'supervisor'];
    doc.gates.push({ id: 'G1', name: 'Gate 1' });
    doc.channels.push.webhook_ids.push('wh_2');
    const facts = { existingWebhooks: new Set(['wh_1', 'wh_2']), partiesInUse: new Map([['harbour_master', ['zone "Holmen" alert_rules.on_entry']]]), gatesInUse: new Map([['G1', ['x']]]) };
    expect(systemConfigProblems(doc, facts)).toEqual([]);
  });
});

describe('system configuration schema bounds', () => {
  const cases: [string, (c: SystemConfig) => void, string[]][] = [
    ['an acknowledgement timeout of 0', (c) => (c.alert_levels.high.ack_timeout_minutes = 0), ['/alert_levels/high/ack_timeout_minutes must be >= 1']],
    ['a negative acknowledgement timeout', (c) => (c.alert_levels.high.ack_timeout_minutes = -5), ['/alert_levels/high/ack_timeout_minutes must be >= 1']],
    ['a fractional acknowledgement timeout', (c) => (c.alert_levels.high.ack_timeout_minutes = 1.5), ['/alert_levels/high/ack_timeout_minutes must be integer,null']],
    ['an acknowledgement timeout over a week', (c) => (c.alert_levels.low.ack_timeout_minutes = 10_081), ['/alert_levels/low/ack_timeout_minutes must be <= 10080']],
    ['a group window of 0', (c) => (c.incidents.group_window_minutes = 0), ['/incidents/group_window_minutes must be >= 1']],
    ['a group window over a day', (c) => (c.incidents.group_window_minutes = 1_441), ['/incidents/group_window_minutes must be <= 1440']],
    ['a negative reopen window', (c) => (c.incidents.reopen_window_minutes = -1), ['/incidents/reopen_window_minutes must be >= 0']],
    ['an unknown channel', (c) => ((c.alert_levels.low.notify as string[]) = ['pager']), [expect.stringMatching(/^\/alert_levels\/low\/notify\/0 must be one of/) as unknown as string]],
    ['a missing level', (c) => delete (c.alert_levels as Partial<SystemConfig['alert_levels']>).info, ['/alert_levels/info is required']],
    ['a party id that is not a plain word', (c) => ((c.parties[0] as { id: string }).id = 'Port Authority'), [expect.stringMatching(/^\/parties\/0\/id must match pattern/) as unknown as string]],
  ];

  it.each(cases)('refuses %s', (_name, change, expected) => {
    const doc = copy();
    change(doc);
    expect(schemaProblems(doc)).toEqual(expected);
  });

  it.each([
    ['no acknowledgement timeout (null)', (c: SystemConfig) => (c.alert_levels.critical.ack_timeout_minutes = null)],
    ['a reopen window of 0 (never reopen)', (c: SystemConfig) => (c.incidents.reopen_window_minutes = 0)],
    ['the longest windows', (c: SystemConfig) => Object.assign(c.incidents, { group_window_minutes: 1_440, reopen_window_minutes: 1_440 })],
  ])('accepts %s', (_name, change) => {
    const doc = copy();
    change(doc);
    expect(schemaProblems(doc)).toEqual([]);
  });
});
