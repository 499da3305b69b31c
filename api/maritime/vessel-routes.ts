// Vessel endpoints (maritime:read, "read vessel data"): the list with its filters, one vessel, and its
// track as GeoJSON. The data comes from the vessel sinks (processors/vessels/); these routes read the
// request and answer.
import { AppError } from '../../platform/errors.ts';
import { dataOf, listOf } from '../../schemas/common.ts';
import { mmsiParamsSchema, vesselDetailSchema, vesselListQuerySchema, vesselSchema, vesselTrackQuerySchema, vesselTrackSchema } from '../../schemas/vessel.ts';
import { MAX_TRACK_POINTS, TrackTooLong, listVessels, readVessel, vesselKnown, vesselTrack } from '../../processors/vessels/vessel-queries.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import type { Problem } from '../http/validation.ts';

const DAY_MS = 86_400_000;
/** The longest track window one request may ask for. */
const MAX_TRACK_DAYS = 31;
const MAX_MMSI = 1_073_741_823;

const parseBbox = (raw: string) => raw.split(',').map(Number) as [number, number, number, number];

function bboxProblems(query: unknown): Problem[] {
  const raw = (query as { bbox?: unknown } | null)?.bbox;
  if (typeof raw !== 'string' || raw.split(',').length !== 4) return [];
  const [minLon, minLat, maxLon, maxLat] = parseBbox(raw);
  const problems: string[] = [];
  if ([minLon, maxLon].some((v) => !(Math.abs(v) <= 180))) problems.push('longitudes must be within -180 to 180');
  if ([minLat, maxLat].some((v) => !(Math.abs(v) <= 90))) problems.push('latitudes must be within -90 to 90');
  if (minLon > maxLon) problems.push('min_lon must not exceed max_lon (a box across the antimeridian is two requests)');
  if (minLat > maxLat) problems.push('min_lat must not exceed max_lat');
  return problems.map((message) => ({ location: 'query', path: '/bbox', message }));
}

/** The track window: end_date default now, start_date default 24 hours before it. */
function trackWindow(query: { start_date?: string; end_date?: string }, now: Date): { start: Date; end: Date } {
  const end = query.end_date === undefined ? now : new Date(query.end_date);
  const start = query.start_date === undefined ? new Date(end.getTime() - DAY_MS) : new Date(query.start_date);
  return { start, end };
}

function trackProblems(query: unknown): Problem[] {
  const q = query as { start_date?: unknown; end_date?: unknown } | null;
  if ((q?.start_date !== undefined && typeof q?.start_date !== 'string') || (q?.end_date !== undefined && typeof q?.end_date !== 'string')) return [];
  const { start, end } = trackWindow(q as { start_date?: string; end_date?: string }, new Date());
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return [];
  if (start >= end) return [{ location: 'query', path: '/start_date', message: 'start_date must be before end_date' }];
  if (end.getTime() - start.getTime() > MAX_TRACK_DAYS * DAY_MS) return [{ location: 'query', path: '/start_date', message: `the window must not exceed ${MAX_TRACK_DAYS} days` }];
  return [];
}

function mmsiOf(raw: string): number {
  const mmsi = Number(raw);
  if (mmsi > MAX_MMSI) throw new AppError('not_found', `Vessel ${raw} is not known`);
  return mmsi;
}

export const vesselRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/maritime/vessels',
    scopes: ['maritime:read'],
    summary: 'List vessels',
    description: 'Vessels known from AIS static data or positions, most recently seen first. Filters combine with AND.',
    tag: 'Maritime',
    query: vesselListQuerySchema,
    check: ({ query }) => bboxProblems(query),
    responses: { 200: { description: 'One page of vessels', schema: listOf(vesselSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { vessels, total } = await listVessels(ctx.pool, { ...query, bbox: query.bbox === undefined ? undefined : parseBbox(query.bbox) });
      sendList(res, vessels, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/vessels/:mmsi',
    scopes: ['maritime:read'],
    summary: 'Read a vessel',
    description: 'Static and voyage data, last position, the zones it is inside now with dwell, and its 10 newest events. risk_score is the vessel risk score (0-100) decayed to its newest report.',
    tag: 'Maritime',
    params: mmsiParamsSchema,
    responses: { 200: { description: 'The vessel', schema: dataOf(vesselDetailSchema) } },
    handler: async ({ ctx, params, res }) => {
      const vessel = await readVessel(ctx.pool, mmsiOf(params.mmsi));
      if (!vessel) throw new AppError('not_found', `Vessel ${params.mmsi} is not known`);
      sendData(res, 200, vessel);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/vessels/:mmsi/track',
    scopes: ['maritime:read'],
    summary: 'A vessel\'s track as GeoJSON',
    description: `A GeoJSON LineString Feature of the positions reported in [start_date, end_date), in time order, with each point's time in properties.times; simplified when tolerance_meters > 0. At most ${MAX_TRACK_DAYS} days and ${MAX_TRACK_POINTS} positions per request.`,
    tag: 'Maritime',
    params: mmsiParamsSchema,
    query: vesselTrackQuerySchema,
    check: ({ query }) => trackProblems(query),
    responses: { 200: { description: 'The track', schema: dataOf(vesselTrackSchema) } },
    handler: async ({ ctx, params, query, res }) => {
      const mmsi = mmsiOf(params.mmsi);
      if (!(await vesselKnown(ctx.pool, mmsi))) throw new AppError('not_found', `Vessel ${params.mmsi} is not known`);
      const { start, end } = trackWindow(query, new Date());
      try {
        sendData(res, 200, await vesselTrack(ctx.pool, mmsi, start, end, query.tolerance_meters));
      } catch (err) {
        if (err instanceof TrackTooLong) throw new AppError('validation_error', err.message);
        throw err;
      }
    },
  }),
];
