// How far the deliveries of some events got, per event: what an operator reads beside an escalation
// ("escalated to port authority: delivered 2/2") without the webhooks:read scope the delivery history needs.
import type { Pool, PoolClient } from '../../platform/postgres.ts';

export interface DeliveryCounts {
  delivered: number;
  pending: number;
  failed: number;
}

export const NO_DELIVERIES: DeliveryCounts = Object.freeze({ delivered: 0, pending: 0, failed: 0 });

/** Counts of the deliveries of each (webhook, event) pair named, by event id; the unique (webhook_id, event_id) index answers each pair. */
export async function deliveryCounts(db: Pool | PoolClient, pairs: readonly { webhookId: string; eventId: string }[]): Promise<Map<string, DeliveryCounts>> {
  const out = new Map<string, DeliveryCounts>();
  if (pairs.length === 0) return out;
  const { rows } = await db.query<{ event_id: string; status: string; n: number }>(
    `SELECT d.event_id, d.status, count(*)::int AS n
       FROM unnest($1::text[], $2::text[]) AS p(webhook_id, event_id)
       JOIN webhook_deliveries AS d ON d.webhook_id = p.webhook_id AND d.event_id = p.event_id
      GROUP BY d.event_id, d.status`,
    [pairs.map((p) => p.webhookId), pairs.map((p) => p.eventId)],
  );
  for (const r of rows) {
    const counts = out.get(r.event_id) ?? { ...NO_DELIVERIES };
    if (r.status === 'delivered' || r.status === 'pending' || r.status === 'failed') counts[r.status] += r.n;
    out.set(r.event_id, counts);
  }
  return out;
}
