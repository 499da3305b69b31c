import type { FromSchema } from 'json-schema-to-ts';
import { ALERT_LEVELS, ESCALATION_ACTIONS, WEEK_DAYS, ZONE_TYPES } from './zone.ts';

/**
 * Per-zone rule configuration (spec "Per-zone configuration structures", items 2 to 6). The bulk
 * document (`GET/PUT /v1/maritime/rules`, `pss rules import`) holds the spec's structures as written:
 * lists of entries each naming its zone in `zone` (a zone name). One zone's rules
 * (`/v1/maritime/zones/{zone_id}/rules`) hold the same entries without `zone`, one per kind.
 */

const alertLevel = { type: 'string', enum: ALERT_LEVELS } as const;
const knots = { type: 'number', minimum: 0, maximum: 102.2 } as const;
const zoneName = { type: 'string', minLength: 1, maxLength: 200 } as const;
const vesselTypes = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 100, uniqueItems: true } as const;

const speedRule = {
  type: 'object',
  additionalProperties: false,
  // At least one limit: checked by ruleSetProblems (ajv's strict mode refuses `required` in a bare anyOf).
  minProperties: 1,
  properties: {
    max_speed_knots: knots,
    min_speed_knots: knots,
    alert_on_violation: { type: 'boolean', default: true },
    alert_level: { ...alertLevel, default: 'medium' },
  },
} as const;

/**
 * Spec: `alert_on` is a list of items, each one of the three checks. `ais_loss_seconds` is at most 30
 * minutes: a vessel silent that long has its stays closed (zone_exit, `signal_lost`), after which no zone
 * watches it any more.
 */
const aisCheck = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['ais_loss_seconds'], properties: { ais_loss_seconds: { type: 'integer', minimum: 30, maximum: 1_800 } } },
    { type: 'object', additionalProperties: false, required: ['position_jump_nm'], properties: { position_jump_nm: { type: 'number', exclusiveMinimum: 0, maximum: 10_000 } } },
    { type: 'object', additionalProperties: false, required: ['heading_speed_mismatch'], properties: { heading_speed_mismatch: { type: 'boolean' } } },
  ],
} as const;

const aisRule = {
  type: 'object',
  additionalProperties: false,
  required: ['alert_on'],
  properties: {
    alert_on: { type: 'array', items: aisCheck, minItems: 1, maxItems: 3 },
    alert_level: { ...alertLevel, default: 'high' },
  },
} as const;

const vesselTypeRule = {
  type: 'object',
  additionalProperties: false,
  // At least one list: checked by ruleSetProblems.
  minProperties: 1,
  properties: {
    allowed_types: vesselTypes,
    denied_types: vesselTypes,
    alert_on_denied_entry: { type: 'boolean', default: true },
    alert_level: { ...alertLevel, default: 'high' },
  },
} as const;

const timeRule = {
  type: 'object',
  additionalProperties: false,
  required: ['schedules'],
  properties: {
    schedules: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'days', 'max_vessels'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          days: { type: 'array', items: { type: 'string', enum: WEEK_DAYS }, minItems: 1, maxItems: 7, uniqueItems: true },
          /** As a zone schedule's `hours`; absent: the whole day. Local time of the zone's schedule time zone, else UTC. */
          hours: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]-(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' },
          max_vessels: { type: 'integer', minimum: 0, maximum: 100_000 },
          alert_level: { ...alertLevel, default: 'medium' },
        },
      },
    },
  },
} as const;

/**
 * Beyond the spec: loitering (Global Fishing Watch's definition by default: under 2 kn for at least
 * 2 hours) inside the zone.
 */
const loiteringRule = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_speed_knots: { type: 'number', exclusiveMinimum: 0, maximum: 50, default: 2 },
    min_minutes: { type: 'integer', minimum: 1, maximum: 10_080, default: 120 },
    alert_level: { ...alertLevel, default: 'medium' },
  },
} as const;

/**
 * Beyond the spec: a vessel whose consecutive reports straddle the zone crossed it though no report fell
 * inside (Tile38's `cross`), for zones small against the distance between reports.
 */
const crossingRule = {
  type: 'object',
  additionalProperties: false,
  properties: {
    alert_level: { ...alertLevel, default: 'medium' },
  },
} as const;

/**
 * Beyond the spec: two vessels inside the zone within `max_distance_meters` of each other, both under
 * `max_speed_knots`, for at least `min_minutes` (Global Fishing Watch's encounter definition by default:
 * 500 m, 2 kn, 2 h), the pattern of a ship-to-ship transfer at anchorage.
 */
const encounterRule = {
  type: 'object',
  additionalProperties: false,
  properties: {
    max_distance_meters: { type: 'number', exclusiveMinimum: 0, maximum: 5_000, default: 500 },
    max_speed_knots: { type: 'number', exclusiveMinimum: 0, maximum: 50, default: 2 },
    min_minutes: { type: 'integer', minimum: 1, maximum: 10_080, default: 120 },
    alert_level: { ...alertLevel, default: 'medium' },
  },
} as const;

/**
 * Issue 23: what a zone does when a vessel enters it, dwells in it or leaves it. The processor gives the
 * zone event the trigger's `alert_level` (and raises a dwell_threshold at `on_dwell.threshold_minutes`);
 * the response loop carries out the `actions`. Which parties and gates exist is the system
 * configuration's (`/v1/system/config`): the API and `pss rules import` check the names against it in the
 * same pass as this schema (rules-config/alert-rule-problems.ts), so one 422 lists every problem.
 */
export const ALERT_ACTIONS = ['notify_operator', 'dispatch_drone', 'escalate_to', 'lock_gates', 'log_event', 'close_incident'] as const;
export const DRONE_MISSIONS = ['inspect', 'track', 'perimeter_sweep', 'evidence'] as const;
export const ALERT_RULE_TRIGGERS = ['on_entry', 'on_dwell', 'on_exit'] as const;
export const ALERT_RULE_LIMITS = { maxActions: 20, maxParties: 10, maxGates: 50, maxThresholdMinutes: 525_600 } as const;

const namesList = (max: number, what: string) =>
  ({ type: 'array', minItems: 1, maxItems: max, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 128 }, description: what }) as const;

/** One action; `action` picks the form (ajv's discriminator names only the chosen form's problems). */
const alertActionSchema = {
  type: 'object',
  discriminator: { propertyName: 'action' },
  required: ['action'],
  properties: { action: { type: 'string', enum: ALERT_ACTIONS } },
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['action'], properties: { action: { const: 'notify_operator' }, assign_to: { type: 'string', minLength: 1, maxLength: 128, description: 'Operator id set as the event\'s assigned_to.' } } },
    { type: 'object', additionalProperties: false, required: ['action', 'mission'], properties: { action: { const: 'dispatch_drone' }, mission: { type: 'string', enum: DRONE_MISSIONS } } },
    { type: 'object', additionalProperties: false, required: ['action', 'parties'], properties: { action: { const: 'escalate_to' }, parties: namesList(ALERT_RULE_LIMITS.maxParties, 'Party ids of the system configuration.') } },
    { type: 'object', additionalProperties: false, required: ['action', 'gates'], properties: { action: { const: 'lock_gates' }, gates: namesList(ALERT_RULE_LIMITS.maxGates, 'Gate ids of the system configuration.') } },
    { type: 'object', additionalProperties: false, required: ['action'], properties: { action: { const: 'log_event' } } },
    { type: 'object', additionalProperties: false, required: ['action'], properties: { action: { const: 'close_incident' } } },
  ],
} as const;

const alertActions = { type: 'array', maxItems: ALERT_RULE_LIMITS.maxActions, items: alertActionSchema, description: 'Carried out by the response loop; absent or []: the alert level\'s default behaviour only.' } as const;

const alertTrigger = {
  type: 'object',
  additionalProperties: false,
  required: ['alert_level'],
  properties: { alert_level: alertLevel, actions: alertActions },
} as const;

const alertRules = {
  type: 'object',
  additionalProperties: false,
  // At least one trigger: checked with the names (alert-rule-problems.ts), in the schema's pass.
  properties: {
    on_entry: { ...alertTrigger, description: 'The zone_entry of an alerting vessel gets this alert level.' },
    on_dwell: {
      type: 'object',
      additionalProperties: false,
      required: ['threshold_minutes', 'alert_level'],
      properties: {
        threshold_minutes: { type: 'integer', minimum: 1, maximum: ALERT_RULE_LIMITS.maxThresholdMinutes, description: 'Alerting dwell (as for the dwell thresholds) at which a dwell_threshold with metadata.alert_rule "on_dwell" is raised, once per visit.' },
        alert_level: alertLevel,
        actions: alertActions,
      },
    },
    on_exit: { ...alertTrigger, description: 'The zone_exit of an alerting vessel gets this alert level.' },
  },
} as const;

/** One zone's rules: at most one entry of each kind. */
export const zoneRuleSetSchema = {
  $id: 'https://pss.local/schemas/zone-rules.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    speed_rules: speedRule,
    ais_rules: aisRule,
    vessel_type_rules: vesselTypeRule,
    time_rules: timeRule,
    loitering_rules: loiteringRule,
    crossing_rules: crossingRule,
    encounter_rules: encounterRule,
    alert_rules: alertRules,
  },
} as const;

/** Spec "Dwell time" as written: site-wide, by zone type. A zone's own `dwell` object overrides it field by field. */
export const dwellTimeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled'],
  properties: {
    enabled: { type: 'boolean' },
    thresholds: {
      type: 'array',
      maxItems: 4,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['zone_type', 'max_dwell_minutes'],
        properties: { zone_type: { type: 'string', enum: ZONE_TYPES }, max_dwell_minutes: { type: 'integer', minimum: 0, maximum: 525_600 } },
      },
    },
    reset_window_minutes: { type: 'integer', minimum: 0, maximum: 10_080 },
    escalation: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['after_minutes', 'action'],
        properties: { after_minutes: { type: 'integer', minimum: 0, maximum: 525_600 }, action: { type: 'string', enum: ESCALATION_ACTIONS } },
      },
    },
  },
} as const;

const MAX_ENTRIES = 10_000;

/** The bulk document: every zone's rules in the spec's structures, plus the site-wide `dwell_time`. */
export const maritimeRulesSchema = {
  $id: 'https://pss.local/schemas/maritime-rules.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    dwell_time: dwellTimeSchema,
    speed_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...speedRule, required: ['zone'], properties: { zone: zoneName, ...speedRule.properties } } },
    ais_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...aisRule, required: ['zone', 'alert_on'], properties: { zone: zoneName, ...aisRule.properties } } },
    vessel_type_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...vesselTypeRule, required: ['zone'], properties: { zone: zoneName, ...vesselTypeRule.properties } } },
    time_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...timeRule, required: ['zone', 'schedules'], properties: { zone: zoneName, ...timeRule.properties } } },
    loitering_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...loiteringRule, required: ['zone'], properties: { zone: zoneName, ...loiteringRule.properties } } },
    crossing_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...crossingRule, required: ['zone'], properties: { zone: zoneName, ...crossingRule.properties } } },
    encounter_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...encounterRule, required: ['zone'], properties: { zone: zoneName, ...encounterRule.properties } } },
    alert_rules: { type: 'array', maxItems: MAX_ENTRIES, items: { ...alertRules, required: ['zone'], properties: { zone: zoneName, ...alertRules.properties } } },
  },
} as const;

export const RULE_KINDS = ['speed_rules', 'ais_rules', 'vessel_type_rules', 'time_rules', 'loitering_rules', 'crossing_rules', 'encounter_rules', 'alert_rules'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export type ZoneRuleSet = FromSchema<typeof zoneRuleSetSchema>;
export type MaritimeRules = FromSchema<typeof maritimeRulesSchema>;
export type DwellTime = FromSchema<typeof dwellTimeSchema>;
export type SpeedRule = NonNullable<ZoneRuleSet['speed_rules']>;
export type AisRule = NonNullable<ZoneRuleSet['ais_rules']>;
export type VesselTypeRule = NonNullable<ZoneRuleSet['vessel_type_rules']>;
export type TimeRule = NonNullable<ZoneRuleSet['time_rules']>;
export type LoiteringRule = NonNullable<ZoneRuleSet['loitering_rules']>;
export type CrossingRule = NonNullable<ZoneRuleSet['crossing_rules']>;
export type EncounterRule = NonNullable<ZoneRuleSet['encounter_rules']>;
export type AlertRules = NonNullable<ZoneRuleSet['alert_rules']>;
export type AlertRuleTrigger = NonNullable<AlertRules[(typeof ALERT_RULE_TRIGGERS)[number]]>;
export type AlertRuleTriggerName = (typeof ALERT_RULE_TRIGGERS)[number];
export type AlertAction = NonNullable<AlertRuleTrigger['actions']>[number];
export interface RuleOfKind {
  speed_rules: SpeedRule;
  ais_rules: AisRule;
  vessel_type_rules: VesselTypeRule;
  time_rules: TimeRule;
  loitering_rules: LoiteringRule;
  crossing_rules: CrossingRule;
  encounter_rules: EncounterRule;
  alert_rules: AlertRules;
}
