// Issue 21, item 1: AIS gaps in traffic delivered all at once (a replay, a catch-up after an outage) are
// the gaps of the same traffic delivered live. The adapter's part (housekeeping on an idle member's tick)
// is tested end to end in test/e2e/ais-gap-catch-up.test.ts; here the decisions, pure.
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../support/work-bounded.ts';
import { evaluatePositions, expireSilent, withHousekeeping, type PartitionedPosition } from '../../../../processors/maritime/evaluate-batch.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../processors/maritime/rules/config.ts';
import { feedAsOf, newFeedState } from '../../../../processors/maritime/rules/feed-silence.ts';
import type { VesselState } from '../../../../processors/maritime/rules/vessel-state.ts';
import { VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';
import type { ZoneSnapshot } from '../../../../processors/maritime/zones/zone-catalog.ts';
import { ZoneIndex } from '../../../../processors/maritime/zones/zone-index.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import type { StoredZone } from '../../../../schemas/zone.ts';
import { seeded } from '../../../support/seeded-random.ts';
import { position, TRACK_SOURCE } from '../../../support/tracks.ts';

const zone: StoredZone = {
  id: 'zone_anchorage', name: 'Anchorage', type: 'anchorage', alert_level: 'low', active: true,
  geometry: { type: 'Circle', center: [12.6, 55.7], radius_meters: 2000 },
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
};
const LOSS_SECONDS = 120;
const snapshot: ZoneSnapshot = {
  index: ZoneIndex.build([zone]),
  rules: new Map([[zone.id, zone]]),
  zoneRules: new Map([[zone.id, { ais_rules: { alert_on: [{ ais_loss_seconds: LOSS_SECONDS }], alert_level: 'high' } }]]),
  dwellTime: undefined,
  version: '1',
};
const config = DEFAULT_ZONE_RULES_CONFIG;
const T0 = Date.UTC(2026, 10, 26, 6, 0);
const iso = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const inZone = (mmsi: number, seconds: number, partition: number): PartitionedPosition => ({ partition, position: position(mmsi, new Date(T0 + seconds * 1000), 12.6, 55.7, 0.2) });
const away = (mmsi: number, seconds: number, partition: number): PartitionedPosition => ({ partition, position: position(mmsi, new Date(T0 + seconds * 1000), 11.0, 54.0, 0.2) });
const minutes = (from: number, to: number, each = 60) => Array.from({ length: Math.floor((to - from) / each) + 1 }, (_, i) => from + i * each);

/**
 * Delivers `items` in order, cut into batches where `cut` says, with housekeeping after the batches
 * `housekeep` picks and always at the end (the idle member's tick). Returns every event, in order.
 */
function deliver(items: PartitionedPosition[], cut: (i: number) => boolean, housekeep: (batch: number) => boolean): SecurityEvent[] {
  const states = new Map<number, VesselState>();
  const feed = newFeedState();
  // Housekeeping runs as at the member's idle poll: everything delivered so far has been read.
  feed.caughtUp = true;
  const events: SecurityEvent[] = [];
  const directory = new VesselDirectory();
  let batch: PartitionedPosition[] = [];
  let batches = 0;
  const flush = (last: boolean) => {
    events.push(...evaluatePositions(batch, states, snapshot, directory, config, [], feed).events);
    batch = [];
    if (last || housekeep(batches++)) events.push(...expireSilent(states, feedAsOf(feed), snapshot, config, feed).events);
  };
  items.forEach((item, i) => {
    batch.push(item);
    if (i < items.length - 1 && cut(i)) flush(false);
  });
  flush(true);
  return events;
}

const gapsOf = (events: SecurityEvent[]) =>
  events
    .filter((e) => e.type === 'ais_gap' || e.type === 'ais_gap_end')
    .map((e) => ({ id: e.id, type: e.type, mmsi: e.metadata.mmsi, timestamp: e.timestamp, metadata: e.metadata }))
    .sort((a, b) => a.id.localeCompare(b.id));

const SILENT = 219_000_001;

/** One vessel in the zone every 30 s for 2 minutes, twelve elsewhere every minute for 14 minutes, one of them on its partition. */
function reportedScenario(): PartitionedPosition[] {
  const items = [...minutes(0, 120, 30).map((s) => inZone(SILENT, s, 2))];
  for (let v = 0; v < 12; v++) items.push(...minutes(0, 14 * 60).map((s) => away(219_000_100 + v, s, v === 0 ? 2 : v % 6)));
  return items;
}

describe('AIS gaps of a catch-up batch', () => {
  it('raises, for the reported scenario in one batch, exactly one ais_gap, and leaves each changed vessel once for the store', () => {
    // Everything in one batch, in event-time order.
    const items = reportedScenario();
    items.sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at));
    const states = new Map<number, VesselState>();
    const feed = newFeedState();
    const batch = evaluatePositions(items, states, snapshot, new VesselDirectory(), config, [], feed);
    expect(batch.events.map((e) => e.type)).toEqual(['zone_entry']);
    feed.caughtUp = true;
    const outcome = withHousekeeping(batch, expireSilent(states, feedAsOf(feed), snapshot, config, feed));

    const gaps = outcome.events.filter((e) => e.type === 'ais_gap');
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({
      severity: 'high',
      timestamp: iso(120 + LOSS_SECONDS),
      source_device: 'ais-silence',
      location: { zone: zone.name },
      metadata: { mmsi: SILENT, ais_loss_seconds: LOSS_SECONDS, last_seen_at: iso(120), silent_from: iso(120), zone_id: zone.id },
    });
    // The silent vessel changed in the batch (its entry) and in housekeeping (its gap): stored once.
    expect(batch.changed.map((s) => s.mmsi)).toEqual([SILENT]);
    expect(outcome.changed.map((s) => s.mmsi)).toEqual([SILENT]);
    expect(outcome.changed[0]?.rules?.gap).toMatchObject({ since: T0 + 120_000, alerted_at: T0 + 240_000 });
  });

  it('raises the same one gap when the batch lists the reports vessel by vessel, the silent vessel first or last', () => {
    const vesselByVessel = reportedScenario();
    for (const items of [vesselByVessel, [...vesselByVessel].sort((a, b) => b.position.mmsi - a.position.mmsi)]) {
      const gaps = gapsOf(deliver(items, () => false, () => false));
      expect(gaps.map((g) => [g.type, g.mmsi, g.timestamp])).toEqual([['ais_gap', SILENT, iso(120 + LOSS_SECONDS)]]);
    }
  });

  describe('a live feed and a catch-up give the same gaps', () => {
    // Partition 0: BUOY reports throughout except during a feed outage from 14 to 24 minutes.
    //   QUIET goes silent at 2 min for good: a gap at 4 min.
    //   EARLY goes silent at 5 min and its limit passes before the outage: a gap at 7 min, not one
    //   counted from the feed's return.
    //   LATE reports last at 13 min; only the outage lies between that and its next report, at 25 min
    //   (one minute after the feed's return): no gap.
    // Partition 1, another feed: TUG reports every minute. RETURNS reports at 0-2 min and from 7 min
    //   on: a gap at 4 min and its end at 7 min. (On the same feed, TUG would show the feed carrying
    //   until 20 min: no outage before then, and LATE's silence a gap.)
    const [BUOY, QUIET, EARLY, LATE, TUG, RETURNS] = [219_000_201, 219_000_202, 219_000_203, 219_000_204, 219_000_205, 219_000_206];
    const items: PartitionedPosition[] = [];
    const p0: PartitionedPosition[] = [
      ...minutes(0, 14 * 60).map((s) => away(BUOY, s, 0)),
      ...minutes(0, 120, 30).map((s) => inZone(QUIET, s, 0)),
      ...minutes(0, 300).map((s) => inZone(EARLY, s, 0)),
      ...minutes(0, 13 * 60).map((s) => inZone(LATE, s, 0)),
      ...minutes(24 * 60, 30 * 60).map((s) => away(BUOY, s, 0)),
      ...minutes(25 * 60, 30 * 60).map((s) => inZone(LATE, s, 0)),
    ].sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at));
    const p1: PartitionedPosition[] = [...minutes(0, 20 * 60).map((s) => away(TUG, s, 1)), ...minutes(0, 120).map((s) => inZone(RETURNS, s, 1)), ...minutes(420, 20 * 60).map((s) => inZone(RETURNS, s, 1))]
      .map(({ partition, position: p }) => ({ partition, position: { ...p, source: 'harbour-b' } }))
      .sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at));
    // The two partitions interleaved, as one consumer fetches them.
    for (let i = 0; i < Math.max(p0.length, p1.length); i++) items.push(...[p0[i], p1[i]].filter((p) => p !== undefined));

    const catchUp = gapsOf(deliver(items, () => false, () => false));

    it('finds the expected gaps in one batch', () => {
      expect(catchUp.map((g) => [g.type, g.mmsi, g.timestamp])).toEqual(
        expect.arrayContaining([
          ['ais_gap', QUIET, iso(240)],
          ['ais_gap', EARLY, iso(420)],
          ['ais_gap', RETURNS, iso(240)],
          ['ais_gap_end', RETURNS, iso(420)],
        ]),
      );
      expect(catchUp).toHaveLength(4);
      expect(catchUp.find((g) => g.mmsi === EARLY)?.metadata).toMatchObject({ last_seen_at: iso(300), silent_from: iso(300) });
    });

    it('finds the same gaps, same ids and contents, fed one report at a time with housekeeping after each', () => {
      expect(gapsOf(deliver(items, () => true, () => true))).toEqual(catchUp);
    });

    it('finds the same gaps whatever the batch boundaries and housekeeping moments', WORK_BOUNDED, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const random = seeded(seed);
        expect(gapsOf(deliver(items, () => random() < 0.05, () => random() < 0.3)), `seed ${seed}`).toEqual(catchUp);
      }
    });
  });
});

describe('AIS gaps judged on the vessel\'s feed, not its partition (issue 33)', () => {
  /** The reported scenario with every other vessel on partitions the silent vessel does not use. */
  function aloneOnItsPartition(): PartitionedPosition[] {
    const items = [...minutes(0, 120, 30).map((s) => inZone(SILENT, s, 2))];
    for (let v = 0; v < 12; v++) items.push(...minutes(0, 14 * 60).map((s) => away(219_000_100 + v, s, v % 2 === 0 ? 0 : 5)));
    return items.sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at));
  }
  const housekept = (items: PartitionedPosition[], feed = newFeedState()) => {
    const states = new Map<number, VesselState>();
    const batch = evaluatePositions(items, states, snapshot, new VesselDirectory(), config, [], feed);
    feed.caughtUp = true;
    return withHousekeeping(batch, expireSilent(states, feedAsOf(feed), snapshot, config, feed)).events;
  };

  it('raises the gap of a vessel alone on its partition while its feed carries others', () => {
    const gaps = gapsOf(housekept(aloneOnItsPartition()));
    expect(gaps.map((g) => [g.type, g.mmsi, g.timestamp])).toEqual([['ais_gap', SILENT, iso(120 + LOSS_SECONDS)]]);
  });

  it('raises no gap for a vessel alone on its partition while its own feed carries nothing (another feed does)', () => {
    const items = aloneOnItsPartition().map(({ partition, position: p }) => ({ partition, position: p.mmsi === SILENT ? p : { ...p, source: 'other-feed' } }));
    expect(gapsOf(housekept(items))).toEqual([]);
  });

  it('judges a vessel alone on its partition no further than its partition has been read while the member catches up', () => {
    const feed = newFeedState();
    const states = new Map<number, VesselState>();
    evaluatePositions(aloneOnItsPartition(), states, snapshot, new VesselDirectory(), config, [], feed);
    expect(expireSilent(states, feedAsOf(feed), snapshot, config, feed).events.filter((e) => e.type === 'ais_gap')).toEqual([]);
  });

  it('keeps a gap that passed its limit before the feed fell silent after the batch (an outage the ingest recorded from the feed\'s last report)', () => {
    // The ingest recorded the outage from the report time of the batch's newest report: it is open.
    const feed = newFeedState(new Map([[TRACK_SOURCE, { silent_from: T0 + 14 * 60_000, resumed_at: Number.POSITIVE_INFINITY }]]));
    const gaps = gapsOf(housekept(reportedScenario().sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at)), feed));
    expect(gaps.map((g) => [g.type, g.mmsi, g.timestamp])).toEqual([['ais_gap', SILENT, iso(120 + LOSS_SECONDS)]]);
  });

  it('counts the silence before an outage and after it, not during it', () => {
    // The feed carried until 90 s after the vessel's last report, then nothing for 20 minutes.
    const feed = newFeedState(new Map([[TRACK_SOURCE, { silent_from: T0 + 210_000, resumed_at: T0 + 1_410_000 }]]));
    const items = [...minutes(0, 120, 30).map((s) => inZone(SILENT, s, 2)), ...[...minutes(0, 210, 30), ...minutes(1_410, 1_500, 30)].map((s) => away(219_000_100, s, 2))];
    const gaps = gapsOf(housekept(items.sort((a, b) => Date.parse(a.position.reported_at) - Date.parse(b.position.reported_at)), feed));
    // 90 s before the outage, the remaining 30 s after the feed's return.
    expect(gaps.map((g) => [g.type, g.mmsi, g.timestamp])).toEqual([['ais_gap', SILENT, iso(1_410 + 30)]]);
    expect(gaps[0]?.metadata).toMatchObject({ last_seen_at: iso(120), silent_from: iso(1_410 + 30 - LOSS_SECONDS) });
  });

  it('judges a vessel alone on its partition by the whole batch, whatever order its partitions come in (a replay)', () => {
    // DARK alone on partition 1: in the zone 0-2 min, dark until 12 min, back until 20 min; three vessels
    // elsewhere every minute on partitions 0 and 2. The batch lists partition 1 first, as a fetch may.
    const DARK = 219_000_301;
    const dark = [...minutes(0, 120, 30), ...minutes(720, 1_200, 30)].map((s) => inZone(DARK, s, 1));
    const others = [0, 1, 2].flatMap((v) => minutes(0, 1_200).map((s) => away(219_000_310 + v, s, v === 1 ? 2 : 0)));
    const events = housekept([...dark, ...others]);
    expect(gapsOf(events).map((g) => [g.type, g.mmsi, g.timestamp])).toEqual([['ais_gap', DARK, iso(120 + LOSS_SECONDS)], ['ais_gap_end', DARK, iso(720)]]);
    expect(events.filter((e) => e.type === 'system_health_change')).toEqual([]);
  });
});
