import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../../../api/http/idempotency.ts';
import { locatedIn } from '../../../../api/http/validation.ts';
import { AppError } from '../../../../platform/errors.ts';

const withKey = (key?: string) => ({ header: (name: string) => (name.toLowerCase() === 'idempotency-key' ? key : undefined) }) as unknown as Request;

function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('idempotencyKey', () => {
  it('is undefined without the header and the key as sent with it', () => {
    expect(idempotencyKey(withKey())).toBeUndefined();
    expect(idempotencyKey(withKey('fence-7:0.25'))).toBe('fence-7:0.25');
    expect(idempotencyKey(withKey('x'.repeat(255)))).toBe('x'.repeat(255));
  });

  it('refuses a key that is empty, too long or not visible ASCII with a 400 bad_request', () => {
    for (const bad of ['', 'x'.repeat(256), 'spaces are not allowed', 'tab\tkey', 'ключ']) {
      const error = thrownBy(() => idempotencyKey(withKey(bad)));
      expect(error, JSON.stringify(bad)).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('bad_request');
    }
  });
});

describe('locatedIn', () => {
  it('places a finding in the part of the request it was found in', () => {
    expect([{ path: '/end_date', message: 'before start_date' }].map(locatedIn('query'))).toEqual([{ location: 'query', path: '/end_date', message: 'before start_date' }]);
  });
});
