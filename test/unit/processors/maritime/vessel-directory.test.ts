import { describe, expect, it } from 'vitest';
import { directoryStart, VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';

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

  it('says whether it learned something of the vessels held, from either side, until taken', () => {
    const directory = new VesselDirectory();
    for (let mmsi = 1; mmsi <= 5; mmsi++) directory.apply({ mmsi, name: `V${mmsi}` });
    expect(directory.learnedAny(new Map())).toBe(false);
    expect(directory.learnedAny(new Map([[9, {}]]))).toBe(false);
    expect(directory.learnedAny(new Map([[3, {}]]))).toBe(true);
    expect(directory.learnedAny(new Map([[1, {}], [2, {}], [6, {}], [7, {}], [8, {}], [9, {}]]))).toBe(true);
    expect(directory.learnedAny(new Map([[6, {}], [7, {}], [8, {}], [9, {}], [10, {}], [11, {}]]))).toBe(false);
    directory.takeLearned();
    expect(directory.learnedAny(new Map([[3, {}]]))).toBe(false);
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

describe('directoryStart', () => {
  const offsets = (...entries: [number, bigint][]) => new Map(entries);

  it('follows each partition from the static sink committed offset', () => {
    expect(directoryStart(offsets([0, 5n], [1, 0n]), offsets([0, 0n], [1, 0n]), offsets([0, 9n], [1, 0n]))).toEqual({ from: offsets([0, 5n], [1, 0n]) });
    // Committed at the end: nothing to follow yet, but the table is complete.
    expect(directoryStart(offsets([0, 9n]), offsets([0, 0n]), offsets([0, 9n]))).toEqual({ from: offsets([0, 9n]) });
  });

  it('starts at the log start when the committed offset fell out of the log', () => {
    expect(directoryStart(offsets([0, 3n]), offsets([0, 7n]), offsets([0, 9n]))).toEqual({ from: offsets([0, 7n]) });
  });

  it('follows a partition the static sink never committed from its start', () => {
    expect(directoryStart(offsets([0, 5n]), offsets([0, 0n], [1, 2n]), offsets([0, 9n], [1, 4n]))).toEqual({ from: offsets([0, 5n], [1, 2n]) });
  });

  it('replays the topic when it was recreated or has no partitions', () => {
    expect(directoryStart(offsets([0, 12n]), offsets([0, 0n]), offsets([0, 9n]))).toEqual({ replay: "the static sink's offset 12 is past the end 9 of partition 0" });
    expect(directoryStart(offsets(), offsets(), offsets())).toEqual({ replay: 'ais.static has no partitions' });
  });
});
