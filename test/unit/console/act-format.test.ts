import { describe, expect, it } from 'vitest';
import { droneLine, lockLine, type GateLock } from '../../../console/src/act-format.ts';

const TZ = 'Europe/Copenhagen';
const NOW = Date.parse('2026-11-28T15:40:00Z');
const lock: GateLock = {
  gate_id: 'G1', locked: true, locked_at: '2026-11-28T15:34:47Z', lock_reason: 'zone_entry evt_1', incident_id: 'inc_1',
  released_at: null, released_by: null, release_reason: null,
};

describe('the Locks and Drones tabs\' wording', () => {
  it('says which incident locked a gate and since when, in the site\'s time', () => {
    expect(lockLine(lock, TZ, NOW)).toBe('Locked by incident inc_1 since 16:34:47 CET');
    expect(lockLine({ ...lock, incident_id: null }, TZ, NOW)).toBe('Locked by the response loop since 16:34:47 CET');
    expect(lockLine({ ...lock, locked_at: '2026-11-27T09:00:00Z' }, TZ, NOW)).toBe('Locked by incident inc_1 since 2026-11-27 10:00:00 CET');
  });

  it('says who released a gate, when and why', () => {
    expect(lockLine({ ...lock, locked: false, released_at: '2026-11-28T15:36:03Z', released_by: 'duty.officer', release_reason: 'Threat cleared' }, TZ, NOW))
      .toBe('Unlocked: released by duty.officer at 16:36:03 CET (Threat cleared)');
  });

  it('gives a drone\'s state, battery, link and mission', () => {
    const drone = { id: 'd1', state: 'in_flight', battery_percent: 41.6, link: 'lost', position: { lon: 12, lat: 55 } };
    expect(droneLine({ ...drone, mission_id: 'msn_1', last_seen: '2026-11-28T15:39:58Z' }, TZ, NOW)).toBe('in_flight · battery 42% · link lost · mission msn_1 · seen 16:39:58 CET');
    expect(droneLine({ ...drone, mission_id: null }, TZ, NOW)).toBe('in_flight · battery 42% · link lost');
  });
});
