import { describe, expect, it } from 'vitest';
import { portTime, zoneName } from '../../../console/src/config.ts';

describe('times in the port\'s time zone', () => {
  it('carry the zone beside them, summer and winter', () => {
    expect(portTime('2026-07-01T10:00:00Z', 'Europe/Copenhagen')).toBe('2026-07-01 12:00:00 CEST');
    expect(portTime('2026-11-28T14:53:23Z', 'Europe/Copenhagen')).toBe('2026-11-28 15:53:23 CET');
    expect(portTime(Date.parse('2026-11-28T14:53:23Z'), 'UTC')).toBe('2026-11-28 14:53:23 UTC');
    expect(portTime('not a time', 'Europe/Copenhagen')).toBe('not a time');
  });
  it('name the zone for the header', () => {
    expect(zoneName('Europe/Copenhagen', Date.parse('2026-11-28T12:00:00Z'))).toBe('CET');
    expect(zoneName('Europe/Copenhagen', Date.parse('2026-07-01T12:00:00Z'))).toBe('CEST');
  });
});
