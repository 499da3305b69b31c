import { describe, expect, it } from 'vitest';
import { compilePositionFilters, positionFilterProblems } from '../../../../delivery/positions/filters.ts';
import { LatestPositions, type HeldPosition } from '../../../../delivery/positions/latest-positions.ts';

const held = (mmsi: number, partition: number, offset: number, reportedAt: number, seenAt = 0): HeldPosition => ({ mmsi, partition, offset, lat: 55, lon: 12, reportedAt, seenAt, json: `{"mmsi":${mmsi}}` });

describe('position filters', () => {
  it('takes a box across the antimeridian and MMSIs', () => {
    const across = compilePositionFilters({ bbox: [170, -10, -170, 10] });
    expect([across(1, 0, 175), across(1, 0, -175), across(1, 0, 0), across(1, 20, 175)]).toEqual([true, true, false, false]);
    const some = compilePositionFilters({ bbox: [12, 55, 13, 56], mmsi: [7] });
    expect([some(7, 55.5, 12.5), some(8, 55.5, 12.5), some(7, 57, 12.5)]).toEqual([true, false, false]);
    expect(compilePositionFilters({})(1, -89, -179)).toBe(true);
  });

  it('says what is wrong in words', () => {
    expect(positionFilterProblems({ bbox: [0, 0, 1, 1], mmsi: [1] })).toBeUndefined();
    expect(positionFilterProblems([])).toBe('filters must be an object');
    expect(positionFilterProblems({ bbox: [0, 91, 1, 92] })).toMatch(/latitudes from -90 to 90/);
    expect(positionFilterProblems({ mmsi: [-1] })).toMatch(/filters\/mmsi\/0 must be >= 0/);
  });
});

describe('LatestPositions', () => {
  it('flushes each vessel once, its newest report, and resumes from a handle with what moved since', () => {
    const latest = new LatestPositions([10, 0], 60_000);
    latest.take(held(1, 0, 10, 1000));
    latest.take(held(1, 0, 11, 3000));
    latest.take(held(1, 0, 12, 2000)); // older by event time: moves the position only
    latest.take(held(2, 1, 0, 1000));
    expect(latest.flush(0).map((p) => [p.mmsi, p.offset])).toEqual([[1, 11], [2, 0]]);
    expect(latest.position).toEqual([13, 1]);
    expect(latest.flush(0)).toEqual([]);
    latest.take(held(2, 1, 1, 2000));
    latest.flush(0);
    expect(latest.since([13, 1]).map((p) => p.mmsi)).toEqual([2]);
    expect(latest.covers([10, 0])).toBe(true);
    expect(latest.covers([9, 5])).toBe(false);
  });

  it('forgets vessels not heard from for the maximum age', () => {
    const latest = new LatestPositions([0], 1000);
    latest.take(held(1, 0, 0, 0, 0));
    latest.take(held(2, 0, 1, 0, 5000));
    latest.flush(5500);
    expect([...latest.all()].map((p) => p.mmsi)).toEqual([2]);
  });
});
