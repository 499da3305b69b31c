// Issue 8, defect 10: a refused zone's details.path points at the offending field, and only the errors
// of the schedule (or authorized_vessels) form the client used are listed. Also: PATCH never applies
// schema defaults, so it cannot re-activate a zone or pass with an empty body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, maritimeFeature } from '../../../../app/features.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

const zone = (name: string, extra: Record<string, unknown> = {}) => ({
  name, type: 'restricted', alert_level: 'high',
  // In mid-Atlantic, away from every other test's zones and tracks (the database is shared within a run).
  geometry: { type: 'Circle', center: [-31.0, 41.0], radius_meters: 500 },
  ...extra,
});

describe('zone validation problems', () => {
  let svc: TestService;
  let writer: string;
  const suffix = Math.random().toString(36).slice(2, 8);
  const url = (path: string) => `${svc.url}/v1${path}`;
  const created: string[] = [];
  const create = async (body: unknown) => {
    const res = await call(url('/maritime/zones'), writer, { method: 'POST', json: body });
    if (res.status === 201) created.push(res.json.data.id);
    return res;
  };
  const detailsOf = (res: Awaited<ReturnType<typeof call>>) => {
    expectErrorBody(res, 422, 'validation_error');
    return res.json.error.details as { location: string; path: string; message: string }[];
  };

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '10000' }, [authFeature, maritimeFeature]);
    writer = (await svc.key(['maritime:write', 'maritime:read'])).key;
  });
  afterAll(async () => {
    for (const id of created) await call(url(`/maritime/zones/${id}`), writer, { method: 'DELETE' });
    await svc?.stop();
  });

  it('reports an unknown schedule time zone at /schedule/timezone', async () => {
    const res = await create(zone(`tz ${suffix}`, { schedule: { days: ['mon'], hours: '08:00-17:00', timezone: 'Mars/Olympus_Mons' } }));
    expect(detailsOf(res)).toEqual([{ location: 'body', path: '/schedule/timezone', message: expect.stringContaining('Mars/Olympus_Mons') }]);
  });

  it('reports invalid hours at /schedule/hours, without the errors of the always_on form', async () => {
    const res = await create(zone(`hours ${suffix}`, { schedule: { days: ['mon'], hours: '25:00-26:00', timezone: 'UTC' } }));
    expect(detailsOf(res)).toEqual([{ location: 'body', path: '/schedule/hours', message: expect.stringContaining('pattern') }]);
  });

  it('reports a wrong always_on at /schedule/always_on, without the errors of the weekly form', async () => {
    const res = await create(zone(`always ${suffix}`, { schedule: { always_on: 'yes' } }));
    expect(detailsOf(res)).toEqual([{ location: 'body', path: '/schedule/always_on', message: 'must be boolean' }]);
  });

  it('reports a bad authorized_vessels entry at its field, without the errors of the other entry form', async () => {
    const res = await create(zone(`authorized ${suffix}`, { authorized_vessels: [{ mmsi_list: [219000001, 'pilot'] }] }));
    expect(detailsOf(res)).toEqual([{ location: 'body', path: '/authorized_vessels/0/mmsi_list/1', message: 'must be integer' }]);
  });

  it('refuses PATCH with {} or null, and a PATCH of other fields leaves a deactivated zone inactive', async () => {
    const created = await create(zone(`patch ${suffix}`, { active: false }));
    expect(created.status).toBe(201);
    const path = url(`/maritime/zones/${created.json.data.id}`);
    expect(detailsOf(await call(path, writer, { method: 'PATCH', json: {} }))).toEqual([{ location: 'body', path: '', message: expect.stringContaining('fewer than 1') }]);
    expect(detailsOf(await call(path, writer, { method: 'PATCH', body: 'null', headers: { 'content-type': 'application/json' } }))).toEqual([{ location: 'body', path: '', message: 'must be object' }]);
    const renamed = await call(path, writer, { method: 'PATCH', json: { name: `patched ${suffix}` } });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ name: `patched ${suffix}`, active: false });
  });
});
