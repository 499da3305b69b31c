import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../../../../api/http/errors.ts';

/** What errorHandler answers for `err`: status and body, through stand-ins of express's request and response. */
function answer(err: unknown): { status: number; body: { error: { code: string; message: string } } } {
  const sent: { status: number; body: unknown } = { status: 0, body: undefined };
  const res = {
    locals: { requestId: 'req-1' },
    setHeader: () => res,
    status(code: number) { sent.status = code; return res; },
    json(body: unknown) { sent.body = body; return res; },
  };
  const req = { headers: {}, complete: true, log: { error: () => undefined } };
  errorHandler(err, req as unknown as Request, res as unknown as Response, (() => undefined) as NextFunction);
  return sent as { status: number; body: { error: { code: string; message: string } } };
}

describe('errorHandler', () => {
  it('answers a transaction rolled back for a deadlock or serialization failure with 503: nothing was written, a retry may succeed', () => {
    for (const code of ['40P01', '40001']) {
      const res = answer(Object.assign(new Error('deadlock detected'), { code }));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.body.error.message).toMatch(/retry/);
    }
  });

  it('keeps other database errors internal (500, no detail)', () => {
    const res = answer(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }));
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'internal_error', message: 'An internal error occurred' });
  });
});
