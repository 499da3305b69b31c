// Webhook records in Postgres: create, read, list, update, delete, and the record clients see.
import { randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { WebhookCreate, WebhookUpdate } from '../../schemas/webhook.ts';
import { secretHint, type SecretBox } from './secret-box.ts';

interface WebhookRow {
  id: string;
  name: string;
  url: string;
  events: string[];
  min_severity: string | null;
  categories: string[] | null;
  zones: string[] | null;
  headers: Record<string, string>;
  secret_hint: string;
  active: boolean;
  disabled_reason: string | null;
  created_at: Date;
  last_triggered_at: Date | null;
  success_count: string;
  failure_count: string;
}

const COLUMNS = `id, name, url, events, min_severity, categories, zones, headers, secret_hint, active, disabled_reason,
  created_at, last_triggered_at, success_count, failure_count`;

/** What reads show (docs/events-and-delivery.md "Webhooks"): every field but the secret, of which only `secret_hint`. */
export function webhookView(row: WebhookRow) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    events: row.events,
    min_severity: row.min_severity,
    categories: row.categories,
    zones: row.zones,
    headers: row.headers,
    secret_hint: row.secret_hint,
    active: row.active,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
    last_triggered_at: row.last_triggered_at?.toISOString() ?? null,
    success_count: Number(row.success_count),
    failure_count: Number(row.failure_count),
  };
}
export type WebhookView = ReturnType<typeof webhookView>;

/** The creation response (spec "Webhooks"): the record with the secret in full, counters at 0. */
export async function createWebhook(pool: Pool, box: SecretBox, body: WebhookCreate): Promise<WebhookView & { secret: string }> {
  const id = `wh_${randomBytes(12).toString('hex')}`;
  const { rows } = await pool.query<WebhookRow>(
    `INSERT INTO webhooks (id, name, url, events, min_severity, categories, zones, headers, secret_sealed, secret_hint, active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [id, body.name, body.url, body.events, body.min_severity ?? null, body.categories ?? null, body.zones ?? null, body.headers ?? {}, box.seal(id, body.secret), secretHint(body.secret), body.active ?? true],
  );
  return { ...webhookView(rows[0] as WebhookRow), secret: body.secret };
}

export async function listWebhooks(pool: Pool, page: number, perPage: number): Promise<{ webhooks: WebhookView[]; total: number }> {
  const { rows } = await pool.query<WebhookRow & { total: string }>(
    `SELECT ${COLUMNS}, count(*) OVER () AS total FROM webhooks ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`,
    [perPage, (page - 1) * perPage],
  );
  const total = rows[0] ? Number(rows[0].total) : (await pool.query<{ n: string }>('SELECT count(*) AS n FROM webhooks')).rows.map((r) => Number(r.n))[0] ?? 0;
  return { webhooks: rows.map(webhookView), total };
}

export async function readWebhook(pool: Pool, id: string): Promise<WebhookView | undefined> {
  const { rows } = await pool.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1`, [id]);
  return rows[0] ? webhookView(rows[0]) : undefined;
}

/**
 * PUT: the fields given replace the stored ones. Setting `active` true again starts the count of
 * consecutive full failures afresh; a webhook disabled by an answer of 410 stays disabled (409).
 */
export async function updateWebhook(pool: Pool, box: SecretBox, id: string, body: WebhookUpdate): Promise<WebhookView | undefined> {
  const current = await readWebhook(pool, id);
  if (!current) return undefined;
  if (body.active === true && current.disabled_reason === 'gone') {
    throw new AppError('resource_conflict', `Webhook ${id} was disabled for good when its endpoint answered 410 Gone; create a new webhook instead`);
  }
  const set = (field: string, value: unknown) => (field in body ? value : undefined);
  const { rows } = await pool.query<WebhookRow>(
    `UPDATE webhooks SET
       name = COALESCE($2, name), url = COALESCE($3, url), events = COALESCE($4, events),
       min_severity = CASE WHEN $5 THEN $6 ELSE min_severity END,
       categories = CASE WHEN $7 THEN $8 ELSE categories END,
       zones = CASE WHEN $9 THEN $10 ELSE zones END,
       headers = COALESCE($11, headers),
       secret_sealed = COALESCE($12, secret_sealed), secret_hint = COALESCE($13, secret_hint),
       active = COALESCE($14, active),
       disabled_reason = CASE WHEN $14 THEN NULL ELSE disabled_reason END,
       consecutive_full_failures = CASE WHEN $14 THEN 0 ELSE consecutive_full_failures END,
       updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id, body.name ?? null, body.url ?? null, body.events ?? null,
      'min_severity' in body, set('min_severity', body.min_severity) ?? null,
      'categories' in body, set('categories', body.categories) ?? null,
      'zones' in body, set('zones', body.zones) ?? null,
      body.headers ?? null,
      body.secret === undefined ? null : box.seal(id, body.secret), body.secret === undefined ? null : secretHint(body.secret),
      body.active ?? null,
    ],
  );
  return rows[0] ? webhookView(rows[0]) : undefined;
}

/** Deletes the webhook with its deliveries and their attempts. */
export async function deleteWebhook(pool: Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM webhooks WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}
