// Delivery history and recovery (issue 14, item 6): the list, replays of one delivery or of a range, and
// test sends. A replay is one more attempt of the same delivery id (receivers deduplicate on it), not
// retried if it fails; a range replay is spread at PSS_WEBHOOK_REPLAY_PER_SECOND.
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../platform/errors.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { RangeReplay } from '../../schemas/webhook.ts';
import type { ClaimedAttempt } from './queue.ts';

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  response_code: number | null;
  response_time_ms: number | null;
  first_attempt_error: string | null;
  last_error: string | null;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
  test: boolean;
  created_at: Date;
}

const COLUMNS = 'id, event_id, event_type, status, attempts, response_code, response_time_ms, first_attempt_error, last_error, delivered_at, next_attempt_at, test, created_at';

/** Spec "Webhook delivery record", plus event_id, last_error, next_attempt_at, test and created_at. */
function deliveryView(r: DeliveryRow) {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempts: r.attempts,
    response_code: r.response_code,
    response_time_ms: r.response_time_ms,
    ...(r.first_attempt_error === null ? {} : { first_attempt_error: r.first_attempt_error }),
    last_error: r.last_error,
    delivered_at: r.delivered_at?.toISOString() ?? null,
    next_attempt_at: r.status === 'pending' ? (r.next_attempt_at?.toISOString() ?? null) : null,
    test: r.test,
    created_at: r.created_at.toISOString(),
  };
}
export type DeliveryView = ReturnType<typeof deliveryView>;

async function assertWebhook(pool: Pool, webhookId: string): Promise<{ active: boolean; disabled_reason: string | null }> {
  const { rows } = await pool.query<{ active: boolean; disabled_reason: string | null }>('SELECT active, disabled_reason FROM webhooks WHERE id = $1', [webhookId]);
  if (!rows[0]) throw new AppError('not_found', `Webhook ${webhookId} does not exist`);
  return rows[0];
}

export async function listDeliveries(pool: Pool, webhookId: string, q: { status?: string; page: number; per_page: number }) {
  await assertWebhook(pool, webhookId);
  const { rows } = await pool.query<DeliveryRow & { total: string }>(
    `SELECT ${COLUMNS}, count(*) OVER () AS total FROM webhook_deliveries
      WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
    [webhookId, q.status ?? null, q.per_page, (q.page - 1) * q.per_page],
  );
  return { deliveries: rows.map(deliveryView), total: rows[0] ? Number(rows[0].total) : 0 };
}

async function replayable(pool: Pool, webhookId: string): Promise<void> {
  const hook = await assertWebhook(pool, webhookId);
  if (!hook.active) {
    const why = hook.disabled_reason === 'gone' ? 'was disabled for good by an answer of 410' : 'is inactive; set active true first';
    throw new AppError('resource_conflict', `Webhook ${webhookId} ${why}`);
  }
}

/** One more attempt of a finished delivery, due now. */
export async function replayDelivery(pool: Pool, webhookId: string, id: string, now: number): Promise<DeliveryView> {
  await replayable(pool, webhookId);
  const { rows } = await pool.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, single_attempt = true, next_attempt_at = $3, claim_token = NULL, updated_at = now()
      WHERE webhook_id = $1 AND id = $2 AND status <> 'pending' RETURNING ${COLUMNS}`,
    [webhookId, id, new Date(now)],
  );
  if (rows[0]) return deliveryView(rows[0]);
  const { rows: existing } = await pool.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2', [webhookId, id]);
  if (!existing[0]) throw new AppError('not_found', `Delivery ${id} of webhook ${webhookId} does not exist`);
  throw new AppError('resource_conflict', `Delivery ${id} is pending already; its next attempt is scheduled`);
}

/** Replays (or, dry, counts) the deliveries of a range; each is due 1/pace seconds after the one before. */
export async function replayRange(pool: Pool, webhookId: string, body: RangeReplay, now: number, perSecond: number) {
  await (body.dry_run ? assertWebhook(pool, webhookId) : replayable(pool, webhookId));
  const filter = `webhook_id = $1 AND status = $2 AND NOT test AND created_at >= $3 AND created_at <= $4
    AND ($5::text IS NULL OR event_type = $5) AND ($6::text IS NULL OR severity = $6) AND ($7::text IS NULL OR lower(zone) = lower($7))`;
  const params = [webhookId, body.status, body.start_date, body.end_date, body.event_type ?? null, body.severity ?? null, body.zone ?? null];
  const paced = { per_second: perSecond };
  if (body.dry_run) {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${filter}`, params);
    const n = Number(rows[0]?.n ?? 0);
    return { dry_run: true, matched: n, scheduled: 0, ...paced, estimated_seconds: Math.ceil(n / perSecond) };
  }
  const { rows } = await pool.query<{ n: string }>(
    `WITH chosen AS (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS k FROM webhook_deliveries WHERE ${filter}),
     upd AS (
       UPDATE webhook_deliveries d SET status = 'pending', round_attempts = 0, single_attempt = true, claim_token = NULL, updated_at = now(),
              next_attempt_at = $8::timestamptz + make_interval(secs => chosen.k::double precision / $9)
         FROM chosen WHERE d.id = chosen.id RETURNING 1)
     SELECT count(*) AS n FROM upd`,
    [...params, new Date(now), perSecond],
  );
  const n = Number(rows[0]?.n ?? 0);
  return { dry_run: false, matched: n, scheduled: n, ...paced, estimated_seconds: Math.ceil(n / perSecond) };
}

/**
 * Records a test delivery claimed by the caller (no dispatcher sees it: it is never due), so the caller
 * sends it at once and records its one attempt like any other. It starts as failed, which is what the
 * history shows should the instance die before the answer is recorded.
 */
export async function claimTestDelivery(pool: Pool, webhookId: string, event: SecurityEvent): Promise<ClaimedAttempt> {
  const token = randomUUID();
  const id = `dlv_test_${randomBytes(12).toString('hex')}`;
  const { rows } = await pool.query<{ name: string; url: string; headers: Record<string, string>; secret_sealed: string }>(
    `WITH hook AS (SELECT id, name, url, headers, secret_sealed FROM webhooks WHERE id = $1),
     ins AS (
       INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, severity, zone, event, test, single_attempt, claim_token, status, last_error)
       SELECT $2, hook.id, $3, $4, $5, NULL, $6, true, true, $7, 'failed', 'the test send did not finish' FROM hook)
     SELECT name, url, headers, secret_sealed FROM hook`,
    [webhookId, id, event.id, event.type, event.severity, event, token],
  );
  const hook = rows[0];
  if (!hook) throw new AppError('not_found', `Webhook ${webhookId} does not exist`);
  return { id, webhookId, webhookName: hook.name, event, attempt: 1, roundAttempts: 0, singleAttempt: true, test: true, token, url: hook.url, headers: hook.headers, secretSealed: hook.secret_sealed };
}

export async function readDelivery(pool: Pool, id: string): Promise<DeliveryView | undefined> {
  const { rows } = await pool.query<DeliveryRow>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id]);
  return rows[0] ? deliveryView(rows[0]) : undefined;
}
