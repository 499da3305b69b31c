// Gate endpoints: truck appointments from the terminal operating system (ingest-style: validated,
// produced to gate.appointments, answered once Kafka acknowledged), and the gate transactions of the
// spec (list, detail, override). The rules live in processors/gate/; these routes read and answer.
import { appointmentProblems } from '../../ingest/gate/appointments.ts';
import { produce } from '../../ingest/items/produce.ts';
import { ingestRuntime } from '../../ingest/runtime.ts';
import { commandSenderDeps, deliverCommandNow } from '../../processors/gate/command-sender.ts';
import { listGateLocks, releaseGateLock } from '../../processors/gate/gate-locks.ts';
import { overrideTransaction } from '../../processors/gate/override.ts';
import { listTransactions, readTransaction, transactionFilter, transactionQueryProblems } from '../../processors/gate/transaction-list.ts';
import { AppError } from '../../platform/errors.ts';
import { dataOf, errorBodySchema, listOf } from '../../schemas/common.ts';
import { gateAppointmentAnswerSchema, gateAppointmentBodySchema } from '../../schemas/gate-appointment.ts';
import { gateLockStateSchema, gateReleaseBodySchema, gateReleaseResultSchema } from '../../schemas/gate-lock.ts';
import { overrideBodySchema, overrideResultSchema, transactionDetailSchema, transactionListItemSchema, transactionListQuerySchema } from '../../schemas/gate-transaction.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';

const idParams = {
  type: 'object',
  required: ['transaction_id'],
  properties: { transaction_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const gateParams = {
  type: 'object',
  required: ['gate_id'],
  // No control characters: a gate id is a name from the system configuration, and Postgres refuses NUL in text.
  properties: { gate_id: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]+$' } },
} as const;

/** How long after the release's own attempt should have ended the senders may try its command (as for an override). */
const FIRST_ATTEMPT_MARGIN_MS = 1_000;

/** 1,000 appointments of at most ~2 KiB each. */
const APPOINTMENTS_BODY_LIMIT = 2 * 1024 * 1024;

export const gateRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/gate/appointments',
    scopes: ['ingest:write'],
    tag: 'Gate',
    summary: 'Submit truck appointments from the terminal operating system',
    description:
      'Body `{"appointments": [...]}` (1 to 1000). Validated as a whole: any invalid appointment refuses the request (422, every problem listed) and nothing is produced. ' +
      'Each is produced to the compacted gate.appointments topic keyed by appointment_id; posting the same appointment again is harmless, and a changed one replaces the earlier version. ' +
      '202 once Kafka acknowledged them; the gate processor reads them into its store within moments.',
    body: gateAppointmentBodySchema,
    bodyLimit: APPOINTMENTS_BODY_LIMIT,
    check: ({ body }) => appointmentProblems(body).map((p) => ({ location: 'body' as const, ...p })),
    responses: { 202: { description: 'Every appointment was acknowledged by Kafka', schema: dataOf(gateAppointmentAnswerSchema) } },
    handler: async ({ ctx, body, res }) => {
      const rt = ingestRuntime(ctx);
      const records = body.appointments.map((a) => ({ topic: ctx.topics.gateAppointments, key: a.appointment_id, value: ctx.codec.encode('gateAppointments', a) }));
      await produce(rt, records);
      sendData(res, 202, { accepted_count: records.length, appointment_ids: body.appointments.map((a) => a.appointment_id) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions',
    scopes: ['transactions:read'],
    tag: 'Gate',
    summary: 'List gate transactions',
    description:
      'Filters combine with AND; the window (created_at) defaults to the 24 hours before end_date (default now). container_id matches the id or its beginning, vehicle_plate the whole plate, search (our addition) the beginning of either; all ignore case, spaces and dashes. ' +
      'Sorted by created_at, risk_score or gate (ties by created_at, then id, in the same direction), newest first unless order=asc; review (our addition) puts flagged and held first, then sorts by risk_score. per_page above 200 is refused (422). ' +
      'Each item carries the reading\'s lane (our addition).',
    query: transactionListQuerySchema,
    check: ({ query }) => transactionQueryProblems(query, new Date()).map((p) => ({ location: 'query' as const, ...p })),
    responses: { 200: { description: 'One page of transactions (list fields)', schema: listOf(transactionListItemSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { filter } = transactionFilter(query, new Date());
      const { items, total } = await listTransactions(ctx.pool, filter);
      sendList(res, items, filter.page, filter.perPage, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/transactions/:transaction_id',
    scopes: ['transactions:read'],
    tag: 'Gate',
    summary: 'Read one gate transaction in full detail',
    description: 'Adds the detail-only fields: image URLs, driver and appointment, weights, damage regions, anomaly confidences, images, risk factors and the audit trail (and, like the list, the lane).',
    params: idParams,
    responses: { 200: { description: 'The transaction', schema: dataOf(transactionDetailSchema) } },
    handler: async ({ ctx, params, res }) => {
      const tx = await readTransaction(ctx.pool, params.transaction_id);
      if (!tx) throw new AppError('not_found', `Transaction ${params.transaction_id} does not exist`);
      sendData(res, 200, tx);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/transactions/:transaction_id/override',
    scopes: ['transactions:write'],
    tag: 'Gate',
    summary: 'Override the automated decision of a flagged or held transaction (a rejected one with admin)',
    description:
      'Only flagged or held transactions can be overridden, a rejected one only by a caller with the admin scope (without it: 403 forbidden, as any missing finer scope); any other status answers 409 resource_conflict. Both name the transaction and its status. ' +
      'Of two overrides racing on one transaction exactly one succeeds. gate_action defaults to open for approved and hold for rejected; the command goes to the gate.commands topic and gate_action_executed is true once Kafka acknowledged it.',
    params: idParams,
    body: overrideBodySchema,
    bodyLimit: 16 * 1024,
    responses: {
      200: { description: 'The override result', schema: dataOf(overrideResultSchema) },
      403: { description: 'The credential lacks transactions:write, or the transaction is rejected and the credential lacks admin (forbidden; details: transaction_id, status)', schema: errorBodySchema },
      409: { description: 'The transaction is neither flagged, held nor rejected: approved, or already overridden (resource_conflict; details: transaction_id, status)', schema: errorBodySchema },
    },
    handler: async ({ ctx, params, body, principal, res }) => {
      const result = await overrideTransaction(ctx, params.transaction_id, body, { isAdmin: principal.scopes.includes('admin'), credentialId: principal.credentialId });
      sendData(res, 200, result);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/gates/locks',
    scopes: ['transactions:read'],
    tag: 'Gate',
    summary: 'Whole-gate lock state of every gate ever locked',
    description:
      'One entry per gate that a response action (lock_gates) ever locked: whether the latest lock stands, when it was made, its reason, the action and incident that made it, and, once released, who released it, when and why. Locked gates first, then by gate id. ' +
      'Lane locks of an override (gate_action lock) are not listed: they are released at the lane.',
    responses: { 200: { description: 'The gates\' lock state', schema: dataOf({ type: 'array', items: gateLockStateSchema }) } },
    handler: async ({ ctx, res }) => {
      sendData(res, 200, await listGateLocks(ctx.pool));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/gates/:gate_id/release',
    scopes: ['transactions:write'],
    tag: 'Gate',
    summary: 'Release a gate\'s whole-gate lock (an unlock command to its lane controllers)',
    description:
      'Writes a release command (action release, lane "*") to the gate command outbox with an audit row (who: the credential\'s subject; why: reason), in the transaction that marks the lock released, then makes its first attempt; command_sent says whether Kafka acknowledged it in time, else the senders retry until it does. ' +
      'One release per lock: 409 when the gate is not locked now (released already, or a racing release won), 404 when it was never locked. A lock and a release racing on one gate take effect in the order they commit, and reach the lane in that order.',
    params: gateParams,
    body: gateReleaseBodySchema,
    bodyLimit: 16 * 1024,
    check: ({ body }) => (typeof (body as { reason?: unknown } | null)?.reason === 'string' && (body as { reason: string }).reason.trim().length < 10 ? [{ location: 'body' as const, path: '/reason', message: 'must hold at least 10 characters besides spaces' }] : []),
    responses: {
      200: { description: 'The gate\'s lock state after the release', schema: dataOf(gateReleaseResultSchema) },
      409: { description: 'The gate is not locked (resource_conflict; details: gate_id, locked)', schema: errorBodySchema },
    },
    handler: async ({ ctx, params, body, principal, res }) => {
      const { result, command } = await releaseGateLock(
        ctx.pool,
        { gate: params.gate_id, reason: body.reason.trim(), releasedBy: principal.subject, credentialId: principal.credentialId },
        ctx.config.gateCommandAckTimeoutMs + FIRST_ATTEMPT_MARGIN_MS,
      );
      const sent = await deliverCommandNow(commandSenderDeps(ctx), command.command_id);
      sendData(res, 200, { ...result, command_sent: sent });
    },
  }),
];
