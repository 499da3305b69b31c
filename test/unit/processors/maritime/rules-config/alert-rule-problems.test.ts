import { describe, expect, it } from 'vitest';
import { compile, problems } from '../../../../../api/http/validation.ts';
import { alertRuleProblems, alertRuleProblemsIn, knownNames } from '../../../../../processors/maritime/rules-config/alert-rule-problems.ts';
import { maritimeRulesSchema, zoneRuleSetSchema } from '../../../../../schemas/maritime-rules.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../../../schemas/system-config.ts';

// Issue 23: alert rules are validated in one pass, the schema's problems and the names the system
// configuration must hold together, as the zone rules API and `pss rules import` do.
const known = knownNames({ parties: DEFAULT_SYSTEM_CONFIG.parties, gates: [{ id: 'G1', name: 'Gate 1' }, { id: 'G2', name: 'Gate 2' }] });

/** Everything one pass finds in a body, as `path message`. */
function onePass(schema: object, body: unknown, form: 'zone' | 'bulk'): string[] {
  const validate = compile('body', schema);
  const found = validate(body) ? [] : problems('body', validate.errors);
  return [...found, ...alertRuleProblemsIn(body, known, form)].map((p) => `${p.path} ${p.message}`);
}

const VALID = {
  on_entry: {
    alert_level: 'critical',
    actions: [
      { action: 'notify_operator', assign_to: 'duty.officer' },
      { action: 'dispatch_drone', mission: 'inspect' },
      { action: 'escalate_to', parties: ['supervisor', 'port_authority'] },
      { action: 'lock_gates', gates: ['G1', 'G2'] },
      { action: 'log_event' },
    ],
  },
  on_dwell: { threshold_minutes: 10, alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['coast_guard'] }] },
  on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
};

describe('alert rule validation', () => {
  it('accepts every action with the names the system configuration holds', () => {
    expect(onePass(zoneRuleSetSchema, { alert_rules: VALID }, 'zone')).toEqual([]);
    expect(onePass(maritimeRulesSchema, { alert_rules: [{ zone: 'Holmen naval base', ...VALID }] }, 'bulk')).toEqual([]);
  });

  it('lists every problem of a zone rule set in one answer', () => {
    const body = {
      alert_rules: {
        on_entry: {
          alert_level: 'critical',
          actions: [
            { action: 'page_everyone' },
            { action: 'dispatch_drone' },
            { action: 'dispatch_drone', mission: 'bombard' },
            { action: 'escalate_to', parties: ['supervisor', 'mayor'] },
            { action: 'lock_gates', gates: [] },
            { action: 'lock_gates', gates: ['G1', 'G9'] },
          ],
        },
        on_dwell: { threshold_minutes: 2.5, alert_level: 'high' },
        on_exit: { alert_level: 'low', actions: [{ action: 'escalate_to', parties: ['harbour_master'] }] },
      },
    };
    const found = onePass(zoneRuleSetSchema, body, 'zone');
    expect(found).toEqual(expect.arrayContaining([
      '/alert_rules/on_entry/actions/0/action must be one of "notify_operator", "dispatch_drone", "escalate_to", "lock_gates", "log_event", "close_incident"',
      '/alert_rules/on_entry/actions/1/mission is required',
      '/alert_rules/on_entry/actions/2/mission must be one of "inspect", "track", "perimeter_sweep", "evidence"',
      '/alert_rules/on_entry/actions/3/parties/1 no party "mayor" in the system configuration (parties: supervisor, port_authority, coast_guard)',
      '/alert_rules/on_entry/actions/4/gates must NOT have fewer than 1 items',
      '/alert_rules/on_entry/actions/5/gates/1 no gate "G9" in the system configuration (gates: G1, G2)',
      '/alert_rules/on_dwell/threshold_minutes must be integer',
      '/alert_rules/on_exit/actions/0/parties/0 no party "harbour_master" in the system configuration (parties: supervisor, port_authority, coast_guard)',
    ]));
    // The discriminator's own note on action 0 is the only line beyond these.
    expect(found).toHaveLength(9);
  });

  it.each([
    [0, 'must be >= 1'],
    [-5, 'must be >= 1'],
    ['10', 'must be integer'],
    [525_601, 'must be <= 525600'],
  ])('refuses threshold_minutes %j: %s', (threshold, message) => {
    expect(onePass(zoneRuleSetSchema, { alert_rules: { on_dwell: { threshold_minutes: threshold, alert_level: 'high' } } }, 'zone')).toEqual([
      `/alert_rules/on_dwell/threshold_minutes ${message}`,
    ]);
  });

  it('refuses alert rules with no trigger, in a zone rule set and in a bulk entry', () => {
    expect(onePass(zoneRuleSetSchema, { alert_rules: {} }, 'zone')).toEqual(['/alert_rules give on_entry, on_dwell, on_exit or more']);
    expect(onePass(maritimeRulesSchema, { alert_rules: [{ zone: 'A', ...VALID }, { zone: 'B' }] }, 'bulk')).toEqual(['/alert_rules/1 give on_entry, on_dwell, on_exit or more']);
  });

  it('points into the bulk document at the entry', () => {
    const doc = { alert_rules: [{ zone: 'A', on_entry: { alert_level: 'high', actions: [{ action: 'lock_gates', gates: ['G3'] }] } }] };
    expect(onePass(maritimeRulesSchema, doc, 'bulk')).toEqual(['/alert_rules/0/on_entry/actions/0/gates/0 no gate "G3" in the system configuration (gates: G1, G2)']);
  });

  it('reads input that failed its schema without assuming its shape', () => {
    for (const rules of [null, 'x', 3, [], { on_entry: null }, { on_entry: { actions: 'x' } }, { on_entry: { actions: [null, 'x', { action: 'escalate_to', parties: 'supervisor' }, { action: 'lock_gates', gates: [7] }] } }]) {
      expect(() => alertRuleProblems(rules, known, '/alert_rules')).not.toThrow();
    }
    expect(alertRuleProblemsIn({ alert_rules: [null, 'x'] }, known, 'bulk')).toEqual([]);
    expect(alertRuleProblemsIn(null, known, 'zone')).toEqual([]);
  });

  it('says "none" when the configuration has no gates at all (the shipped default)', () => {
    const shipped = knownNames(DEFAULT_SYSTEM_CONFIG);
    expect(alertRuleProblems({ on_entry: { alert_level: 'high', actions: [{ action: 'lock_gates', gates: ['G1'] }] } }, shipped, '')).toEqual([
      { path: '/on_entry/actions/0/gates/0', message: 'no gate "G1" in the system configuration (gates: none)' },
    ]);
  });
});
