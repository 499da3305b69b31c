import { describe, expect, it } from 'vitest';
import { inAppendOrder } from '../../../../delivery/stream/event-tail.ts';
import { gapMessage } from '../../../../delivery/stream/gap-message.ts';
import { replayMessages } from '../../../../delivery/stream/replay-messages.ts';
import { ReplayRing } from '../../../../delivery/stream/replay-ring.ts';
import { ReplaySelection } from '../../../../delivery/stream/replay-selection.ts';
import { decodeHandle, encodeHandle } from '../../../../delivery/stream/resume-handle.ts';
import { streamRecord, type StreamRecord } from '../../../../delivery/stream/stream-record.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';

const T0 = Date.UTC(2026, 10, 21, 7);
const record = (partition: number, offset: number, time: number): StreamRecord =>
  streamRecord(partition, offset, time, {
    id: `evt_${String(partition).padStart(2, '0')}${String(offset).padStart(30, '0')}`, type: 'zone_entry', timestamp: new Date(T0 + time).toISOString(),
    category: 'maritime', severity: 'high', source_module: 'm', source_device: 'd', title: 't', description: '', location: {}, metadata: {},
    requires_action: false, assigned_to: '', incident_id: null,
  } satisfies SecurityEvent);

describe('choosing what a resuming client gets', () => {
  it('replays every missed event in append order when they fit', () => {
    const selection = new ReplaySelection([0, 0], 5);
    for (const r of [record(1, 0, 20), record(0, 0, 10), record(0, 1, 30)]) selection.add(r);
    const result = selection.result();
    expect(result.replay.map((r) => [r.partition, r.offset])).toEqual([[0, 0], [1, 0], [0, 1]]);
    expect(result.gap).toBeUndefined();
    expect(result.start).toEqual([0, 0]);
  });

  it('keeps the newest `limit` of a longer range, however the records arrive, and counts the rest as the gap', () => {
    const selection = new ReplaySelection([100, 200], 3);
    // Partition 1 read first, then partition 0: arrival order is not time order.
    for (let i = 0; i < 5; i++) selection.add(record(1, 200 + i, 2 * i + 1));
    for (let i = 0; i < 5; i++) selection.add(record(0, 100 + i, 2 * i));
    const result = selection.result();
    expect(result.replay.map((r) => r.time)).toEqual([7, 8, 9]);
    expect(result.gap).toEqual({ events: 7, unscannedRecords: 0, firstEventAt: T0, lastEventAt: T0 + 6 });
    // Handles start past every record of the gap on its partition.
    expect(result.start).toEqual([104, 203]);
  });

  it('reports records it never read as part of the gap', () => {
    const selection = new ReplaySelection([0, 0], 3);
    selection.unscanned(0, 50, 50);
    selection.add(record(0, 60, 1));
    expect(selection.result()).toMatchObject({ gap: { events: 0, unscannedRecords: 50 }, start: [50, 0] });
  });
});

describe('replay messages', () => {
  const tag = 7;
  it('carry, after each event, a handle covering the events of its partition sent so far, and end with resumed at the hub position', () => {
    const selection = new ReplaySelection([3, 5]);
    selection.add(record(0, 3, 1));
    selection.add(record(1, 6, 2));
    const messages = replayMessages(selection.result(), { from: { offsets: [3, 5], time: 0 }, to: { offsets: [9, 9], time: 2 }, filters: {}, tag, baseUrl: 'https://pss.example', now: T0 });
    const handles = messages.map((m) => decodeHandle(m.resume as string, tag, 2));
    expect(messages.map((m) => JSON.parse(m.data).type)).toEqual(['event', 'event', 'resumed']);
    expect(handles.map((h) => (h.ok ? h.point.offsets : h.reason))).toEqual([[4, 5], [4, 7], [9, 9]]);
    expect(JSON.parse(messages[2]!.data)).toMatchObject({ replayed: 2, resume: encodeHandle({ offsets: [9, 9], time: 2 }, tag) });
  });

  it('never hand out a handle below the one the client presented', () => {
    const messages = replayMessages(new ReplaySelection([12, 5]).result(), { from: { offsets: [12, 5], time: 0 }, to: { offsets: [9, 9], time: 0 }, filters: {}, tag, baseUrl: '', now: 0 });
    const last = decodeHandle(messages.at(-1)!.resume as string, tag, 2);
    expect(last.ok && last.point.offsets).toEqual([12, 9]);
  });

  it('start with the gap message when there is a gap', () => {
    const selection = new ReplaySelection([0], 1);
    selection.add(record(0, 0, 1));
    selection.add(record(0, 1, 2));
    const messages = replayMessages(selection.result(), { from: { offsets: [0], time: 0 }, to: { offsets: [2], time: 2 }, filters: { categories: ['maritime'] }, tag, baseUrl: 'https://pss.example', now: 0 });
    expect(messages.map((m) => JSON.parse(m.data).type)).toEqual(['gap', 'event', 'resumed']);
    const gap = decodeHandle(messages[0]!.resume as string, tag, 1);
    expect(gap.ok && gap.point.offsets).toEqual([1]);
  });
});

describe('the gap message', () => {
  const gap = { events: 2500, unscannedRecords: 0, firstEventAt: Date.UTC(2026, 10, 21, 6), lastEventAt: Date.UTC(2026, 10, 21, 7) };

  it('names the count, the range and the GET /v1/events query that returns it, in the filters\' terms', () => {
    const message = JSON.parse(gapMessage(gap, { categories: ['gate', 'maritime'], min_severity: 'high' }, 'https://pss.example', 0, 0));
    expect(message).toMatchObject({ type: 'gap', missed_events: 2500, unscanned_records: 0, start_date: '2026-11-21T06:00:00.000Z', end_date: '2026-11-21T07:00:00.001Z' });
    expect(message.message).toMatch(/^2500 events matching your filters were missed and are not replayed; the newest missed events follow/);
    expect(message.queries).toEqual([
      'https://pss.example/v1/events?category=gate%2Cmaritime&severity=high%2Ccritical&start_date=2026-11-21T06%3A00%3A00.000Z&end_date=2026-11-21T07%3A00%3A00.001Z&sort=timestamp&order=asc&per_page=200',
    ]);
  });

  it('asks one query per zone and source module, since GET /v1/events takes one of each', () => {
    const message = JSON.parse(gapMessage(gap, { zones: ['A', 'B'], source_modules: ['m'] }, '', 0, 0));
    expect(message.queries.map((q: string) => new URL(q, 'http://x').searchParams.get('zone'))).toEqual(['A', 'B']);
    const many = JSON.parse(gapMessage(gap, { zones: Array.from({ length: 30 }, (_, i) => `z${i}`) }, '', 0, 0));
    expect(many.queries).toHaveLength(1);
    expect(many.message).toMatch(/apply your zones and source_modules filters yourself/);
  });

  it('starts at the client\'s handle when part of the range was never read', () => {
    const since = Date.UTC(2026, 10, 20);
    const message = JSON.parse(gapMessage({ ...gap, unscannedRecords: 9 }, {}, '', since, 0));
    expect(message.start_date).toBe('2026-11-20T00:00:00.000Z');
    expect(message.message).toMatch(/^at least 2500 events .* \(9 earlier records of the topic were not examined\)/);
  });
});

describe('the replay ring', () => {
  it('serves a resume only from where it still holds every record', () => {
    const ring = new ReplayRing(3, [10, 20]);
    expect(ring.covers([10, 20])).toBe(true);
    expect(ring.covers([9, 20])).toBe(false);
    for (const r of [record(0, 10, 1), record(1, 20, 2), record(0, 11, 3), record(1, 21, 4)]) ring.push(r);
    expect(ring.covers([10, 21])).toBe(false); // 0@10 evicted
    expect(ring.covers([11, 20])).toBe(true);
    expect(ring.since([11, 21]).map((r) => [r.partition, r.offset])).toEqual([[0, 11], [1, 21]]);
  });
});

describe('dispatch order', () => {
  it('merges partitions by append time and keeps each partition in offset order', () => {
    const records = [
      { partition: 0, offset: 0, timestamp: 5 },
      { partition: 0, offset: 1, timestamp: 1 },
      { partition: 1, offset: 0, timestamp: 2 },
      { partition: 1, offset: 1, timestamp: 6 },
    ];
    expect(inAppendOrder(records).map((r) => `${r.partition}@${r.offset}`)).toEqual(['1@0', '0@0', '0@1', '1@1']);
  });
});
