import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../console/src/api.ts';
import { plainErrors, tooShort } from '../../../console/src/field-errors.ts';

const rules = [{ path: '/reason', say: (m: string) => (tooShort(m) ? 'The reason must be at least 10 characters long.' : 'A reason is required.') }];

describe('validation errors said plainly', () => {
  it('puts a detail a field claims beside that field, and nothing above the buttons', () => {
    const plain = plainErrors(new ApiError(422, 'validation_error', 'Request validation failed', [{ path: '/reason', message: 'must NOT have fewer than 10 characters' }]), rules, 'fallback');
    expect([...plain.fields]).toEqual([['/reason', 'The reason must be at least 10 characters long.']]);
    expect(plain.general).toBeUndefined();
  });
  it('keeps what no field claims in the API\'s words', () => {
    const plain = plainErrors(new ApiError(422, 'validation_error', 'Request validation failed', [{ path: '/reason', message: 'is required' }, { path: '/decision', message: 'must be equal to one of the allowed values' }]), rules, 'fallback');
    expect(plain.fields.get('/reason')).toBe('A reason is required.');
    expect(plain.general).toBe('Request validation failed (/decision must be equal to one of the allowed values)');
    expect(plainErrors(new ApiError(409, 'resource_conflict', 'Transaction gtx_1 is approved'), rules, 'fallback').general).toBe('Transaction gtx_1 is approved');
    expect(plainErrors(new Error('boom'), rules, 'The override could not be sent; try again.').general).toBe('The override could not be sent; try again.');
  });
});
