import { describe, expect, it } from 'vitest';
import { VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';

describe('VesselDirectory', () => {
  it('merges type 24 parts and lists the vessels whose name or category changed, once', () => {
    const directory = new VesselDirectory();
    directory.apply({ mmsi: 1, name: 'PART A' });
    directory.apply({ mmsi: 1, ship_category: 'tug' });
    directory.apply({ mmsi: 2, name: 'OTHER' });
    expect(directory.get(1)).toEqual({ name: 'PART A', category: 'tug' });
    expect([...directory.takeLearned()]).toEqual([1, 2]);
    // The same static report again (every six minutes at sea) teaches nothing.
    directory.apply({ mmsi: 1, name: 'PART A', ship_category: 'tug' });
    expect([...directory.takeLearned()]).toEqual([]);
    directory.apply({ mmsi: 1, ship_category: 'cargo' });
    expect([...directory.takeLearned()]).toEqual([1]);
  });

  it('says whether it has read a topic up to given end offsets, and waits for it within a bound', async () => {
    const directory = new VesselDirectory();
    const ends = new Map([[0, 5n], [1, 0n]]);
    expect(directory.hasRead(ends)).toBe(false);
    const waiting = directory.untilRead(ends, 5_000);
    directory.readUpTo(0, 4n);
    directory.readUpTo(0, 5n);
    await expect(waiting).resolves.toBe(true);
    expect(directory.hasRead(ends)).toBe(true);
    await expect(directory.untilRead(new Map([[0, 6n]]), 20)).resolves.toBe(false);
  });
});
