// Calls to the service's API with the signed-in user's token. Errors become ApiError with the spec's code,
// message and details, which the console shows as they are (never a stack trace).
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: { path?: string; message?: string }[] = []) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  send<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export function createApi(base: string, token: () => Promise<string>, onUnauthorized: () => void): Api {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${await token()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError(0, 'network', 'The service could not be reached; check the connection and try again.');
    }
    if (res.status === 204) return undefined as T;
    const json = (await res.json().catch(() => undefined)) as { data?: unknown; error?: { code: string; message: string; details?: [] } } | undefined;
    if (res.status === 401) onUnauthorized();
    if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? 'error', json?.error?.message ?? `The service answered HTTP ${res.status}.`, json?.error?.details ?? []);
    return json as T;
  }
  return { get: (path) => call('GET', path), send: (method, path, body) => call(method, path, body) };
}
