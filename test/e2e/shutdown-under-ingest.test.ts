// Issue 21, item 8: SIGTERM under continuous TCP and HTTP ingest load ended in "shutdown timed out;
// exiting" (exit 1) although every acknowledged line was delivered. `pss start --roles api,ingest` runs in
// its own process, reading an AIS feed over TCP that never pauses and taking HTTP ingest requests from
// clients that keep their connections alive and keep sending; it must stop accepting, deliver what it
// took and exit 0 before its shutdown deadline (the deadline's timer exits 1).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { createPool, type Pool } from '../../platform/postgres.ts';
import { topicNames } from '../../platform/topics.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { consumeUntil, testConfig, unique } from '../support/stack.ts';
import { valueOf } from '../support/codec.ts';
import { classA, message } from '../unit/ingest/ais/nmea-builder.ts';

const TCP_FIRST_MMSI = 201_000_000;
const HTTP_FIRST_MMSI = 301_000_000;
const HTTP_CLIENTS = 8;
const LINES_PER_REQUEST = 20;

const line = (mmsi: number) => `${message(classA({ mmsi }))}\r\n`;

/** An AIS feed that writes lines with consecutive MMSIs as fast as its reader takes them, until closed. */
async function endlessFeed(): Promise<{ port: number; written: () => number; close(): Promise<void> }> {
  let next = TCP_FIRST_MMSI;
  const sockets = new Set<net.Socket>();
  const server = net.createServer(async (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket)).on('error', () => undefined);
    while (!socket.destroyed) {
      let chunk = '';
      for (let i = 0; i < 50; i++) chunk += line(next++);
      if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
      else await new Promise((r) => setImmediate(r));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    written: () => next - TCP_FIRST_MMSI,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('SIGTERM while TCP and HTTP ingest keep sending', () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('shutdown')}.` });
  let pool: Pool;
  let feed: Awaited<ReturnType<typeof endlessFeed>>;
  let child: ChildService | undefined;

  beforeAll(async () => {
    pool = createPool(config.databaseUrl, 2);
    feed = await endlessFeed();
  });
  afterAll(async () => {
    await child?.kill();
    await feed?.close();
    await pool?.end();
  });

  it('stops accepting, delivers every acknowledged line and exits 0 before the deadline', async () => {
    child = await startChildService(config, 'api,ingest', { PSS_AIS_TCP_SOURCES: `feed=127.0.0.1:${feed.port}`, PSS_SHUTDOWN_TIMEOUT_MS: '8000' });
    const { key } = await createApiKey(pool, config.environment, { name: 'shutdown-load', scopes: ['ingest:write'] }, 'test');
    const url = `${child.url}/v1/ingest/ais`;

    const acknowledged: number[] = [];
    let sending = true;
    let requests = 0;
    const client = async (n: number) => {
      for (let first = HTTP_FIRST_MMSI + n * 1_000_000; sending; first += LINES_PER_REQUEST) {
        const mmsis = Array.from({ length: LINES_PER_REQUEST }, (_, i) => first + i);
        try {
          // fetch keeps the connection alive between requests, as a busy ingest client does.
          const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body: mmsis.map(line).join('') });
          await res.arrayBuffer();
          requests++;
          if (res.status === 202) acknowledged.push(...mmsis);
        } catch {
          // Refused or cut while the service stops: not acknowledged, so nothing is owed.
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const clients = Array.from({ length: HTTP_CLIENTS }, (_, n) => client(n));

    // Both kinds of input flowing before the signal.
    await expect.poll(() => acknowledged.length >= 1_000 && feed.written() >= 5_000, { timeout: 60_000, interval: 100 }).toBe(true);
    const requestsBefore = requests;
    child.process.kill('SIGTERM');
    const code = await child.exited;
    sending = false;
    await Promise.all(clients);

    const logs = child.logs();
    expect(logs.filter((l) => l.includes('shutdown timed out'))).toEqual([]);
    expect(code).toBe(0);
    expect(requests).toBeGreaterThan(requestsBefore);

    const topic = topicNames(config.topicPrefix).aisPositions;
    const mmsiOf = (records: { topic: string; value: Buffer }[]) => records.map((r) => (valueOf(r) as VesselPosition).mmsi);
    const wanted = new Set(acknowledged);
    const records = await consumeUntil(topic, (seen) => mmsiOf(seen).filter((m) => wanted.has(m)).length >= wanted.size, { timeoutMs: 60_000, quietMs: 1_000 });
    const onTopic = new Set(mmsiOf(records));
    expect(acknowledged.filter((m) => !onTopic.has(m))).toEqual([]);
    // The feed's lines were read in order: what is on the topic is every line up to the last one read.
    const fromFeed = [...onTopic].filter((m) => m < HTTP_FIRST_MMSI).sort((a, b) => a - b);
    expect(fromFeed.length).toBeGreaterThan(0);
    expect(fromFeed[fromFeed.length - 1]).toBe(TCP_FIRST_MMSI + fromFeed.length - 1);
    expect(logs.filter((l) => /given up|not sent/.test(l))).toEqual([]);
  });
});
