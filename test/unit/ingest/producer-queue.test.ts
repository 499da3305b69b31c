import { describe, expect, it } from 'vitest';
import { ProducerQueue, defaultRetryDelayMs, type ProducerQueueOptions } from '../../../ingest/producer-queue.ts';
import { RecordsRefusedError } from '../../../platform/errors.ts';
import type { OutRecord } from '../../../platform/kafka/index.ts';
import { createLogger } from '../../../platform/log.ts';
import { registry } from '../../../platform/metrics.ts';

const log = createLogger('silent');
const records = (n: number, from = 0): OutRecord[] => Array.from({ length: n }, (_, i) => ({ topic: 't', key: String(from + i), value: String(from + i) }));

/** A producer whose sends the test completes by hand. */
function manualProducer() {
  const calls: { records: OutRecord[]; resolve: () => void; reject: (e: Error) => void }[] = [];
  const send: ProducerQueueOptions['send'] = (recs) => new Promise((resolve, reject) => calls.push({ records: recs, resolve, reject }));
  return { calls, send };
}

function queue(send: ProducerQueueOptions['send'], overrides: Partial<ProducerQueueOptions> = {}) {
  return new ProducerQueue({ send, maxBatchRecords: 100, lingerMs: 5, maxInFlight: 1, maxQueuedRecords: 1_000, log, retryDelayMs: () => 1, ...overrides });
}
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

async function counted(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
}

/** A producer that refuses records whose value is 'huge' as Kafka does (the others are acknowledged). */
function refusingProducer() {
  const calls: string[][] = [];
  const send: ProducerQueueOptions['send'] = async (recs) => {
    calls.push(recs.map((r) => String(r.value)));
    const refused = recs.flatMap((r, index) => (String(r.value).startsWith('huge') ? [{ index, code: 'MESSAGE_TOO_LARGE' }] : []));
    if (refused.length > 0) throw new RecordsRefusedError(refused);
  };
  return { calls, send };
}

describe('the ingest queue', () => {
  it('sends a batch as soon as it holds N records', async () => {
    const p = manualProducer();
    const box = queue(p.send, { lingerMs: 10_000 });
    void box.add(records(250));
    await tick();
    expect(p.calls.map((c) => c.records.length)).toEqual([100]);
    p.calls[0]?.resolve();
    await tick();
    expect(p.calls.map((c) => c.records.length)).toEqual([100, 100]);
  });

  it('sends a partial batch after the linger time', async () => {
    const p = manualProducer();
    const box = queue(p.send, { lingerMs: 20 });
    void box.add(records(3));
    await tick(5);
    expect(p.calls).toHaveLength(0);
    await tick(30);
    expect(p.calls.map((c) => c.records.length)).toEqual([3]);
  });

  it('keeps at most maxInFlight batches at the producer', async () => {
    const p = manualProducer();
    const box = queue(p.send, { maxInFlight: 2 });
    void box.add(records(1_000));
    await tick();
    expect(p.calls).toHaveLength(2);
    p.calls[0]?.resolve();
    await tick();
    expect(p.calls).toHaveLength(3);
  });

  it('resolves add() only when every record of the call is acknowledged', async () => {
    const p = manualProducer();
    const box = queue(p.send, { lingerMs: 0 });
    let done = false;
    void box.add(records(150)).then(() => (done = true));
    await tick();
    p.calls[0]?.resolve();
    await tick();
    expect(done).toBe(false);
    p.calls[1]?.resolve();
    await tick();
    expect(done).toBe(true);
  });

  it('retries a failed batch until it is acknowledged, in order, losing nothing', async () => {
    const sent: string[] = [];
    let failures = 3;
    const box = queue(async (recs) => {
      if (failures-- > 0) throw new Error('broker unreachable');
      sent.push(...recs.map((r) => String(r.value)));
    }, { lingerMs: 0 });
    await box.add(records(250));
    expect(sent).toEqual(records(250).map((r) => r.value));
  });

  it('turns unwritable at the high-water mark and emits drain at half of it', async () => {
    const p = manualProducer();
    const box = queue(p.send, { maxQueuedRecords: 300, lingerMs: 0 });
    let drained = 0;
    box.on('drain', () => drained++);
    void box.add(records(299));
    expect(box.writable).toBe(true);
    void box.add(records(1));
    expect(box.writable).toBe(false);
    await tick();
    p.calls[0]?.resolve(); // 200 left
    await tick();
    expect(box.writable).toBe(false);
    p.calls[1]?.resolve(); // 100 left
    await tick();
    expect(box.writable).toBe(true);
    expect(drained).toBe(1);
  });

  it('addWhenRoom() lets waiting callers in only while their records fit under the limit', async () => {
    const p = manualProducer();
    const box = queue(p.send, { maxQueuedRecords: 300, lingerMs: 0 });
    void box.add(records(300));
    const admitted: number[] = [];
    const waiting = [0, 1, 2, 3].map((i) => box.addWhenRoom(records(100)).then(() => admitted.push(i)));
    await tick();
    expect(admitted).toEqual([]);
    p.calls[0]?.resolve(); // 200 queued: still above half the mark, not writable
    await tick();
    expect(admitted).toEqual([]);
    p.calls[1]?.resolve(); // 100 queued: writable, room for two of the four
    await tick();
    expect(admitted).toHaveLength(2);
    expect(box.queued).toBe(300);
    for (let i = 2; i < 8 && admitted.length < 4; i++) {
      p.calls[i]?.resolve();
      await tick();
      expect(box.queued).toBeLessThanOrEqual(300);
    }
    await Promise.all(waiting);
    expect(admitted).toHaveLength(4);
  });

  it('addWhenRoom() admits a request larger than the limit once nothing is queued, and gives up on abort', async () => {
    const p = manualProducer();
    const box = queue(p.send, { maxQueuedRecords: 100, lingerMs: 0 });
    const { acknowledged } = await box.addWhenRoom(records(250));
    expect(box.queued).toBe(250);
    const controller = new AbortController();
    const late = box.addWhenRoom(records(1), controller.signal);
    controller.abort();
    await expect(late).rejects.toThrow(/abort/i);
    expect(box.queued).toBe(250);
    for (let i = 0; i < 3; i++) {
      p.calls[i]?.resolve();
      await tick();
    }
    await acknowledged;
  });

  it('flush() waits for everything queued, including a partial batch', async () => {
    const acked: number[] = [];
    const box = queue(async (recs) => {
      await tick(5);
      acked.push(recs.length);
    }, { lingerMs: 60_000 });
    void box.add(records(130));
    await box.flush();
    expect(acked).toEqual([100, 30]);
    expect(box.queued).toBe(0);
  });

  it('abort() gives up unacknowledged records: their promises reject and nothing crashes', async () => {
    const box = queue(() => Promise.reject(new Error('down')), { lingerMs: 0 });
    const pending = box.add(records(10));
    await tick(5);
    box.abort();
    await expect(pending).rejects.toThrow(/aborted/);
    await expect(box.add(records(1))).rejects.toThrow(/closed/);
  });

  it('replaces a record Kafka refuses for good by its dead letter, acknowledges the rest, and never retries it (regression)', async () => {
    const p = refusingProducer();
    const before = await counted('pss_ingest_refused_total', { topic: 't', code: 'MESSAGE_TOO_LARGE', outcome: 'dead_lettered' });
    const box = queue(p.send, { lingerMs: 0, replaceRefused: (record, code) => ({ topic: 'dead', key: record.key, value: `letter:${code}` }) });
    await box.add([...records(2), { topic: 't', key: 'x', value: 'huge' }, ...records(2, 2)]);
    expect(p.calls).toEqual([['0', '1', 'huge', '2', '3'], ['letter:MESSAGE_TOO_LARGE']]);
    expect(box.queued).toBe(0);
    expect(await counted('pss_ingest_refused_total', { topic: 't', code: 'MESSAGE_TOO_LARGE', outcome: 'dead_lettered' })).toBe(before + 1);
    // Before, the batch was retried forever and this never resolved.
    await box.add(records(1, 9));
    expect(p.calls).toHaveLength(3);
  });

  it('drops and counts a refused record whose dead letter is refused too, or that has no replacement', async () => {
    const p = refusingProducer();
    const before = await counted('pss_ingest_refused_total', { outcome: 'dropped' });
    const box = queue(p.send, { lingerMs: 0, replaceRefused: () => ({ topic: 'dead', value: 'huge letter' }) });
    await box.add([{ topic: 't', value: 'huge' }]);
    expect(p.calls).toEqual([['huge'], ['huge letter']]);
    await queue(p.send, { lingerMs: 0 }).add([{ topic: 't', value: 'huge' }]);
    expect(await counted('pss_ingest_refused_total', { outcome: 'dropped' })).toBe(before + 2);
  });

  it('reports how long its oldest unacknowledged batch has waited, for /readyz', async () => {
    const clock = { now: 1_000 };
    const p = manualProducer();
    const box = queue(p.send, { lingerMs: 0, now: () => clock.now });
    expect(box.stalledMs).toBe(0);
    void box.add(records(1));
    clock.now += 500;
    void box.add(records(1, 1));
    clock.now += 40_000;
    expect(box.stalledMs).toBe(40_500);
    await tick();
    p.calls[0]?.resolve();
    await tick();
    expect(box.stalledMs).toBe(40_000);
    p.calls[1]?.resolve();
    await tick();
    expect(box.stalledMs).toBe(0);
  });

  it('close() delivers everything queued, then refuses more', async () => {
    const sent: string[] = [];
    const box = queue(async (recs) => {
      await tick(2);
      sent.push(...recs.map((r) => String(r.value)));
    }, { lingerMs: 60_000 });
    void box.add(records(130));
    box.giveUpAt(Date.now() + 10_000);
    await box.close();
    expect(sent).toHaveLength(130);
    await expect(box.add(records(1))).rejects.toThrow(/closed/);
  });

  it('at the shutdown deadline gives up what Kafka has not acknowledged: logged, counted, its promises reject (regression: lost silently)', async () => {
    const before = await counted('pss_ingest_undelivered_total');
    const box = queue(() => new Promise(() => undefined), { lingerMs: 0 });
    const pending = box.add(records(25));
    box.giveUpAt(Date.now() + 50);
    const started = Date.now();
    await box.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(pending).rejects.toThrow(/aborted/);
    expect(await counted('pss_ingest_undelivered_total')).toBe(before + 25);
  });

  it('backs off doubling from 100 ms up to 5 s', () => {
    expect([1, 2, 3, 4, 7, 20].map(defaultRetryDelayMs)).toEqual([100, 200, 400, 800, 5_000, 5_000]);
  });
});
