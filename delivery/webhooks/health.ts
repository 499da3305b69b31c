// The health object of GET /v1/webhooks/{id} (spec "Webhook"): the record's counters (all time) plus,
// over the last HEALTH_WINDOW_HOURS of attempts, response-time percentiles and failures by reason class.
import type { Pool } from '../../platform/postgres.ts';

export const HEALTH_WINDOW_HOURS = 24;

interface HealthRow {
  health_status: string;
  success_count: string;
  failure_count: string;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  last_failure_reason: string | null;
  response_time_sum_ms: number;
  response_time_samples: string;
  p50: number | null;
  p95: number | null;
  reasons: Record<string, number> | null;
}

export async function webhookHealth(pool: Pool, webhookId: string, now: number) {
  const { rows } = await pool.query<HealthRow>(
    `SELECT w.health_status, w.success_count, w.failure_count, w.last_success_at, w.last_failure_at, w.last_failure_reason,
            w.response_time_sum_ms, w.response_time_samples, recent.p50, recent.p95, reasons.by_reason AS reasons
       FROM webhooks w
       LEFT JOIN LATERAL (
         SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY response_time_ms) AS p50,
                percentile_cont(0.95) WITHIN GROUP (ORDER BY response_time_ms) AS p95
           FROM webhook_attempts a WHERE a.webhook_id = w.id AND a.attempted_at > $2::timestamptz - make_interval(hours => $3)
       ) recent ON true
       LEFT JOIN LATERAL (
         SELECT jsonb_object_agg(reason_class, n) AS by_reason FROM (
           SELECT reason_class, count(*) AS n FROM webhook_attempts a
            WHERE a.webhook_id = w.id AND a.attempted_at > $2::timestamptz - make_interval(hours => $3) AND reason_class IS NOT NULL
            GROUP BY reason_class) g
       ) reasons ON true
      WHERE w.id = $1`,
    [webhookId, new Date(now), HEALTH_WINDOW_HOURS],
  );
  const r = rows[0];
  if (!r) return undefined;
  const ok = Number(r.success_count);
  const bad = Number(r.failure_count);
  const samples = Number(r.response_time_samples);
  const round = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);
  return {
    status: r.health_status,
    success_count: ok,
    failure_count: bad,
    success_rate_percent: ok + bad === 0 ? 100 : Math.round((ok / (ok + bad)) * 10_000) / 100,
    last_success_at: r.last_success_at?.toISOString() ?? null,
    last_failure_at: r.last_failure_at?.toISOString() ?? null,
    last_failure_reason: r.last_failure_reason,
    avg_response_time_ms: samples === 0 ? 0 : (round(r.response_time_sum_ms / samples) as number),
    window_hours: HEALTH_WINDOW_HOURS,
    response_time_p50_ms: round(r.p50),
    response_time_p95_ms: round(r.p95),
    failures_by_reason: r.reasons ?? {},
  };
}
