import { describe, expect, it } from 'vitest';
import { bookingRequired, DEFAULT_APPOINTMENT_POLICY, parseGateModes, type AppointmentPolicy } from '../../../../processors/gate/appointment-policy.ts';

const policy = (site: AppointmentPolicy['site'], byGate: AppointmentPolicy['byGate'] = {}): AppointmentPolicy => ({ site, byGate });

describe('whether a gate reading needs a booking', () => {
  it('defaults to auto: not required at a site that never received a booking, required once it has', () => {
    expect(DEFAULT_APPOINTMENT_POLICY.site).toBe('auto');
    expect(bookingRequired(DEFAULT_APPOINTMENT_POLICY, 'gate-1', false)).toBe(false);
    expect(bookingRequired(DEFAULT_APPOINTMENT_POLICY, 'gate-1', true)).toBe(true);
  });

  it('errs on the side of review (required) under auto while it is not known whether bookings were received', () => {
    expect(bookingRequired(policy('auto'), 'gate-1', undefined)).toBe(true);
  });

  it('ignores what was received under required and optional', () => {
    for (const seen of [false, true, undefined]) {
      expect(bookingRequired(policy('required'), 'gate-1', seen)).toBe(true);
      expect(bookingRequired(policy('optional'), 'gate-1', seen)).toBe(false);
    }
  });

  it('lets a gate override the site, either way', () => {
    const p = policy('required', { 'empty-depot': 'optional', 'gate-7': 'auto' });
    expect(bookingRequired(p, 'empty-depot', true)).toBe(false);
    expect(bookingRequired(p, 'gate-7', false)).toBe(false);
    expect(bookingRequired(p, 'gate-1', false)).toBe(true);
    expect(bookingRequired(policy('optional', { 'gate-north': 'required' }), 'gate-north', false)).toBe(true);
  });
});

describe('PSS_GATE_APPOINTMENTS_BY_GATE', () => {
  it('reads comma-separated gate=mode pairs; empty is none', () => {
    expect(parseGateModes('')).toEqual({});
    expect(parseGateModes(' gate-north=required , empty-depot=optional,gate=7=auto ')).toEqual({ 'gate-north': 'required', 'empty-depot': 'optional', 'gate=7': 'auto' });
  });

  it('refuses a pair without a gate or with an unknown mode, and a gate listed twice', () => {
    expect(() => parseGateModes('gate-north')).toThrow(/not gate=mode/);
    expect(() => parseGateModes('=required')).toThrow(/not gate=mode/);
    expect(() => parseGateModes('gate-north=sometimes')).toThrow(/must be one of required, optional, auto/);
    expect(() => parseGateModes('a=required,a=optional')).toThrow(/listed twice/);
  });

  it('keeps a gate named __proto__ as a gate, not a prototype', () => {
    const modes = parseGateModes('__proto__=optional');
    expect(Object.hasOwn(modes, '__proto__')).toBe(true);
    expect(bookingRequired(policy('required', modes), '__proto__', true)).toBe(false);
    expect(bookingRequired(policy('required', modes), 'toString', true)).toBe(true);
  });
});
