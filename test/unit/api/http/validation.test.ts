import { describe, expect, it } from 'vitest';
import { compile, problems } from '../../../../api/http/validation.ts';
import { zoneScheduleSchema } from '../../../../schemas/zone.ts';

const schema = { type: 'object', properties: { schedule: zoneScheduleSchema } } as const;
const check = (value: unknown) => {
  const validate = compile('body', schema);
  validate(value);
  return problems('body', validate.errors).map(({ path, message }) => `${path} ${message}`);
};

describe('problems of a oneOf: only the form the client used', () => {
  it('lists the weekly form\'s error alone when the client wrote a weekly schedule', () => {
    expect(check({ schedule: { days: ['mon'], hours: '25:00-26:00', timezone: 'UTC' } })).toEqual([expect.stringMatching(/^\/schedule\/hours must match pattern/)]);
    expect(check({ schedule: { days: ['someday'], hours: '08:00-17:00', timezone: 'UTC' } })).toEqual([expect.stringMatching(/^\/schedule\/days\/0 must be one of/)]);
  });

  it('lists the always_on form\'s error alone when the client wrote that form', () => {
    expect(check({ schedule: { always_on: 'yes' } })).toEqual(['/schedule/always_on must be boolean']);
    expect(check({ schedule: { always_on: true, days: ['mon'] } })).toEqual(['/schedule/days is not an allowed field']);
  });

  it('keeps every error, once each, when no form fits better than another', () => {
    expect(check({ schedule: 'always' })).toEqual(['/schedule must be object', '/schedule must match exactly one schema in oneOf']);
  });
});
