import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import { createAisDecoder } from '../../../../../ingest/ais/index.ts';
import { evaluatePositions, expireSilent, type PartitionedPosition } from '../../../../../processors/maritime/evaluate-batch.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../../processors/maritime/rules/config.ts';
import { feedAsOf, newFeedState } from '../../../../../processors/maritime/rules/feed-silence.ts';
import type { VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { VesselDirectory } from '../../../../../processors/maritime/vessel-directory.ts';
import { ZoneIndex } from '../../../../../processors/maritime/zones/zone-index.ts';
import type { VesselPosition } from '../../../../../schemas/ais.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import type { StoredZone } from '../../../../../schemas/zone.ts';

// Issue 12: every AIS integrity rule over the real recordings in test/fixtures/ais, to count false alarms.
// Each recording gets one zone over its whole area (a 200 km circle on its median position) watching
// everything: AIS loss after 10 minutes, jumps beyond 1 nm, heading/COG mismatch. Lines without their own
// time are received one second apart. The counts are in docs/zones-and-rules.md "False alarms on the real recordings".
const DIR = fileURLToPath(new URL('../../../../fixtures/ais/', import.meta.url));
const FILES = readdirSync(DIR).filter((f) => f.startsWith('real-nmea-') && f.endsWith('.txt')).sort();
const RULES: ZoneRuleSet = { ais_rules: { alert_on: [{ ais_loss_seconds: 600 }, { position_jump_nm: 1 }, { heading_speed_mismatch: true }], alert_level: 'high' } };

function decode(file: string): { positions: VesselPosition[]; directory: VesselDirectory } {
  let now = Date.parse('2020-01-01T00:00:00Z');
  const decoder = createAisDecoder({ source: file, now: () => now });
  const directory = new VesselDirectory();
  const positions: VesselPosition[] = [];
  for (const line of readFileSync(DIR + file, 'latin1').split(/\r?\n/)) {
    now += 1_000;
    for (const r of decoder.push(line)) {
      if (r.kind === 'position' && r.lat !== undefined) positions.push(r as VesselPosition);
      if (r.kind === 'static') directory.apply(r);
    }
  }
  return { positions: positions.sort((a, b) => a.reported_at.localeCompare(b.reported_at)), directory };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function countEvents(file: string): Record<string, number> {
  const { positions, directory } = decode(file);
  if (positions.length === 0) return {};
  const zone: StoredZone = {
    id: 'z-recording', name: 'Recording area', type: 'monitoring', alert_level: 'low', active: true,
    geometry: { type: 'Circle', center: [median(positions.map((p) => p.lon!)), median(positions.map((p) => p.lat!))], radius_meters: 200_000 },
    created_at: '', updated_at: '',
  };
  const snapshot = { index: ZoneIndex.build([zone]), rules: new Map([[zone.id, zone]]), zoneRules: new Map([[zone.id, RULES]]), dwellTime: undefined, version: 'r' };
  const states = new Map<number, VesselState>();
  const feed = newFeedState();
  // One member that has read every batch so far, as at its idle poll.
  feed.caughtUp = true;
  const counts: Record<string, number> = {};
  for (let i = 0; i < positions.length; i += 200) {
    const batch: PartitionedPosition[] = positions.slice(i, i + 200).map((position) => ({ partition: position.mmsi % 6, position }));
    const outcome = evaluatePositions(batch, states, snapshot, directory, DEFAULT_ZONE_RULES_CONFIG, directory.takeLearned(), feed);
    const house = expireSilent(states, feedAsOf(feed), snapshot, DEFAULT_ZONE_RULES_CONFIG, feed);
    for (const e of [...outcome.events, ...house.events]) {
      if (e.source_module !== 'maritime.rules') continue;
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      if (e.type === 'heading_mismatch') {
        // Never on "not available": heading 511, COG 360 and SOG 102.3 reach us as absent fields.
        expect(typeof e.metadata.heading).toBe('number');
        expect(typeof e.metadata.course).toBe('number');
      }
    }
  }
  counts.positions = positions.length;
  counts.vessels = new Set(positions.map((p) => p.mmsi)).size;
  return counts;
}

describe('AIS integrity rules over the real recordings', () => {
  it('raise the counted alarms (a change here is a change in false alarms: update docs/zones-and-rules.md with it)', WORK_BOUNDED, () => {
    const all = Object.fromEntries(FILES.map((f) => [f.replace(/^real-nmea-|\.txt$/g, ''), countEvents(f)]));
    expect(all).toMatchInlineSnapshot(`
      {
        "dma-ais250-southern-california": {
          "positions": 198,
          "vessels": 146,
        },
        "dma-copenhagen-oresund": {
          "positions": 420,
          "vessels": 44,
        },
        "dma-gatehouse-2010-06-11": {
          "heading_mismatch": 3,
          "positions": 2965,
          "vessels": 1390,
        },
        "dma-gatehouse-2013-03-18": {
          "positions": 45,
          "vessels": 30,
        },
        "gpsd-ais-18-27-2023": {
          "positions": 138,
          "vessels": 33,
        },
        "gpsd-ais-nmea-lemmer-2020": {
          "ais_gap": 16,
          "ais_gap_end": 1,
          "positions": 141,
          "vessels": 30,
        },
        "gpsd-ais-raw-messages-2023": {
          "positions": 91,
          "vessels": 39,
        },
        "gpsd-ais-type6-fid55-2018": {
          "ais_gap": 108,
          "positions": 797,
          "vessels": 796,
        },
        "gpsd-ais-unpack-sixbit-2015": {
          "positions": 2,
          "vessels": 2,
        },
        "gpsd-ait250-enkhuizen-2009": {
          "positions": 61,
          "vessels": 20,
        },
        "gpsd-sample-aivdm": {
          "positions": 12,
          "system_health_change": 1,
          "vessels": 11,
        },
        "libais-tagblock-orbcomm-2014": {
          "heading_mismatch": 1,
          "positions": 3,
          "vessels": 1,
        },
        "libais-test-aivdm-uscg-2010": {
          "ais_gap": 1,
          "ais_gap_end": 1,
          "positions": 28,
          "system_health_change": 7,
          "vessels": 25,
        },
        "libais-typeexamples-uscg-2012": {
          "positions": 3,
          "vessels": 3,
        },
        "pyais-nmea-data-sample-greece": {
          "ais_gap": 4,
          "ais_gap_end": 1,
          "heading_mismatch": 4,
          "positions": 758,
          "vessels": 163,
        },
      }
    `);
  });
});
