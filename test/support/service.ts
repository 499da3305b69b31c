// Starts the real service (api role) for a test, with its pino output captured so tests can grep it.
import { Writable } from 'node:stream';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature } from '../../app/features.ts';
import type { Feature } from '../../app/feature.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createLogger } from '../../platform/log.ts';
import type { Scope } from '../../schemas/auth.ts';
import { testConfig } from './stack.ts';

export interface TestService extends RunningService {
  url: string;
  /** Every log line the service wrote so far, as raw text. */
  logs(): string;
  /** Creates an API key directly in the database, as `pss keys create` does. */
  key(scopes: Scope[], extra?: { ip_allowlist?: string[]; expires_in_days?: number }): Promise<{ id: string; key: string }>;
}

/** Features default to auth alone, so these tests do not depend on features still being built. */
export async function startTestService(overrides: Record<string, string> = {}, features: Feature[] = [authFeature]): Promise<TestService> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const log = createLogger('trace', sink);
  const service = await startService(testConfig(overrides), ['api'], log, features);
  return {
    ...service,
    url: service.url as string,
    logs: () => chunks.join(''),
    key: async (scopes, extra = {}) => {
      const { context } = service;
      return createApiKey(context.pool, context.config.environment, { name: `test-${scopes.join('+')}`, scopes, ...extra }, 'test');
    },
  };
}

/** fetch with a bearer credential; JSON bodies are serialized. */
export async function call(url: string, credential: string | undefined, init: { method?: string; json?: unknown; headers?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (credential !== undefined) headers.authorization = `Bearer ${credential}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The spec's error body, with the request id that the response header carries. */
export function expectErrorBody(res: { status: number; headers: Headers; json: Record<string, unknown> }, status: number, code: string): void {
  const requestId = res.headers.get('x-request-id');
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.json)}`);
  const error = (res.json as { error?: Record<string, unknown> }).error;
  if (!error || error.code !== code || typeof error.message !== 'string' || error.message === '' || error.request_id !== requestId) {
    throw new Error(`expected error body with code ${code} and request id ${requestId}, got ${JSON.stringify(res.json)}`);
  }
}
