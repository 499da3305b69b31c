// The durable delivery queue in Postgres: deliveries recorded by the matcher (one per webhook and event),
// claimed by dispatchers (FOR UPDATE SKIP LOCKED plus a lease, so any number of workers and instances
// share it and a crashed one's attempt comes back when its lease ends), and their results recorded.
import { createHash } from 'node:crypto';
import { storeEvents } from '../../events/store.ts';
import type { PoolClient, Pool } from '../../platform/postgres.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { alertEvent, type WebhookAlert } from './alerts.ts';
import { FULL_FAILURES_TO_DEACTIVATE, type AttemptResult, type Decision } from './outcome.ts';

/** Deterministic, so a re-read event finds its delivery instead of making another. */
export function deliveryId(webhookId: string, eventId: string): string {
  return `dlv_${createHash('sha256').update(`${webhookId}:${eventId}`).digest('hex').slice(0, 32)}`;
}

export interface NewDelivery {
  webhookId: string;
  event: SecurityEvent;
}

/** NOTIFY after deliveries were recorded: every instance's dispatcher wakes (dispatcher.ts), not only the recorder's. */
export const WEBHOOK_DUE_CHANNEL = 'pss_webhook_due';

/** Records deliveries due at `now`; those already recorded are left alone. Returns how many were new. */
export async function enqueueDeliveries(db: Pool | PoolClient, deliveries: NewDelivery[], now: number): Promise<number> {
  if (deliveries.length === 0) return 0;
  const rows = deliveries.map((d) => ({
    id: deliveryId(d.webhookId, d.event.id), webhook_id: d.webhookId, event_id: d.event.id, event_type: d.event.type,
    severity: d.event.severity, zone: d.event.location.zone ?? null, event: d.event,
  }));
  const { rowCount } = await db.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, severity, zone, event, next_attempt_at)
     SELECT r.id, r.webhook_id, r.event_id, r.event_type, r.severity, r.zone, r.event, $2
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, webhook_id text, event_id text, event_type text, severity text, zone text, event jsonb)
       JOIN webhooks w ON w.id = r.webhook_id
     ON CONFLICT (webhook_id, event_id) DO NOTHING`,
    [JSON.stringify(rows), new Date(now)],
  );
  // Inside a caller's transaction the notice goes out at its commit; otherwise the insert has committed.
  if ((rowCount ?? 0) > 0) await db.query('SELECT pg_notify($1, $2)', [WEBHOOK_DUE_CHANNEL, '']);
  return rowCount ?? 0;
}

export interface ClaimedAttempt {
  id: string;
  webhookId: string;
  webhookName: string;
  event: SecurityEvent;
  /** This attempt's number over the whole delivery (the body's `attempt`). */
  attempt: number;
  roundAttempts: number;
  singleAttempt: boolean;
  test: boolean;
  token: string;
  url: string;
  headers: Record<string, string>;
  secretSealed: string;
}

interface ClaimRow {
  id: string;
  webhook_id: string;
  name: string;
  event: SecurityEvent;
  attempts: number;
  round_attempts: number;
  single_attempt: boolean;
  test: boolean;
  claim_token: string;
  url: string;
  headers: Record<string, string>;
  secret_sealed: string;
}

export interface ClaimOptions {
  now: number;
  /** How many to claim at most. */
  limit: number;
  perEndpoint: number;
  /** Attempts this dispatcher has in flight per webhook, so no endpoint gets more than perEndpoint. */
  inFlight: Map<string, number>;
  leaseMs: number;
  token: string;
}

/**
 * Claims due attempts of active webhooks, at most `perEndpoint` in flight per webhook on this
 * dispatcher. Claiming moves next_attempt_at to the end of the lease: no one else sees the attempt as
 * due until then, and if this dispatcher dies, it is due again.
 */
export async function claimDue(pool: Pool, o: ClaimOptions): Promise<ClaimedAttempt[]> {
  if (o.limit <= 0) return [];
  const { rows } = await pool.query<ClaimRow>(
    `WITH busy AS (SELECT * FROM unnest($4::text[], $5::int[]) AS b(webhook_id, n)),
     picked AS (
       SELECT d.id FROM webhooks w
       CROSS JOIN LATERAL (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= $1
          ORDER BY d.next_attempt_at
          LIMIT GREATEST(0, $3 - COALESCE((SELECT busy.n FROM busy WHERE busy.webhook_id = w.id), 0))
          FOR UPDATE OF d SKIP LOCKED
       ) d
       WHERE w.active
       LIMIT $2
     )
     UPDATE webhook_deliveries d SET next_attempt_at = $1::timestamptz + make_interval(secs => $6::double precision / 1000), claim_token = $7
       FROM picked, webhooks w
      WHERE d.id = picked.id AND w.id = d.webhook_id
      RETURNING d.id, d.webhook_id, w.name, d.event, d.attempts, d.round_attempts, d.single_attempt, d.test, d.claim_token, w.url, w.headers, w.secret_sealed`,
    [new Date(o.now), o.limit, o.perEndpoint, [...o.inFlight.keys()], [...o.inFlight.values()], o.leaseMs, o.token],
  );
  return rows.map(claimedOf);
}

function claimedOf(r: ClaimRow): ClaimedAttempt {
  return {
    id: r.id, webhookId: r.webhook_id, webhookName: r.name, event: r.event, attempt: r.attempts + 1, roundAttempts: r.round_attempts,
    singleAttempt: r.single_attempt, test: r.test, token: r.claim_token, url: r.url, headers: r.headers, secretSealed: r.secret_sealed,
  };
}

export interface AttemptRecord {
  claimed: ClaimedAttempt;
  result: AttemptResult;
  decision: Decision;
  attemptedAt: number;
}

/**
 * Records a batch of attempts in one transaction: each delivery (only while this dispatcher's claim on it
 * still holds), its attempt, the webhooks' counters, and the consequences of a round that ended in
 * failure or of a 410. Returns the alerts stored, so the caller wakes the relay.
 */
export async function recordAttempts(pool: Pool, records: AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  return inTransaction(pool, async (client) => {
    const rows = records.map(({ claimed, result, decision, attemptedAt }) => ({
      id: claimed.id, token: claimed.token, attempt: claimed.attempt, status: decision.status,
      next_attempt_at: decision.nextAttemptAt === undefined ? null : new Date(decision.nextAttemptAt).toISOString(),
      response_code: result.statusCode ?? null, response_time_ms: result.responseTimeMs, error: result.failure?.message ?? null,
      reason: result.failure?.reason ?? null, excerpt: result.excerpt ?? null, attempted_at: new Date(attemptedAt).toISOString(), webhook_id: claimed.webhookId,
    }));
    // The webhooks first, in id order, as DELETE /v1/webhooks/{id} locks its webhook before cascading to
    // the deliveries: locking a delivery first and its webhook after deadlocked with that DELETE.
    await client.query('SELECT 1 FROM webhooks WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [[...new Set(rows.map((r) => r.webhook_id))]]);
    const { rows: recorded } = await client.query<{ id: string }>(
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id text, token text, attempt int, status text, next_attempt_at timestamptz,
           response_code int, response_time_ms float8, error text, reason text, excerpt text, attempted_at timestamptz, webhook_id text)
       ), upd AS (
         UPDATE webhook_deliveries d SET status = r.status, attempts = r.attempt, round_attempts = d.round_attempts + 1,
                next_attempt_at = r.next_attempt_at, claim_token = NULL, response_code = r.response_code, response_time_ms = r.response_time_ms,
                first_attempt_error = CASE WHEN r.attempt = 1 THEN r.error ELSE d.first_attempt_error END, last_error = r.error,
                delivered_at = CASE WHEN r.status = 'delivered' THEN r.attempted_at ELSE d.delivered_at END, updated_at = now()
           FROM r WHERE d.id = r.id AND d.claim_token = r.token
         RETURNING d.id, d.test
       ), att AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, attempted_at, response_code, response_time_ms, reason_class, error, response_excerpt)
         SELECT r.id, r.attempt, r.webhook_id, r.attempted_at, r.response_code, r.response_time_ms, r.reason, r.error, r.excerpt FROM r JOIN upd USING (id)
         ON CONFLICT DO NOTHING
       ), counted AS (
         SELECT r.webhook_id, count(*) FILTER (WHERE r.status = 'delivered') AS ok, count(*) FILTER (WHERE r.error IS NOT NULL) AS bad,
                sum(r.response_time_ms) AS rt, count(*) AS n, max(r.attempted_at) AS last_at,
                max(r.attempted_at) FILTER (WHERE r.status = 'delivered') AS last_ok_at,
                max(r.attempted_at) FILTER (WHERE r.error IS NOT NULL) AS last_bad_at,
                (array_agg(r.error ORDER BY r.attempted_at DESC) FILTER (WHERE r.error IS NOT NULL))[1] AS last_bad_reason
           FROM r JOIN upd USING (id) WHERE NOT upd.test GROUP BY r.webhook_id
       ), counters AS (
         UPDATE webhooks w SET success_count = success_count + c.ok, failure_count = failure_count + c.bad,
                response_time_sum_ms = response_time_sum_ms + c.rt, response_time_samples = response_time_samples + c.n,
                last_triggered_at = GREATEST(last_triggered_at, c.last_at),
                last_success_at = GREATEST(last_success_at, c.last_ok_at), last_failure_at = GREATEST(last_failure_at, c.last_bad_at),
                last_failure_reason = CASE WHEN c.last_bad_at IS NOT NULL AND c.last_bad_at >= COALESCE(w.last_failure_at, c.last_bad_at) THEN c.last_bad_reason ELSE w.last_failure_reason END,
                health_status = CASE WHEN c.ok > 0 THEN 'healthy' ELSE health_status END,
                consecutive_full_failures = CASE WHEN c.ok > 0 THEN 0 ELSE consecutive_full_failures END
           FROM (SELECT * FROM counted ORDER BY webhook_id) c WHERE w.id = c.webhook_id
       )
       SELECT id FROM upd`,
      [JSON.stringify(rows)],
    );
    const mine = new Set(recorded.map((r) => r.id));
    const alerts: SecurityEvent[] = [];
    for (const rec of records) {
      if (!mine.has(rec.claimed.id) || rec.claimed.test) continue;
      const alert = rec.decision.gone ? await disableGone(client, rec) : rec.decision.fullFailure ? await markFailing(client, rec) : undefined;
      if (alert) alerts.push(alertEvent(alert));
    }
    const stored = await storeEvents(client, alerts);
    return stored.length;
  });
}

/** Spec: after the 8th failure the webhook is failing; the third such delivery in a row deactivates it. */
async function markFailing(client: PoolClient, rec: AttemptRecord): Promise<WebhookAlert> {
  const { rows } = await client.query<{ active: boolean; deactivated: boolean }>(
    `UPDATE webhooks SET health_status = 'failing', consecutive_full_failures = consecutive_full_failures + 1,
            active = active AND consecutive_full_failures + 1 < $2,
            disabled_reason = CASE WHEN active AND consecutive_full_failures + 1 >= $2 THEN 'consecutive_failures' ELSE disabled_reason END,
            updated_at = now()
      WHERE id = $1 RETURNING active, disabled_reason = 'consecutive_failures' AND NOT active AS deactivated`,
    [rec.claimed.webhookId, FULL_FAILURES_TO_DEACTIVATE],
  );
  return alertOf(rec, rows[0]?.deactivated ? 'deactivated' : 'failing');
}

/** Spec: an answer of 410 disables the webhook for good; what was still pending is cancelled. */
async function disableGone(client: PoolClient, rec: AttemptRecord): Promise<WebhookAlert> {
  await client.query(`UPDATE webhooks SET active = false, disabled_reason = 'gone', updated_at = now() WHERE id = $1`, [rec.claimed.webhookId]);
  await client.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claim_token = NULL, updated_at = now() WHERE webhook_id = $1 AND status = 'pending'`,
    [rec.claimed.webhookId],
  );
  return alertOf(rec, 'gone');
}

function alertOf(rec: AttemptRecord, kind: WebhookAlert['kind']): WebhookAlert {
  return { webhookId: rec.claimed.webhookId, webhookName: rec.claimed.webhookName, deliveryId: rec.claimed.id, attempt: rec.claimed.attempt, kind, at: rec.attemptedAt };
}
