import express, { type Express, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import { redactUrl, type Logger } from '../../platform/log.ts';
import type { ReadinessCheck } from '../../platform/readiness.ts';
import { errorHandler, notFound } from '../../api/http/errors.ts';
import { healthRoutes } from '../../api/http/health.ts';
import { requestId } from '../../api/http/request-id.ts';
import { apiResponseHeaders } from '../../api/http/response-headers.ts';

export interface AppParts {
  log: Logger;
  readiness: Record<string, ReadinessCheck>;
  /** Routers mounted at the root, in order (e.g. /oauth, /v1). */
  routers?: Router[];
}

/** The express application: request ids, logging, the API's response headers, health, the feature routers, then one error shape. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestId);
  app.use(
    pinoHttp({
      logger: parts.log,
      genReqId: (_req, res) => String((res as express.Response).locals.requestId),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/metrics' },
      serializers: {
        // Credentials sent in the URL (a misused `?access_token=`) are replaced; see redactUrl.
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
        // Status only: response headers can carry secrets (an OAuth redirect's code, Set-Cookie).
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(apiResponseHeaders);
  app.use(healthRoutes(parts.readiness));
  for (const router of parts.routers ?? []) app.use(router);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
