// Gate endpoints: truck appointments from the terminal operating system (ingest-style: validated,
// produced to gate.appointments, answered once Kafka acknowledged), and the gate transactions of the
// spec (list, detail, override). The rules live in processors/gate/; these routes read and answer.
import { appointmentProblems } from '../../ingest/gate/appointments.ts';
import { produce } from '../../ingest/items/produce.ts';
import { ingestRuntime } from '../../ingest/runtime.ts';
import { overrideTransaction } from '../../processors/gate/override.ts';
import { listTransactions, readTransaction, transactionFilter, transactionQueryProblems } from '../../processors/gate/transaction-list.ts';
import { AppError } from '../../platform/errors.ts';
import { dataOf, errorBodySchema, listOf } from '../../schemas/common.ts';
import { gateAppointmentAnswerSchema, gateAppointmentBodySchema } from '../../schemas/gate-appointment.ts';
import { overrideBodySchema, overrideResultSchema, transactionDetailSchema, transactionListItemSchema, transactionListQuerySchema } from '../../schemas/gate-transaction.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';

const idParams = {
  type: 'object',
  required: ['transaction_id'],
  properties: { transaction_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

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
];
