import type { SecurityEvent } from '../../../schemas/event.ts';
import type { AlertRules, AlertRuleTrigger, AlertRuleTriggerName } from '../../../schemas/maritime-rules.ts';

export interface AlertRuleMatch {
  trigger: AlertRuleTriggerName;
  rule: AlertRuleTrigger;
}

/**
 * Which of a zone's alert rules an event of that zone answers to (issue 23), for the response loop's
 * planner: an alerting zone_entry -> `on_entry`, an alerting zone_exit -> `on_exit`, the dwell_threshold
 * raised at the `on_dwell` point (metadata.alert_rule 'on_dwell') -> `on_dwell`. The zone step's records
 * of presence that raises no alert (an authorized vessel, a zone out of schedule: metadata.alerting
 * false) answer to none, as does the zone's own dwell_threshold and every other event. `rules` are those
 * of the event's zone (`loadAlertRules(pool).get(event.location.zone)`); the caller picks them.
 */
export function matchAlertRule(rules: AlertRules | undefined, event: SecurityEvent): AlertRuleMatch | undefined {
  if (rules === undefined) return undefined;
  const trigger = triggerOf(event);
  const rule = trigger === undefined ? undefined : rules[trigger];
  return trigger === undefined || rule === undefined ? undefined : { trigger, rule };
}

function triggerOf(event: SecurityEvent): AlertRuleTriggerName | undefined {
  const metadata = event.metadata as { alerting?: unknown; alert_rule?: unknown };
  switch (event.type) {
    case 'zone_entry':
      return metadata.alerting === false ? undefined : 'on_entry';
    case 'zone_exit':
      return metadata.alerting === false ? undefined : 'on_exit';
    case 'dwell_threshold':
      return metadata.alert_rule === 'on_dwell' ? 'on_dwell' : undefined;
    default:
      return undefined;
  }
}
