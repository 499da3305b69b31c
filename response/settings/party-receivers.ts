// Who is told when an escalation reaches a party (issue 33, item 9). An escalation is an incident_escalated
// event, on the stream for the party's operator groups, and delivered to each of the party's *receivers*:
// today its active webhooks; email, chat and paging receivers join here (receiversOf), and everything
// that warns of a party nobody hears (the PUT's warnings, the health component, the escalation's delivery
// count) follows from it. Pure: the facts from Postgres come in.
import type { SystemConfig } from '../../schemas/system-config.ts';

type Party = SystemConfig['parties'][number];

/** One way a party is told of an escalation. */
export type Receiver = { kind: 'webhook'; id: string };

export interface ReceiverFacts {
  /** Of the webhooks the parties name, those that exist and are active (an inactive webhook's deliveries are queued, never sent). */
  activeWebhooks: ReadonlySet<string>;
}

/** The party's receivers as things stand. */
export function receiversOf(party: Party, facts: ReceiverFacts): Receiver[] {
  return party.webhook_ids.filter((id) => facts.activeWebhooks.has(id)).map((id) => ({ kind: 'webhook', id }));
}

/** Every webhook a receiver could be, for the caller to look up. */
export function receiverWebhookIds(config: SystemConfig): string[] {
  return [...new Set(config.parties.flatMap((p) => p.webhook_ids))];
}

/** How each party is reached: its receivers, and what can escalate to it (empty: nothing does). */
export interface PartyReach {
  index: number;
  party: Party;
  receivers: Receiver[];
  paths: string[];
}

/**
 * Every party of the configuration with what escalates to it: `escalation_order` (the levels' escalation,
 * acknowledgement timeouts, drones that could not fly all walk it) and the stored rules that name it
 * (zones' `escalate_to`, dwell ladders: config-references.ts `rulesNamingParties`).
 */
export function partyReach(config: SystemConfig, facts: ReceiverFacts, namedByRules: ReadonlyMap<string, readonly string[]>): PartyReach[] {
  return config.parties.map((party, index) => ({
    index,
    party,
    receivers: receiversOf(party, facts),
    paths: [...(config.escalation_order.includes(party.id) ? ['escalation_order'] : []), ...(namedByRules.get(party.id) ?? [])],
  }));
}

/** A party an escalation can reach while nothing would tell anyone: its escalations are recorded and delivered nowhere. */
export function unheard(reach: PartyReach): boolean {
  return reach.paths.length > 0 && reach.receivers.length === 0;
}

/** Why nobody hears the party, in words for whoever configures it. */
export function noReceiverReason(reach: PartyReach): string {
  const named = reach.party.webhook_ids.length === 0 ? 'no webhook_ids' : `none of its webhook_ids (${reach.party.webhook_ids.join(', ')}) is an active webhook`;
  return `no receiver: ${named}, so its escalations are recorded and nobody is told (reached by ${reach.paths.join('; ')})`;
}

/** A warning of PUT /v1/system/config: the document is stored, and this is worth knowing. */
export interface ConfigWarning {
  code: 'party_without_receiver';
  path: string;
  party: string;
  message: string;
}

export function configWarnings(reach: readonly PartyReach[]): ConfigWarning[] {
  return reach.filter(unheard).map((r) => ({
    code: 'party_without_receiver',
    path: `/parties/${r.index}/webhook_ids`,
    party: r.party.id,
    message: `party ${JSON.stringify(r.party.id)} (${r.party.name}) has ${noReceiverReason(r)}`,
  }));
}
