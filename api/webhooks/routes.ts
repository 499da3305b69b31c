// Webhook endpoints (spec "Webhooks"): CRUD, health, delivery history, replays and test sends. The rules
// live in delivery/webhooks/; these routes read the request and answer.
import { webhookHealth } from '../../delivery/webhooks/health.ts';
import { listDeliveries, replayDelivery, replayRange } from '../../delivery/webhooks/history.ts';
import { createWebhook, deleteWebhook, listWebhooks, readWebhook, updateWebhook } from '../../delivery/webhooks/store.ts';
import { urlProblems, webhookProblems } from '../../delivery/webhooks/webhook-rules.ts';
import type { WebhookModule } from '../../delivery/webhooks/webhooks.ts';
import { EVENT_TYPES } from '../../events/event-types.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { dataOf, listOf, pageQueryProperties } from '../../schemas/common.ts';
import {
  deliveryListQuerySchema, rangeReplaySchema, testSendSchema, webhookCreateSchema, webhookDeliverySchema, webhookRecordSchema, webhookUpdateSchema,
} from '../../schemas/webhook.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import { validationError, type Problem } from '../http/validation.ts';

const idParams = { type: 'object', required: ['webhook_id'], properties: { webhook_id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const deliveryParams = {
  type: 'object',
  required: ['webhook_id', 'delivery_id'],
  properties: { webhook_id: { type: 'string', minLength: 1, maxLength: 64 }, delivery_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
const listQuery = { type: 'object', additionalProperties: false, properties: pageQueryProperties } as const;
const BODY_LIMIT = 64 * 1024;

const notFound = (id: string) => new AppError('not_found', `Webhook ${id} does not exist`);

export function webhookRoutes(moduleOf: (ctx: ServiceContext) => WebhookModule): RouteDef[] {
  // `check` runs without the service's settings: it applies every rule with loopback allowed, and the
  // handler then refuses a loopback URL when PSS_WEBHOOK_ALLOW_LOOPBACK is off.
  const check = ({ body }: { body: unknown }): Problem[] => webhookProblems(body, true).map((p) => ({ location: 'body', ...p }));
  const refuseLoopback = (ctx: ServiceContext, url: string | undefined) => {
    const found = ctx.config.webhookAllowLoopback ? [] : urlProblems(url, false);
    if (found.length > 0) throw validationError(found.map((p) => ({ location: 'body', ...p })));
  };

  return [
    defineRoute({
      method: 'post', path: '/webhooks', scopes: ['webhooks:write'], tag: 'Webhooks', summary: 'Create a webhook',
      description: 'The response shows the secret in full, once; later reads show only secret_hint.',
      body: webhookCreateSchema, bodyLimit: BODY_LIMIT, check,
      responses: { 201: { description: 'The webhook, with its secret, counters at 0 and last_triggered_at null', schema: dataOf(webhookRecordSchema) } },
      handler: async ({ ctx, body, res }) => {
        refuseLoopback(ctx, body.url);
        const webhook = await createWebhook(ctx.pool, moduleOf(ctx).box, body);
        res.setHeader('Location', `/v1/webhooks/${webhook.id}`);
        sendData(res, 201, webhook);
      },
    }),
    defineRoute({
      method: 'get', path: '/webhooks', scopes: ['webhooks:read'], tag: 'Webhooks', summary: 'List webhooks (newest first)', query: listQuery,
      responses: { 200: { description: 'One page of webhooks, without secrets', schema: listOf(webhookRecordSchema) } },
      handler: async ({ ctx, query, res }) => {
        const { webhooks, total } = await listWebhooks(ctx.pool, query.page, query.per_page);
        sendList(res, webhooks, query.page, query.per_page, total);
      },
    }),
    defineRoute({
      method: 'get', path: '/webhooks/:webhook_id', scopes: ['webhooks:read'], tag: 'Webhooks', summary: 'Read a webhook with its health', params: idParams,
      responses: { 200: { description: 'The webhook with `health`', schema: dataOf(webhookRecordSchema) } },
      handler: async ({ ctx, params, res }) => {
        const webhook = await readWebhook(ctx.pool, params.webhook_id);
        const health = await webhookHealth(ctx.pool, params.webhook_id, moduleOf(ctx).clock.now());
        if (!webhook || !health) throw notFound(params.webhook_id);
        sendData(res, 200, { ...webhook, health });
      },
    }),
    defineRoute({
      method: 'put', path: '/webhooks/:webhook_id', scopes: ['webhooks:write'], tag: 'Webhooks', summary: 'Update a webhook (any subset of its fields)',
      description: 'Setting active true again restarts the count of consecutive full failures; a webhook disabled by 410 cannot be re-activated (409).',
      params: idParams, body: webhookUpdateSchema, bodyLimit: BODY_LIMIT, check,
      responses: { 200: { description: 'The webhook as it is now, without the secret', schema: dataOf(webhookRecordSchema) } },
      handler: async ({ ctx, params, body, res }) => {
        refuseLoopback(ctx, body.url);
        const webhook = await updateWebhook(ctx.pool, moduleOf(ctx).box, params.webhook_id, body);
        if (!webhook) throw notFound(params.webhook_id);
        if (body.active === true) moduleOf(ctx).dispatcher.wake();
        sendData(res, 200, webhook);
      },
    }),
    defineRoute({
      method: 'delete', path: '/webhooks/:webhook_id', scopes: ['webhooks:write'], tag: 'Webhooks', summary: 'Delete a webhook with its delivery history', params: idParams,
      responses: { 204: { description: 'Deleted; pending deliveries are dropped' } },
      handler: async ({ ctx, params, res }) => {
        if (!(await deleteWebhook(ctx.pool, params.webhook_id))) throw notFound(params.webhook_id);
        res.status(204).end();
      },
    }),
    defineRoute({
      method: 'get', path: '/webhooks/:webhook_id/deliveries', scopes: ['webhooks:read'], tag: 'Webhooks', summary: 'Delivery history, newest first',
      params: idParams, query: deliveryListQuerySchema,
      responses: { 200: { description: 'One page of delivery records', schema: listOf(webhookDeliverySchema) } },
      handler: async ({ ctx, params, query, res }) => {
        const { deliveries, total } = await listDeliveries(ctx.pool, params.webhook_id, query);
        sendList(res, deliveries, query.page, query.per_page, total);
      },
    }),
    defineRoute({
      method: 'post', path: '/webhooks/:webhook_id/deliveries/:delivery_id/replay', scopes: ['webhooks:write'], tag: 'Webhooks',
      summary: 'Replay one delivery: one more attempt of the same delivery id, now', params: deliveryParams,
      responses: { 202: { description: 'The delivery, pending its replay attempt', schema: dataOf(webhookDeliverySchema) } },
      handler: async ({ ctx, params, res }) => {
        const mod = moduleOf(ctx);
        const delivery = await replayDelivery(ctx.pool, params.webhook_id, params.delivery_id, mod.clock.now());
        mod.dispatcher.wake();
        sendData(res, 202, delivery);
      },
    }),
    defineRoute({
      method: 'post', path: '/webhooks/:webhook_id/replay', scopes: ['webhooks:write'], tag: 'Webhooks',
      summary: 'Replay the deliveries of a range (default status failed), paced; dry_run counts only',
      params: idParams, body: rangeReplaySchema,
      check: ({ body }) => {
        const b = body as { start_date?: unknown; end_date?: unknown; event_type?: unknown } | null;
        const problems: Problem[] = [];
        if (typeof b?.start_date === 'string' && typeof b.end_date === 'string' && Date.parse(b.start_date) > Date.parse(b.end_date)) {
          problems.push({ location: 'body', path: '/end_date', message: 'must not be before start_date' });
        }
        if (typeof b?.event_type === 'string' && !Object.hasOwn(EVENT_TYPES, b.event_type)) problems.push({ location: 'body', path: '/event_type', message: 'is not a known event type' });
        return problems;
      },
      responses: { 202: { description: 'How many deliveries were scheduled (or, dry, would be), and the pace' } },
      handler: async ({ ctx, params, body, res }) => {
        const mod = moduleOf(ctx);
        const result = await replayRange(ctx.pool, params.webhook_id, body, mod.clock.now(), ctx.config.webhookReplayPerSecond);
        if (!result.dry_run) mod.dispatcher.wake();
        sendData(res, result.dry_run ? 200 : 202, result);
      },
    }),
    defineRoute({
      method: 'post', path: '/webhooks/:webhook_id/test', scopes: ['webhooks:write'], tag: 'Webhooks',
      summary: 'Send a synthetic event of event_type now (metadata.test true) and answer with the attempt\'s result',
      params: idParams, body: testSendSchema,
      check: ({ body }) => {
        const type = (body as { event_type?: unknown } | null)?.event_type;
        return typeof type === 'string' && !Object.hasOwn(EVENT_TYPES, type) ? [{ location: 'body', path: '/event_type', message: 'is not a known event type' }] : [];
      },
      responses: { 200: { description: 'The test delivery as recorded: status delivered or failed, response_code, response_time_ms', schema: dataOf(webhookDeliverySchema) } },
      handler: async ({ ctx, params, body, res }) => {
        sendData(res, 200, await moduleOf(ctx).testSend(params.webhook_id, body.event_type));
      },
    }),
  ];
}
