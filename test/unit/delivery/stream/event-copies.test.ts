import { describe, expect, it } from 'vitest';
import { CopyWindow, identityOf } from '../../../../delivery/stream/event-copies.ts';

const at = (id: string, revision = 0) => ({ id, revision });

describe('telling copies of an event from the record that first carried it', () => {
  it('takes a record of an id and revision seen within the span on its partition as a copy', () => {
    const copies = new CopyWindow(10);
    expect(copies.isCopy(0, 5, at('a'))).toBe(false);
    expect(copies.isCopy(0, 6, at('b'))).toBe(false);
    expect(copies.isCopy(0, 9, at('a'))).toBe(true);
    expect(copies.isCopy(1, 9, at('b'))).toBe(false);
  });

  it('sends a higher revision (an operator\'s change) and takes a lower one after it as a copy', () => {
    const copies = new CopyWindow(10);
    expect(copies.isCopy(0, 1, at('a', 0))).toBe(false);
    expect(copies.isCopy(0, 2, at('a', 1))).toBe(false);
    expect(copies.isCopy(0, 3, at('a', 1))).toBe(true);
    expect(copies.isCopy(0, 4, at('a', 0))).toBe(true);
    expect(copies.isCopy(0, 5, at('a', 2))).toBe(false);
  });

  it('forgets an id once more than the span of offsets separates it from its last record', () => {
    const copies = new CopyWindow(10);
    expect(copies.isCopy(0, 0, at('a'))).toBe(false);
    expect(copies.isCopy(0, 10, at('a'))).toBe(true);
    expect(copies.isCopy(0, 20, at('a'))).toBe(true);
    expect(copies.isCopy(0, 31, at('a'))).toBe(false);
    expect(copies.isCopy(0, 100, at('b'))).toBe(false);
    expect(copies.isCopy(0, 101, at('a'))).toBe(false);
  });

  it('judges a record alike whether it read the topic from the start or only the span before it', () => {
    // Ids coming back now within the span (16 offsets apart), now beyond it (50 apart).
    const records = Array.from({ length: 500 }, (_, offset) => ({ offset, id: offset % 2 === 0 ? `e${offset % 16}` : `f${offset % 50}`, revision: 0 }));
    const whole = new CopyWindow(20);
    const judged = records.map((r) => whole.isCopy(3, r.offset, r));
    const late = new CopyWindow(20);
    for (const r of records.slice(280, 300)) late.isCopy(3, r.offset, r);
    expect(records.slice(300).map((r) => late.isCopy(3, r.offset, r))).toEqual(judged.slice(300));
    expect(judged.filter(Boolean).length).toBeGreaterThan(0);
    expect(judged.filter((copy) => !copy).length).toBeGreaterThan(0);
  });

  it('never takes a record without a key, or any record with a span of 0, as a copy', () => {
    const copies = new CopyWindow(10);
    expect(copies.isCopy(0, 1, { id: undefined, revision: 0 })).toBe(false);
    expect(copies.isCopy(0, 2, { id: undefined, revision: 0 })).toBe(false);
    const off = new CopyWindow(0);
    off.isCopy(0, 1, at('a'));
    expect(off.isCopy(0, 2, at('a'))).toBe(false);
  });

  it('reads the identity from the record key and its revision header', () => {
    expect(identityOf({ key: 'evt_1', headers: { revision: '3' } })).toEqual({ id: 'evt_1', revision: 3 });
    expect(identityOf({ key: 'evt_1', headers: {} })).toEqual({ id: 'evt_1', revision: 0 });
    expect(identityOf({ key: '', headers: { revision: 'x' } })).toEqual({ id: undefined, revision: 0 });
  });
});
