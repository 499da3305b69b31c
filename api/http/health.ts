import { Router } from 'express';
import { processMetrics } from '../../platform/metrics.ts';
import { checkReadiness, type ReadinessCheck } from '../../platform/readiness.ts';

/** /healthz (the process is alive), /readyz (its dependencies answer), /metrics (Prometheus). */
export function healthRoutes(checks: Record<string, ReadinessCheck>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const result = await checkReadiness(checks);
    const failing = Object.entries(result.checks).filter(([, s]) => !s.ok).map(([name]) => name);
    res.status(result.ready ? 200 : 503).json({ status: result.ready ? 'ready' : 'unavailable', failing, checks: result.checks });
  });
  router.get('/metrics', async (_req, res) => {
    const metrics = await processMetrics();
    res.setHeader('Content-Type', metrics.contentType);
    res.send(await metrics.metrics());
  });
  return router;
}
