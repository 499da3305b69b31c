// Issue 4, "Done means": the real AIS sample, replayed through the TCP source into the real broker,
// arrives once per report, keyed by MMSI, equal to a direct decode and to the published expectations;
// every bad sentence is on the dead-letter topic with its reason.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AisChannel } from '../../../../ingest/ais-channel.ts';
import { createAisDecoder, createLineSplitter } from '../../../../ingest/ais/index.ts';
import { TcpSource } from '../../../../ingest/sources/tcp.ts';
import type { InRecord } from '../../../../platform/kafka/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { AIS_FIXTURES, aisFixtureLogs, allAisFixtures, feedServer, ingestHarness, readTopic, until, type IngestHarness } from '../../../support/ingest.ts';
import { testLog } from '../../../support/stack.ts';
import { valueOf as decoded } from '../../../support/codec.ts';

const SOURCE = 'tcp-replay-test';
const FRAGMENT_TIMEOUT_MS = 1_000;
// Both decoders read this clock, so fragment timeouts (and receive-time fallbacks) cannot depend on how
// fast the test machine streams; the end of the feed moves it past the timeout.
const START = Date.UTC(2024, 0, 1);
let clock = START;

/** A value without the times that depend on when it was decoded. */
function comparable(value: Record<string, unknown>): string {
  const { received_at, at: _at, ...rest } = value;
  if (rest.reported_at !== undefined && rest.reported_at === received_at) rest.reported_at = '(receive time)';
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
}

function directDecode(text: string): AisDecodeResult[] {
  let now = START;
  const decoder = createAisDecoder({ source: SOURCE, now: () => now, strictTagBlocks: true, fragmentTimeoutMs: FRAGMENT_TIMEOUT_MS });
  const splitter = createLineSplitter();
  const lines = [...splitter.push(text), ...splitter.flush()];
  const results = lines.flatMap((line) => decoder.push(line));
  now += FRAGMENT_TIMEOUT_MS + 1;
  return [...results, ...decoder.expire()];
}

const valueOf = (r: InRecord) => decoded(r) as Record<string, unknown>;

describe('AIS over TCP into Kafka, on the real sample', () => {
  let harness: IngestHarness;
  const consumed: Record<'positions' | 'static' | 'stations' | 'deadLetter', InRecord[]> = { positions: [], static: [], stations: [], deadLetter: [] };
  const text = allAisFixtures();
  const expected = directDecode(text);
  const expectedOf = (kind: string) => expected.filter((r) => r.kind === kind);
  let source: TcpSource;

  beforeAll(async () => {
    harness = await ingestHarness({ PSS_AIS_FRAGMENT_TIMEOUT_MS: String(FRAGMENT_TIMEOUT_MS) });
    const server = await feedServer(text, { chunkMax: 3000 });
    const rt = harness.runtime;
    const channel = new AisChannel({ source: SOURCE, kind: 'tcp', queue: rt.queue, records: rt.records, strictTagBlocks: true, fragmentTimeoutMs: FRAGMENT_TIMEOUT_MS, now: () => clock });
    source = new TcpSource({ endpoint: { name: SOURCE, host: '127.0.0.1', port: server.port }, channel, backoff: { minMs: 50, maxMs: 200 }, idleTimeoutMs: 0, log: testLog });
    source.start();
    // The server closes after the sample; the source reconnects (and gets nothing more).
    await until(() => server.connections >= 2, 30_000, 'the feed to be sent');
    // Fragments left incomplete at the end expire on the channel's timer.
    clock += FRAGMENT_TIMEOUT_MS + 1;
    await until(() => channel.pendingFragments === 0, 10_000, 'incomplete fragments to expire');
    await rt.queue.flush();
    await source.stop();
    await server.close();
    const t = harness.topics;
    [consumed.positions, consumed.static, consumed.stations, consumed.deadLetter] = await Promise.all([
      readTopic(t.aisPositions, expectedOf('position').length),
      readTopic(t.aisStatic, expectedOf('static').length),
      readTopic(t.aisStations, expectedOf('non_vessel').length),
      readTopic(t.deadLetter, expectedOf('reject').length),
    ]);
  }, 180_000);

  afterAll(async () => {
    await source?.stop();
    await harness?.close();
  });

  it('decodes a realistic sample: thousands of reports and some dirty lines', () => {
    expect(expectedOf('position').length).toBeGreaterThan(5_000);
    expect(expectedOf('static').length).toBeGreaterThan(500);
    expect(expectedOf('reject').length).toBeGreaterThan(100);
  });

  it.each([
    ['positions', 'position'],
    ['static', 'static'],
    ['stations', 'non_vessel'],
  ] as const)('delivers every %s report exactly once, keyed by MMSI, equal to a direct decode', (topic, kind) => {
    const records = consumed[topic];
    for (const r of records) expect(r.key).toBe(String(valueOf(r).mmsi));
    const got = records.map((r) => comparable(valueOf(r))).sort();
    const want = expectedOf(kind).map((r) => comparable(r as unknown as Record<string, unknown>)).sort();
    expect(got.length).toBe(want.length);
    expect(got).toEqual(want);
  });

  it('dead-letters every bad sentence once, keyed by source, with raw input, reason, detail and time', () => {
    const letters = consumed.deadLetter.map(valueOf);
    for (const r of consumed.deadLetter) expect(r.key).toBe(SOURCE);
    for (const letter of letters) {
      expect(letter).toMatchObject({ feed: 'ais', source: SOURCE });
      expect(typeof letter.reason).toBe('string');
      expect(typeof letter.detail).toBe('string');
      expect(Number.isNaN(Date.parse(String(letter.at)))).toBe(false);
      expect((letter.raw as string[]).length).toBeGreaterThan(0);
    }
    const got = letters.map(({ feed: _feed, ...rest }) => comparable(rest)).sort();
    const want = expectedOf('reject').map((r) => { const { kind: _kind, ...rest } = r as unknown as Record<string, unknown>; return comparable(rest); }).sort();
    expect(got).toEqual(want);
    const reasons = new Set(letters.map((l) => l.reason));
    for (const reason of ['bad_payload', 'empty_payload', 'invalid_type', 'orphan_fragment', 'malformed_sentence']) expect(reasons).toContain(reason);
  });

  it('matches the published expectations of the sample (MMSI, type, position)', () => {
    const published = JSON.parse(readFileSync(new URL('decoded-expectations.json', AIS_FIXTURES), 'utf8')) as {
      records: { log_file: string | null; sentences: string[]; expected: Record<string, unknown>; tolerance?: { latlon_deg?: number } }[];
    };
    const logs = new Set(aisFixtureLogs());
    const reports = [...consumed.positions, ...consumed.static, ...consumed.stations].map(valueOf);
    const byLine = new Map<string, Record<string, unknown>[]>();
    for (const report of reports) {
      const line = (report.raw as string[]).map((l) => l.replace(/^\\[^\\]*\\/, '')).join('\n');
      byLine.set(line, [...(byLine.get(line) ?? []), report]);
    }
    const relevant = published.records.filter((e) => e.log_file !== null && logs.has(e.log_file) && [1, 2, 3, 4, 5, 18, 19, 21, 24, 27].includes(Number(e.expected.msg_type)));
    let matched = 0;
    for (const e of relevant) {
      const candidates = byLine.get(e.sentences.join('\n'));
      if (candidates === undefined) continue;
      matched++;
      const report = candidates.find((r) => r.msg_type === e.expected.msg_type) ?? candidates[0];
      expect(report?.mmsi, e.sentences.join(' ')).toBe(e.expected.mmsi);
      expect(report?.msg_type).toBe(e.expected.msg_type);
      const lat = e.expected.lat as number | undefined;
      if (lat !== undefined && Math.abs(lat) <= 90 && report?.lat !== undefined) {
        const tolerance = e.tolerance?.latlon_deg ?? 1e-6;
        expect(Math.abs((report.lat as number) - lat)).toBeLessThanOrEqual(tolerance);
        expect(Math.abs((report.lon as number) - (e.expected.lon as number))).toBeLessThanOrEqual(tolerance);
      }
    }
    expect(relevant.length).toBeGreaterThan(500);
    expect(matched / relevant.length).toBeGreaterThan(0.95);
  });
});
