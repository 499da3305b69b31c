// GET /v1/system/health (issue 25): the service and each component across instances, from the fresh
// reports in Postgres (platform/health/), with what the last system_health_change said of each.
import { agreedStates } from '../../events/system-health.ts';
import { combine, overall } from '../../platform/health/model.ts';
import { byComponent, freshReports } from '../../platform/health/reports.ts';
import { dataOf } from '../../schemas/common.ts';
import { systemHealthSchema } from '../../schemas/system-health.ts';
import { defineRoute, sendData, type RouteDef } from '../http/routes.ts';

export const systemHealthRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/system/health',
    scopes: ['system:read'],
    summary: 'Read the health of the service and of each component',
    description:
      'Every component the service depends on or runs (Kafka, Postgres, the schema registry when used, consumer groups by their lag, the event relay, ingest feeds, ...) with its status (ok, degraded, down), since when and why, across the instances whose report has not expired; each instance\'s own view; and what the last system_health_change event said. /readyz is the per-instance probe of the same checks. See docs/operations.md.',
    tag: 'System',
    responses: { 200: { description: 'The health across instances', schema: dataOf(systemHealthSchema) } },
    handler: async ({ ctx, res }) => {
      const fresh = await freshReports(ctx.pool);
      const agreed = await agreedStates(ctx.pool);
      const components = [...byComponent(fresh.reports)]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([component, reports]) => {
          const view = combine(reports);
          const said = agreed.get(component);
          return {
            component,
            status: view.status,
            since: view.since.toISOString(),
            reason: view.reason,
            instances: view.instances,
            announced: said === undefined ? null : { status: said.status, since: said.since.toISOString(), transition: said.seq },
          };
        });
      sendData(res, 200, {
        status: overall(components),
        checked_at: fresh.now.toISOString(),
        components,
        instances: fresh.instances.map((i) => ({ instance_id: i.instance_id, roles: i.roles, reported_at: i.reported_at.toISOString(), expires_at: i.expires_at.toISOString() })),
      });
    },
  }),
];
