import type { Feature } from '../../cli/service.ts';
import { oauthRouter } from './oauth-server.ts';
import { authRoutes } from './routes.ts';

/** Authentication and credentials (issue 3): /v1/auth/* routes and the OAuth server at {auth_url}/oauth. */
export const authFeature: Feature = {
  name: 'auth',
  routes: authRoutes,
  routers: (ctx) => [oauthRouter(ctx)],
};
