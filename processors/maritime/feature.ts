import { zoneRoutes } from '../../api/maritime/zone-routes.ts';
import type { Feature } from '../../cli/service.ts';
import { startZoneProcessor } from './zone-processor.ts';

/** Maritime threat zones: the zone API and the zone processor (entry, exit, buffer, dwell events). */
export const maritimeFeature: Feature = {
  name: 'maritime',
  routes: zoneRoutes,
  processors: (ctx) => startZoneProcessor(ctx),
};
