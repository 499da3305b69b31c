// A plain node:http receiver on loopback for webhook tests and benchmarks: records every request (raw
// body bytes, headers) and answers as `answer` says for its path.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: { id: string; webhook_id: string; attempt: number; delivered_at: string; event: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Receiver {
  url: (path: string) => string;
  received: Received[];
  /** Status to answer on a path (default 200). */
  answer: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answer = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '/').split('?')[0] as string;
      received.push({ path, headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) });
      res.statusCode = answer.get(path) ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    answer,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Waits until `until` holds (or gives up after `timeoutMs`, leaving the caller's assertion to report). */
export async function eventually(until: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !(await until())) await new Promise((r) => setTimeout(r, 20));
}
