// The webhooks module's entry point: what the API routes and the service assembly use. One per service
// instance: the secret box, the dispatcher (started with the api role), the matcher feeding it and the
// retention of the delivery history.
import { EVENT_TYPES } from '../../events/event-types.ts';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import { ConfigError } from '../../platform/config.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { Dispatcher, attemptDelivery } from './dispatcher.ts';
import { claimTestDelivery, readDelivery, type DeliveryView } from './history.ts';
import { startMatcher } from './matcher.ts';
import { recordAttempts } from './queue.ts';
import { startDeliveryRetention } from './retention.ts';
import { SecretBox } from './secret-box.ts';
import { isTestableType, testEvent } from './test-events.ts';

export interface WebhookModule {
  clock: Clock;
  box: SecretBox;
  dispatcher: Dispatcher;
  /** Starts the matcher, the dispatcher and the history retention (the api role's work). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Sends a synthetic event of `eventType` now, waits for the answer and returns the recorded delivery. */
  testSend(webhookId: string, eventType: string): Promise<DeliveryView>;
}

/** Refuses, in production, settings that are for development only. */
function checkProductionSettings(ctx: ServiceContext): void {
  if (ctx.config.environment !== 'production') {
    if (ctx.config.webhookSecretKey === '') ctx.log.warn('PSS_WEBHOOK_SECRET_KEY is not set: webhook secrets are sealed with the fixed development key');
    return;
  }
  if (ctx.config.webhookSecretKey === '') throw new ConfigError('PSS_WEBHOOK_SECRET_KEY', 'is required in production (32 bytes, hex or base64)');
  if (ctx.config.webhookAllowLoopback) throw new ConfigError('PSS_WEBHOOK_ALLOW_LOOPBACK', 'is for development only and must be false in production');
}

function unknownTestType(type: string): AppError {
  const known = Object.keys(EVENT_TYPES).join(', ');
  return new AppError('validation_error', `unknown event type ${JSON.stringify(type)}`, [{ location: 'body', path: '/event_type', message: `unknown event type; known: ${known}` }]);
}

export function createWebhookModule(ctx: ServiceContext, clock: Clock = systemClock): WebhookModule {
  const box = new SecretBox(ctx.config.webhookSecretKey, ctx.config.webhookSecretKeyPrevious);
  const log = ctx.log.child({ module: 'webhooks' });
  const dispatcher = new Dispatcher({ pool: ctx.pool, config: ctx.config, clock, box, relay: ctx.relay, log });
  let matcher: { stop(): Promise<void> } | undefined;
  let retention: { stop(): Promise<void> } | undefined;
  return {
    clock,
    box,
    dispatcher,
    async start() {
      checkProductionSettings(ctx);
      dispatcher.start();
      matcher = await startMatcher(ctx, clock, () => dispatcher.deliveriesRecorded());
      retention = startDeliveryRetention({ pool: ctx.pool, log, config: ctx.config });
    },
    async stop() {
      await retention?.stop();
      await matcher?.stop();
      await dispatcher.stop();
    },
    async testSend(webhookId, eventType) {
      if (!isTestableType(eventType)) throw unknownTestType(eventType);
      const claimed = await claimTestDelivery(ctx.pool, webhookId, testEvent(eventType, clock.now()));
      const record = await attemptDelivery(claimed, box.open(webhookId, claimed.secretSealed), { clock, config: ctx.config });
      await recordAttempts(ctx.pool, [record]);
      const delivery = await readDelivery(ctx.pool, claimed.id);
      if (!delivery) throw new AppError('not_found', `Webhook ${webhookId} was deleted during the test send`);
      return delivery;
    },
  };
}
