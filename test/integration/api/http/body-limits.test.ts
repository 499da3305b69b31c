// Issue 8, defect 9: a request that declares a 50 MiB body and sends 7 bytes held its connection for
// 329 s before a 408. Now the declared length is judged at once (413, connection closed), and a body
// that stops arriving gets 408 after PSS_HTTP_BODY_TIMEOUT_MS. Raw sockets, so nothing finishes the body.
import net from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, ingestFeature, maritimeFeature } from '../../../../app/features.ts';
import { listen } from '../../../../app/http/server.ts';
import { startTestService, type TestService } from '../../../support/service.ts';

const BODY_TIMEOUT_MS = 1_500;
const FIFTY_MIB = 50 * 1024 * 1024;

interface RawAnswer {
  response: string;
  closed: boolean;
  elapsedMs: number;
}

/** Sends the head and the start of a body, then waits (at most `waitMs`) for the server to close the connection. */
async function sendPartly(url: string, head: string, bodyStart: string, waitMs: number): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await once(socket, 'connect');
  let response = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (response += chunk));
  socket.on('error', () => undefined);
  const started = Date.now();
  socket.write(head + bodyStart);
  const closed = await Promise.race([once(socket, 'close').then(() => true), sleep(waitMs).then(() => false)]);
  socket.destroy();
  return { response, closed, elapsedMs: Date.now() - started };
}

describe('request bodies that are too large or too slow', () => {
  let svc: TestService;
  let admin: string;
  const head = (path: string, length: number, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

  beforeAll(async () => {
    svc = await startTestService({ PSS_HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) }, [authFeature, ingestFeature, maritimeFeature]);
    admin = (await svc.key(['admin'])).key;
  });
  afterAll(() => svc?.stop());

  it('answers 413 at once to a declared 50 MiB body, before reading it, and closes the connection', async () => {
    for (const path of ['/v1/maritime/zones', '/v1/ingest/ais', '/v1/ingest/gate', '/v1/auth/api-keys']) {
      const answer = await sendPartly(svc.url, head(path, FIFTY_MIB, `Authorization: Bearer ${admin}\r\n`), '{"name"', 5_000);
      expect(answer.response, path).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.response, path).toContain('"code":"payload_too_large"');
      expect(answer.closed, path).toBe(true);
      expect(answer.elapsedMs, path).toBeLessThan(BODY_TIMEOUT_MS);
    }
  });

  it('closes the connection after refusing a request whose body has not arrived (401)', async () => {
    const answer = await sendPartly(svc.url, head('/v1/maritime/zones', FIFTY_MIB), '{"name"', 5_000);
    expect(answer.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS);
  });

  it('answers 408 and closes the connection when a body within the limit stops arriving', async () => {
    const answer = await sendPartly(svc.url, head('/v1/maritime/zones', 1_000, `Authorization: Bearer ${admin}\r\n`), '{"name"', 10_000);
    expect(answer.response).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 2_500);
  });

  it('bounds receiving a request, not answering it: a handler may take longer than the body timeout', async () => {
    const app = express();
    app.post('/slow', express.json(), async (req, res) => {
      await sleep(BODY_TIMEOUT_MS + 1_000);
      res.json({ echo: req.body as unknown });
    });
    const server = await listen(app, '127.0.0.1', 0, [], BODY_TIMEOUT_MS);
    try {
      const res = await fetch(`${server.url}/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ echo: { a: 1 } });
    } finally {
      await server.close();
    }
  });
});
