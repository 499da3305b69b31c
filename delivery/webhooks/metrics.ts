import { counter, gauge, histogram } from '../../platform/metrics.ts';

/** The webhooks' metrics on /metrics (docs/events-and-delivery.md, Webhooks "Metrics"). */
export const webhookMetrics = {
  // The failures' reason classes are known, but not which outcome each meets: a delivery is the one known set.
  attempts: counter('pss_webhook_attempts_total', 'Webhook delivery attempts, by outcome (delivered, retry, failed, gone) and reason class of a failure', ['outcome', 'reason'], { outcome: ['delivered'], reason: [''] }),
  attemptSeconds: histogram('pss_webhook_attempt_seconds', 'Duration of webhook delivery attempts (connect to answer)', ['outcome'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  queueDepth: gauge('pss_webhook_queue_depth', 'Webhook deliveries pending (due now or later), refreshed by each dispatcher every 10 s'),
  oldestDueSeconds: gauge('pss_webhook_oldest_due_seconds', 'How long the most overdue pending webhook attempt has been due (0 when none is), refreshed every 10 s'),
  matched: counter('pss_webhook_deliveries_recorded_total', 'Deliveries the matcher recorded (one per event and matching webhook)'),
};
