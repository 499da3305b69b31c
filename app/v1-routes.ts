import type { Config } from '../platform/config.ts';
import { openApiRoute } from '../api/http/openapi.ts';
import type { RouteDef } from '../api/http/routes.ts';

/** Every /v1 route of the given features, plus the OpenAPI document that describes them all. */
export function apiRoutes(features: { routes?: RouteDef[] }[], config: Pick<Config, 'publicUrl' | 'authUrl'>): RouteDef[] {
  const routes = features.flatMap((f) => f.routes ?? []);
  routes.push(openApiRoute(routes, config));
  return routes;
}
