// Issue 34 item 7: the demo's replay runs in a loop until stopped, stamped on the wall clock. Bounded by
// work: the clock is simulated (ticks of the demo's 250 ms feed), never waited for.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_LOOP_MS, recordingLines } from '../../../cli/demo/demo-replay.ts';
import { LoopedRecording, type DueLine } from '../../../cli/demo/looped-recording.ts';
import { seeded } from '../../support/seeded-random.ts';

const RECORDING = recordingLines(readFileSync(new URL('../../../test/fixtures/ais/real-nmea-dma-copenhagen-oresund.txt', import.meta.url), 'latin1'));
const START = Date.parse('2026-11-28T10:00:00Z');

/** Takes at every tick from START for `ticks` ticks of `tickMs` (plus up to `jitterMs`), as the demo's feed does. */
function play(rec: LoopedRecording, ticks: number, tickMs: number, jitterMs = 0, seed = 1): Array<DueLine & { takenAt: number }> {
  const random = seeded(seed);
  const out: Array<DueLine & { takenAt: number }> = [];
  let now = START;
  for (let t = 0; t < ticks; t++) {
    now += tickMs + Math.floor(random() * jitterMs);
    for (const due of rec.take(now)) out.push({ ...due, takenAt: now });
  }
  return out;
}

describe('the demo recording on the wall clock', () => {
  it('is the whole recording, one loop in four minutes', () => {
    expect(RECORDING.length).toBe(646);
    expect(RECORDING.every((l) => l.startsWith('!AIVDM'))).toBe(true);
    expect(DEMO_LOOP_MS).toBe(240_000);
  });

  it('never stamps a line after the moment it is handed out, and stamps rise line by line', () => {
    const rec = new LoopedRecording(RECORDING, { startMs: START, loopMs: DEMO_LOOP_MS });
    const fed = play(rec, 4 * 60 * 30, 250, 40); // 30 minutes of 250 ms ticks with jitter
    expect(fed.length).toBeGreaterThan(646 * 7);
    expect(fed.filter((d) => d.stampMs > d.takenAt)).toEqual([]);
    for (let i = 1; i < fed.length; i++) {
      if (!(fed[i]!.stampMs > fed[i - 1]!.stampMs)) throw new Error(`line ${i} stamped ${fed[i]!.stampMs} after ${fed[i - 1]!.stampMs}`);
    }
  });

  it('keeps looping past ten minutes of wall time, each loop the whole recording in order', () => {
    const rec = new LoopedRecording(RECORDING, { startMs: START, loopMs: DEMO_LOOP_MS });
    const fed = play(rec, 4 * 60 * 60, 250); // an hour
    const loops = new Map<number, string[]>();
    for (const d of fed) loops.set(d.loop, [...(loops.get(d.loop) ?? []), d.line]);
    // Fifteen whole loops; the sixteenth has begun on the hour.
    expect(loops.size).toBe(16);
    for (let loop = 0; loop < 15; loop++) expect(loops.get(loop), `loop ${loop}`).toEqual(RECORDING);
    expect(loops.get(15)).toEqual(RECORDING.slice(0, 1));
    const last = fed.at(-1)!;
    expect(last.stampMs - START).toBeGreaterThan(59 * 60_000);
    // Each loop starts where the clock says, not where the previous loop's event time ran to.
    expect(rec.dueMs(14 * 646)).toBe(START + 14 * DEMO_LOOP_MS);
  });

  it('is stamped within the tick that hands a line out, so the console shows the time it prints', () => {
    const rec = new LoopedRecording(RECORDING, { startMs: START, loopMs: DEMO_LOOP_MS });
    const fed = play(rec, 2_000, 250);
    expect(Math.max(...fed.map((d) => d.takenAt - d.stampMs))).toBeLessThanOrEqual(250);
  });

  it('skips what a stall longer than a loop missed instead of feeding it late in a burst', () => {
    const rec = new LoopedRecording(RECORDING, { startMs: START, loopMs: DEMO_LOOP_MS });
    rec.take(START + 10_000);
    const after = rec.take(START + 10_000 + 3_600_000); // an hour suspended
    expect(after.length).toBeLessThanOrEqual(646);
    expect(after.length).toBeGreaterThan(640);
    expect(after.every((d) => d.stampMs <= START + 3_610_000 && d.stampMs >= START + 3_610_000 - DEMO_LOOP_MS)).toBe(true);
    const next = rec.take(START + 3_620_000);
    expect(next[0]!.stampMs).toBeGreaterThan(after.at(-1)!.stampMs);
  });

  it('refuses a loop too short to give every line a millisecond of its own', () => {
    expect(() => new LoopedRecording(RECORDING, { startMs: START, loopMs: 600 })).toThrow(RangeError);
  });
});
