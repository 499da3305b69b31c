// POST /v1/ingest/ais and POST /v1/ingest/gate (scope ingest:write). Each item is judged on its own;
// accepted records and dead letters go through the shared queue, and the answer waits for Kafka's
// acknowledgement: "accepted" means acknowledged. 202 when nothing was rejected, 422 when something was.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { errorBody } from '../http/errors.ts';
import { checkDeclaredLength, jsonBodyParser, textProblems } from '../http/input-limits.ts';
import { validationError } from '../http/validation.ts';
import { defineRoute, type RouteDef } from '../http/routes.ts';
import type { Config } from '../../platform/config.ts';
import { AppError } from '../../platform/errors.ts';
import { produce } from '../../ingest/items/produce.ts';
import { dataOf, errorBodySchema } from '../../schemas/common.ts';
import { aisIngestJsonSchema, gateIngestBodySchema, ingestAnswerSchema } from '../../schemas/ingest.ts';
import { ingestRuntime } from '../../ingest/runtime.ts';
import { aisSettings } from '../../ingest/ais-settings.ts';
import { reportItems, sentenceItems } from '../../ingest/items/ais-items.ts';
import { gateItems } from '../../ingest/items/gate-items.ts';
import type { IngestAnswer } from '../../ingest/items/items.ts';

const answers = {
  202: { description: 'Every item was accepted (acknowledged by Kafka) or skipped', schema: dataOf(ingestAnswerSchema) },
  422: { description: 'Some or all items were rejected; error.details lists accepted, rejected (index, reason, detail) and skipped items', schema: errorBodySchema },
  503: { description: 'Kafka did not acknowledge in time (PSS_INGEST_HTTP_ACK_TIMEOUT_MS) or the ingest is behind; retry', schema: errorBodySchema },
} as const;

export const ingestRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/ingest/ais',
    scopes: ['ingest:write'],
    tag: 'Ingest',
    summary: 'Submit AIS data: NMEA lines or decoded reports',
    description:
      'Body: `text/plain` NMEA 0183 lines (tag blocks and $PGHP allowed; items are the lines, 0-based), or JSON ' +
      `\`{"sentences": [...]}\` or \`{"reports": [...]}\`. JSON schema of the JSON forms: ${JSON.stringify(aisIngestJsonSchema)}. ` +
      'Multi-sentence messages must be complete within one request. Reports follow schemas/ais.ts; the ingest sets source and received_at.',
    responses: answers,
    handler: async ({ ctx, principal, req, res }) => {
      const rt = ingestRuntime(ctx);
      const body = await readAisBody(req, res, rt.config);
      const itemsContext = { source: `http:${principal.credentialId}`, records: rt.records, ...aisSettings(rt.config), maxItemBytes: rt.config.ingestMaxItemBytes, now: rt.now };
      const outcome = body.kind === 'sentences' ? sentenceItems(body.items, itemsContext) : reportItems(body.items, itemsContext);
      outcome.tally.publish('http');
      await produce(rt, outcome.records);
      answer(res, outcome.answer);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ingest/gate',
    scopes: ['ingest:write'],
    tag: 'Ingest',
    summary: 'Submit gate lane sensor readings',
    description:
      `Body: one reading or an array of readings (schemas/gate-reading.ts): ${JSON.stringify(gateIngestBodySchema)}. ` +
      'A container id failing its ISO 6346 check digit is accepted with the finding container_check_digit_invalid.',
    responses: answers,
    handler: async ({ ctx, principal, req, res }) => {
      const rt = ingestRuntime(ctx);
      const body = await parseJson(req, res, rt.config);
      const items = Array.isArray(body) ? body : [body];
      checkItemCount(items.length, rt.config, 'readings');
      const outcome = gateItems(items, { topics: rt.topics, codec: rt.codec, source: `http:${principal.credentialId}`, maxItemBytes: rt.config.ingestMaxItemBytes, now: rt.now, heardLane: rt.heardLane });
      await produce(rt, outcome.records);
      answer(res, outcome.answer);
    },
  }),
];

type AisBody = { kind: 'sentences' | 'reports'; items: unknown[] };

async function readAisBody(req: Request, res: Response, config: Config): Promise<AisBody> {
  if (req.is('text/*')) {
    checkDeclaredLength(req, config.ingestHttpMaxBytes);
    await run(express.text({ type: 'text/*', limit: config.ingestHttpMaxBytes, defaultCharset: 'latin1' }), req, res);
    const text = typeof req.body === 'string' ? req.body : '';
    const items = text.split(/\r\n|\r|\n/);
    if (items.length > 0 && items[items.length - 1] === '') items.pop();
    checkItemCount(items.length, config, 'lines');
    return { kind: 'sentences', items };
  }
  const body = await parseJson(req, res, config);
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  const sentences = isObject ? (body as { sentences?: unknown }).sentences : undefined;
  const reports = isObject ? (body as { reports?: unknown }).reports : undefined;
  if (!isObject || Object.keys(body).length !== 1 || !(Array.isArray(sentences) || Array.isArray(reports))) {
    throw new AppError('validation_error', 'Body must be text/plain NMEA lines, or JSON {"sentences": [...]} or {"reports": [...]}');
  }
  const items = (Array.isArray(sentences) ? sentences : reports) as unknown[];
  checkItemCount(items.length, config, Array.isArray(sentences) ? 'sentences' : 'reports');
  return { kind: Array.isArray(sentences) ? 'sentences' : 'reports', items };
}

async function parseJson(req: Request, res: Response, config: Config): Promise<unknown> {
  if (!req.is('application/json') && !req.is('application/*+json')) {
    throw new AppError('unsupported_media_type', `Body must be ${req.path.endsWith('/ais') ? 'text/plain or ' : ''}application/json, got ${req.headers['content-type'] ?? 'no Content-Type'}`);
  }
  // The registry's edge checks (api/http/input-limits.ts): declared length, nesting depth, NUL and unpaired surrogates.
  await run(jsonBodyParser(config.ingestHttpMaxBytes), req, res);
  const refused = textProblems('body', req.body);
  if (refused.length > 0) throw validationError(refused);
  return req.body as unknown;
}

function checkItemCount(count: number, config: Config, what: string): void {
  if (count === 0) throw new AppError('validation_error', `No ${what} in the body`);
  if (count > config.ingestHttpMaxItems) throw new AppError('payload_too_large', `At most ${config.ingestHttpMaxItems} ${what} per request, got ${count}`);
}

function answer(res: Response, result: IngestAnswer): void {
  if (result.rejected_count === 0) {
    res.status(202).json({ data: result });
    return;
  }
  const message = `${result.rejected_count} of ${result.received} items rejected (see details.rejected); ${result.accepted_count} accepted`;
  res.status(422).json(errorBody('validation_error', message, String(res.locals.requestId ?? ''), result));
}

function run(parser: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void parser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}
