// A graceful shutdown after a broker loss: the relay, stopped last with the shutdown's deadline, returns
// by that deadline instead of waiting out the producer's retries of a send that cannot arrive, says what
// it left (rows, outbox), and leaves those events in the outbox, unlocked, for the next start.
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRelay } from '../../../events/relay.ts';
import { storeEvents } from '../../../events/store.ts';
import { withDeadline } from '../../../platform/deadline.ts';
import { KafkaProducer } from '../../../platform/kafka/index.ts';
import { createLogger } from '../../../platform/log.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { jsonCodec } from '../../support/codec.ts';
import { testEvent, testModules } from '../../support/security-events.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog, unique } from '../../support/stack.ts';

/** host:port of a port nothing listens on: every connection is refused, as to a stopped broker. */
async function refusingAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

// A database of its own: in the run's shared one, other files' leftover outbox entries came first in the
// relay's claim, so it never held this test's three (failed once that way in a full run).
describe('the event relay stopping after a broker loss', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const modules = testModules(() => pool);

  beforeAll(async () => {
    db = await scratchDatabase('relay_stop');
    pool = createPool(db.url, 4);
  });
  afterAll(async () => {
    await modules.cleanup();
    await pool.end();
    await db?.drop();
  });

  it('returns by its deadline with the batch unsent, logs it, and leaves the events in the outbox', async () => {
    // The producer would retry for a minute: the shutdown must not wait for it.
    const producer = new KafkaProducer({ brokers: [await refusingAddress()], clientId: 'relay-stop-test', log: testLog, deliveryTimeoutMs: 60_000 });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
    const source = modules.next();
    const events = [1, 2, 3].map((n) => testEvent(source, n));
    await inTransaction(pool, (client) => storeEvents(client, events));
    const ids = events.map((e) => e.id);
    const relay = new EventRelay({ pool, producer, codec: jsonCodec, topic: unique('relay-stop'), log, sweepEveryMs: 600_000 });
    relay.start();
    try {
      // Claimed: the relay's transaction holds the entries while it waits for the broker.
      await expect.poll(async () => pool.query('SELECT event_id FROM event_outbox WHERE event_id = ANY($1::text[]) FOR UPDATE NOWAIT', [ids]).then(() => 'free', () => 'claimed'), { timeout: 10_000 }).toBe('claimed');

      const began = performance.now();
      await relay.stop(Date.now() + 1_000);
      const took = performance.now() - began;
      expect(took).toBeLessThan(5_000);
      const left = lines.find((l) => l.outbox === 'event_outbox');
      expect(left).toMatchObject({ level: 40, outbox: 'event_outbox' });
      expect(left!.rows).toBe(3);
      expect(left!.msg).toMatch(/^event relay stopped at its deadline with \d+ rows of event_outbox/);

      // Rolled back: the entries are there, and free for the next relay.
      await expect.poll(async () => (await pool.query('SELECT event_id FROM event_outbox WHERE event_id = ANY($1::text[]) FOR UPDATE NOWAIT', [ids])).rowCount, { timeout: 5_000 }).toBe(3);
    } finally {
      await relay.stop(Date.now());
      await pool.query('DELETE FROM event_outbox WHERE event_id = ANY($1::text[])', [ids]);
      await withDeadline(producer.close(), 1_000).catch(() => undefined);
    }
  });
});
