import { describe, expect, it } from 'vitest';
import { PendingLastPositions } from '../../../../processors/vessels/pending-last-positions.ts';
import type { PositionRow } from '../../../../processors/vessels/position-rows.ts';

const policy = { maxAgeMs: 1_000, maxVessels: 3 };

describe('PendingLastPositions', () => {
  it('keeps the newest report of each vessel whatever the arrival order, sorted by MMSI', () => {
    const pending = new PendingLastPositions(policy);
    pending.add(row(3, '2026-11-20T10:05:00Z'), at(0, 1), 0);
    pending.add(row(1, '2026-11-20T10:02:00Z'), at(0, 2), 0);
    pending.add(row(3, '2026-11-20T10:01:00Z'), at(0, 3), 0);
    pending.add(row(1, '2026-11-20T10:02:00Z', 'later'), at(0, 4), 0);
    expect(pending.rows().map((r) => [r.mmsi, new Date(r.reportedAt).toISOString(), r.source])).toEqual([
      [1, '2026-11-20T10:02:00.000Z', 'later'],
      [3, '2026-11-20T10:05:00.000Z', 's'],
    ]);
  });

  it('is due once the oldest row has waited maxAgeMs, or when maxVessels wait', () => {
    const pending = new PendingLastPositions(policy);
    expect(pending.due(10_000)).toBe(false);
    pending.add(row(1, '2026-11-20T10:00:00Z'), at(0, 1), 100);
    pending.add(row(2, '2026-11-20T10:00:00Z'), at(0, 2), 600);
    expect(pending.due(1_099)).toBe(false);
    expect(pending.due(1_100)).toBe(true);
    const full = new PendingLastPositions(policy);
    for (const mmsi of [1, 2]) full.add(row(mmsi, '2026-11-20T10:00:00Z'), at(0, mmsi), 0);
    expect(full.due(0)).toBe(false);
    full.add(row(3, '2026-11-20T10:00:00Z'), at(0, 3), 0);
    expect(full.due(0)).toBe(true);
  });

  it('holds, per partition, the oldest record whose row is still waiting', () => {
    const pending = new PendingLastPositions(policy);
    pending.add(row(1, '2026-11-20T10:00:00Z'), at(0, 10n), 0);
    pending.add(row(2, '2026-11-20T10:00:00Z'), at(0, 12n), 0);
    pending.add(row(3, '2026-11-20T10:00:00Z'), at(1, 7n), 0);
    // Vessel 1's newer report replaces its row: offset 10 no longer needs to be re-read.
    pending.add(row(1, '2026-11-20T10:01:00Z'), at(0, 15n), 0);
    expect(pending.held().sort((a, b) => a.partition - b.partition)).toEqual([at(0, 12n), at(1, 7n)]);
  });

  it('forgets only what was written, and holds nothing once empty', () => {
    const pending = new PendingLastPositions(policy);
    pending.add(row(1, '2026-11-20T10:00:00Z'), at(0, 1n), 0);
    const written = pending.rows();
    // A newer report arriving between the read and the write stays waiting.
    pending.add(row(1, '2026-11-20T10:01:00Z'), at(0, 2n), 0);
    pending.add(row(2, '2026-11-20T10:00:00Z'), at(0, 3n), 0);
    pending.written(written);
    expect(pending.rows().map((r) => r.mmsi)).toEqual([1, 2]);
    pending.written(pending.rows());
    expect(pending.size).toBe(0);
    expect(pending.held()).toEqual([]);
    expect(pending.due(1_000_000)).toBe(false);
  });
});

function at(partition: number, offset: number | bigint) {
  return { topic: 'ais.positions', partition, offset: BigInt(offset) };
}

function row(mmsi: number, when: string, source = 's'): PositionRow {
  return { mmsi, reportedAt: Date.parse(when), source, lat: 0, lon: 0, sog: null, cog: null, heading: null, navStatus: null, msgType: 1, receivedAt: Date.parse(when) };
}
