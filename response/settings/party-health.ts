// The parties of an escalation as components of the health model (docs/operations.md): `escalation_party:<id>`
// is degraded while an escalation can reach the party and it has no receiver (party-receivers.ts), ok
// otherwise, so the health, and one system_health_change per transition, say who would be escalated to
// and told nothing, and when a receiver appears.
import type { ComponentHealth, HealthSource } from '../../platform/health/model.ts';
import type { Pool } from '../../platform/postgres.ts';
import { noReceiverReason, unheard, type PartyReach } from './party-receivers.ts';
import { readPartyReach, readSystemConfig } from './system-config-store.ts';

export const PARTY_COMPONENT_KIND = 'escalation_party';

/** Every party of the configuration, so one that gains a receiver (or leaves every escalation path) is reported back to ok. */
export function partyHealth(reach: readonly PartyReach[]): Record<string, ComponentHealth> {
  return Object.fromEntries(reach.map((r) => [`${PARTY_COMPONENT_KIND}:${r.party.id}`, unheard(r) ? { status: 'degraded', reason: `${r.party.name}: ${noReceiverReason(r)}` } : { status: 'ok', reason: '' }]));
}

/** Read at each report (the configuration, the parties' webhooks, the rules naming parties: five small queries). */
export function partyHealthSource(pool: Pool): HealthSource {
  return async () => partyHealth(await readPartyReach(pool, await readSystemConfig(pool)));
}
