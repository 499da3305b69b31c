import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../../../platform/log.ts';

describe('redactUrl', () => {
  it('replaces the values of credential-bearing query parameters, whatever their spelling', () => {
    for (const name of ['token', 'access_token', 'refresh_token', 'api_key', 'apiKey', 'X-Api-Key', 'key', 'client_secret', 'password', 'passwd', 'code', 'code_verifier', 'signature', 'sig', 'auth', 'session_id', 'access%5Ftoken', 'Access+Token']) {
      expect(redactUrl(`/v1/x?page=2&${name}=abc&sort=name`), name).toBe(`/v1/x?page=2&${name}=[redacted]&sort=name`);
    }
  });

  it('keeps parameters that only look alike, and parameters without a value', () => {
    expect(redactUrl('/v1/events?assigned_to=ops&design=a&keyword=b&flag')).toBe('/v1/events?assigned_to=ops&design=a&keyword=b&flag');
    expect(redactUrl('/v1/events?%zz=1')).toBe('/v1/events?%zz=1');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });

  it('replaces credentials this service issued wherever they appear', () => {
    const key = 'svc_live_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect(redactUrl(`/v1/auth/api-keys/${key}`)).toBe('/v1/auth/api-keys/[redacted]');
    expect(redactUrl(`/v1/x?q=${key}&${key}`)).toBe('/v1/x?q=[redacted]&[redacted]');
  });
});

describe('the logger', () => {
  function capture(obj: object): Record<string, unknown> {
    let line = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((line += String(chunk)), done()) });
    createLogger('info', sink).error(obj, 'x');
    return JSON.parse(line) as Record<string, unknown>;
  }

  it('keeps an error code and redacts an OAuth code in a request body or query', () => {
    const err = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect((capture({ err }).err as { code: string }).code).toBe('57P01');
    expect(capture({ req: { body: { code: 'svc_code_x' }, query: { code: 'y' } } }).req).toEqual({ body: { code: '[redacted]' }, query: { code: '[redacted]' } });
    expect(capture({ body: { client_secret: 's', code_verifier: 'v' } }).body).toEqual({ client_secret: '[redacted]', code_verifier: '[redacted]' });
  });
});
