// Every feature of the service, in start order: what each contributes to the roles (see feature.ts).
// Each capability adds itself here; nothing below app/ knows which features exist.
import { oauthRouter } from '../api/auth/oauth-server.ts';
import { authRoutes } from '../api/auth/routes.ts';
import { eventRoutes } from '../api/events/routes.ts';
import { incidentRoutes } from '../api/incidents/routes.ts';
import { gateRoutes } from '../api/gate/routes.ts';
import { ingestRoutes } from '../api/ingest/routes.ts';
import { vesselRoutes } from '../api/maritime/vessel-routes.ts';
import { ruleRoutes } from '../api/maritime/rule-routes.ts';
import { zoneRoutes } from '../api/maritime/zone-routes.ts';
import { webhookRoutes } from '../api/webhooks/routes.ts';
import { systemConfigRoutes } from '../api/system/routes.ts';
import { systemHealthRoutes } from '../api/system/health-routes.ts';
import { STREAM_PATH, createStreamHub } from '../api/stream/stream-hub.ts';
import type { StreamHub } from '../delivery/stream/hub.ts';
import { POSITION_STREAM_PATH, createPositionHub } from '../api/stream/position-hub.ts';
import type { PositionHub } from '../delivery/positions/hub.ts';
import { registerConsoleClient } from '../api/console/console-client.ts';
import { consoleRouter } from '../api/console/routes.ts';
import { createWebhookModule, type WebhookModule } from '../delivery/webhooks/webhooks.ts';
import { startEventRetention } from '../events/retention.ts';
import { closeIngestProducer, ingestProducerCheck, startIngest } from '../ingest/role.ts';
import { feedHealthSource } from '../ingest/feed-health.ts';
import { startPairPruning } from '../processors/maritime/store/encounter-store.ts';
import { startResponse } from '../response/role.ts';
import { partyHealthSource } from '../response/settings/party-health.ts';
import { startDroneMissions } from '../response/drone-missions.ts';
import { droneRoutes } from '../api/drones/routes.ts';
import { startZoneProcessors } from '../processors/maritime/zone-processor.ts';
import { startGateCommandSender } from '../processors/gate/command-sender.ts';
import { startGateProcessor } from '../processors/gate/gate-processor.ts';
import { applyAnalystLogin } from '../processors/vessels/analyst-role.ts';
import { startPositionSink } from '../processors/vessels/positions-sink.ts';
import { startStaticSink } from '../processors/vessels/static-sink.ts';
import type { Clock } from '../platform/clock.ts';
import type { ComponentHealth } from '../platform/health/model.ts';
import { rolesTogether, type ServiceContext } from '../platform/context.ts';
import type { Feature } from './feature.ts';

/** Authentication and credentials: /v1/auth/* and the OAuth server at {auth_url}/oauth. */
export const authFeature: Feature = { name: 'auth', routes: authRoutes, routers: (ctx) => [oauthRouter(ctx)] };

/** Ingest: HTTP ingest routes, and the ingest role's TCP/UDP sources and raw-topic consumers, all through one producer queue. */
export const ingestFeature: Feature = {
  name: 'ingest',
  routes: ingestRoutes,
  ingest: startIngest,
  readiness: (ctx) => ({ ingest_producer: ingestProducerCheck(ctx) }),
  health: feedHealthSource,
  shutdown: closeIngestProducer,
};

/** Maritime threat zones and their rules: the zone and rule APIs and the zone processor (zone, dwell and behaviour rule events). */
export const maritimeFeature: Feature = {
  name: 'maritime',
  routes: [...zoneRoutes, ...ruleRoutes],
  processors: async (ctx) => rolesTogether('maritime', [await startZoneProcessors(ctx, ctx.config.maritimeZoneWorkers), startPairPruning(ctx)]),
};

/**
 * Gate transactions: appointments, the gate processor (readings to decisions), the transactions API and
 * overrides, and the sender of the gate command outbox (processors role; it stops after the processor, so
 * the commands of its last batches go out).
 */
export const gateFeature: Feature = {
  name: 'gate',
  routes: gateRoutes,
  processors: async (ctx) => {
    const commands = await startGateCommandSender(ctx);
    const processor = await startGateProcessor(ctx).catch(async (err: unknown) => {
      await commands.stop();
      throw err;
    });
    return { name: 'gate', stop: async (deadline) => {
      await processor.stop(deadline);
      await commands.stop(deadline);
    } };
  },
};

/** Security events: list, read, intake and operator changes over REST; retention on every api instance. */
export const eventsFeature: Feature = { name: 'events', routes: eventRoutes, api: async (ctx) => startEventRetention(ctx) };

/** Incidents (docs/response.md "Incidents"): list, read, operator changes and merge over REST; grouping is called by the response loop. */
export const incidentsFeature: Feature = { name: 'incidents', routes: incidentRoutes };

/**
 * The response loop (docs/response.md "Responding to alerts"): on every processors instance, a consumer group
 * on security.events that groups events into incidents and plans their actions, the executor of the action
 * log, and the acknowledgement-timeout sweep.
 */
export const responseFeature: Feature = (() => {
  const responding = new WeakSet<ServiceContext>();
  return {
    name: 'response',
    processors: async (ctx) => {
      responding.add(ctx);
      return startResponse(ctx);
    },
    // Where escalations are made (the processors role): each party an escalation can reach and nobody hears is degraded.
    health: (ctx) => async () => (responding.has(ctx) ? partyHealthSource(ctx.pool)() : {}),
  };
})();

/**
 * Drone missions (docs/drones.md): the drones API and telemetry ingest route; on every processors instance the
 * drone command sender, the consumer of drone.telemetry and drone.reports, and the fleet monitor.
 */
export const dronesFeature: Feature = { name: 'drones', routes: droneRoutes, processors: startDroneMissions };

/**
 * System configuration (docs/response.md "System configuration"): alert-level defaults, parties, gates,
 * incident windows; read by the response loop. And the service's health across instances
 * (docs/operations.md).
 */
export const systemFeature: Feature = { name: 'system', routes: [...systemConfigRoutes, ...systemHealthRoutes] };

/**
 * The live event stream, GET {ws_url}/v1/events/stream: each API instance runs a hub that reads
 * security.events itself and serves the WebSocket upgrades of its HTTP server. `clock` drives heartbeats
 * and deadlines (tests pass their own).
 */
export function streamFeature(options: { clock?: Clock } = {}): Feature {
  const hubs = new WeakMap<ServiceContext, StreamHub>();
  const hubOf = (ctx: ServiceContext): StreamHub => {
    let hub = hubs.get(ctx);
    if (!hub) hubs.set(ctx, (hub = createStreamHub(ctx, options.clock)));
    return hub;
  };
  return {
    name: 'stream',
    upgrades: (ctx) => [{ path: STREAM_PATH, handle: (req, socket, head) => hubOf(ctx).upgrade(req, socket, head) }],
    // Only where the api role started a hub.
    health: (ctx) => async (): Promise<Record<string, ComponentHealth>> => {
      const hub = hubs.get(ctx);
      return hub === undefined ? {} : { stream_hub: hub.health() };
    },
    api: async (ctx) => {
      const hub = hubOf(ctx);
      await hub.start();
      return { name: 'event-stream', stop: () => hub.stop() };
    },
  };
}

/**
 * The position stream, GET {ws_url}/v1/positions/stream (our extension, docs/console.md): each API instance
 * reads ais.positions itself and sends each subscriber the vessels that moved, at most once a second each.
 */
export function positionStreamFeature(options: { clock?: Clock; intervalMs?: number } = {}): Feature {
  const hubs = new WeakMap<ServiceContext, PositionHub>();
  const hubOf = (ctx: ServiceContext): PositionHub => {
    let hub = hubs.get(ctx);
    if (!hub) hubs.set(ctx, (hub = createPositionHub(ctx, options)));
    return hub;
  };
  return {
    name: 'position-stream',
    upgrades: (ctx) => [{ path: POSITION_STREAM_PATH, handle: (req, socket, head) => hubOf(ctx).upgrade(req, socket, head) }],
    api: async (ctx) => {
      const hub = hubOf(ctx);
      await hub.start();
      return { name: 'position-stream', stop: () => hub.stop() };
    },
  };
}

/**
 * The operator console at /console (docs/console.md): its files and configuration, and its OAuth client
 * (public, PKCE) registered at set-up.
 */
export const consoleFeature: Feature = {
  name: 'console',
  routers: (ctx) => [consoleRouter(ctx)],
  setup: async (config) => void (await registerConsoleClient(config)),
};

/**
 * Vessels: the positions and static sinks (processors role) keeping vessel_positions and vessels in
 * PostGIS, the vessel API, and the analyst login set up from PSS_ANALYST_PASSWORD.
 */
export const vesselsFeature: Feature = {
  name: 'vessels',
  routes: vesselRoutes,
  setup: (config) => applyAnalystLogin(config.databaseUrl, config.analystPassword),
  processors: async (ctx) => rolesTogether('vessel-sinks', [await startPositionSink(ctx), await startStaticSink(ctx)]),
};

/**
 * Webhooks (docs/events-and-delivery.md "Webhooks"): the routes, and on every api instance the matcher (a
 * consumer group on security.events that records deliveries) and the dispatcher (claims due attempts from
 * Postgres and sends them). `clock` drives the retry schedule (tests pass their own).
 */
export function webhooksFeature(options: { clock?: Clock } = {}): Feature {
  const modules = new WeakMap<ServiceContext, WebhookModule>();
  const moduleOf = (ctx: ServiceContext): WebhookModule => {
    let mod = modules.get(ctx);
    if (!mod) modules.set(ctx, (mod = createWebhookModule(ctx, options.clock)));
    return mod;
  };
  return {
    name: 'webhooks',
    routes: webhookRoutes(moduleOf),
    // Only where the api role started the dispatcher.
    health: (ctx) => async (): Promise<Record<string, ComponentHealth>> => {
      const mod = modules.get(ctx);
      return mod === undefined ? {} : { webhook_dispatcher: mod.dispatcher.health() };
    },
    api: async (ctx) => {
      const mod = moduleOf(ctx);
      await mod.start();
      return { name: 'webhooks', stop: () => mod.stop() };
    },
  };
}

export const FEATURES: Feature[] = [authFeature, ingestFeature, maritimeFeature, gateFeature, vesselsFeature, eventsFeature, incidentsFeature, systemFeature, responseFeature, dronesFeature, streamFeature(), positionStreamFeature(), webhooksFeature(), consoleFeature];
