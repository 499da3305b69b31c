import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';
import type { RouteDef } from '../api/http/routes.ts';
import type { Config } from '../platform/config.ts';
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import type { HealthSource } from '../platform/health/model.ts';
import type { ReadinessCheck } from '../platform/readiness.ts';

/**
 * Takes over an HTTP upgrade request (a WebSocket) on its path. Handlers are tried in feature order; the
 * first whose `path` equals the request's path answers it, and an upgrade nobody claims is refused.
 */
export interface UpgradeHandler {
  path: string;
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/**
 * A feature's contribution to the service, assembled in app/features.ts:
 * - `routes`: /v1 routes (api/http/routes.ts explains how to define them), `routers`: other HTTP routers
 *   mounted at the root (e.g. /oauth);
 * - `upgrades`: WebSocket upgrade handlers on the api role's HTTP server;
 * - `ingest`, `processors`, `api`: workers started with that role (an `api` worker runs beside the HTTP
 *   server, e.g. a consumer that feeds connected WebSocket clients). Workers start in the order
 *   processors, ingest, api, and stop in reverse;
 * - `readiness`: checks added to /readyz (beside kafka and postgres) on the api role's HTTP server, and
 *   reported as components of the health model (failing: down; resolving with a text: degraded);
 * - `health`: components of the health model beyond the readiness checks, on every role (docs/operations.md
 *   "Adding a component"): a source returning `{ component: { status, reason } }`, asked every report interval;
 * - `setup`: runs after the migrations, before any role starts, at every start-up and in `pss migrate`
 *   (e.g. database roles whose password is a setting);
 * - `shutdown`: runs once every worker has stopped, before the shared Kafka producer closes, to deliver
 *   what the feature still holds for any role (the ingest producer queue), giving up at `deadline`.
 */
export interface Feature {
  name: string;
  routes?: RouteDef[];
  routers?: (ctx: ServiceContext) => Router[];
  upgrades?: (ctx: ServiceContext) => UpgradeHandler[];
  ingest?: (ctx: ServiceContext) => Promise<RunningRole>;
  processors?: (ctx: ServiceContext) => Promise<RunningRole>;
  api?: (ctx: ServiceContext) => Promise<RunningRole>;
  readiness?: (ctx: ServiceContext) => Record<string, ReadinessCheck>;
  health?: (ctx: ServiceContext) => HealthSource;
  setup?: (config: Config) => Promise<void>;
  shutdown?: (ctx: ServiceContext, deadline: number) => Promise<void>;
}
