import { describe, expect, it } from 'vitest';
import { abandonedNote, backoffMs, drainGoesOn, nextStep, stuckReason } from '../../../platform/outbox-turns.ts';

describe('the outbox publisher loop', () => {
  it('serves a wake even while stopping, pauses while idle, and ends only when stopping with nothing asked for', () => {
    expect(nextStep(true, false)).toBe('turn');
    expect(nextStep(false, false)).toBe('pause');
    // The relay is stopped last so that it publishes what the other roles stored while they stopped.
    expect(nextStep(true, true)).toBe('turn');
    expect(nextStep(false, true)).toBe('end');
  });

  it('backs off from the first pause, doubling up to the longest (the relay: 250 ms to 30 s)', () => {
    const relay = { firstMs: 250, maxMs: 30_000 };
    expect(Array.from({ length: 10 }, (_, n) => backoffMs(n, relay))).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    // A long outage stays at the longest pause, never Infinity or NaN.
    expect(backoffMs(5_000, relay)).toBe(30_000);
    // The command senders: a flat pause at the sweep's pace.
    expect([0, 1, 7].map((n) => backoffMs(n, { firstMs: 1_000, maxMs: 1_000 }))).toEqual([1_000, 1_000, 1_000]);
  });

  it('claims another batch only after a full one, and not once stopping', () => {
    expect(drainGoesOn(1_000, 1_000, false)).toBe(true);
    expect(drainGoesOn(999, 1_000, false)).toBe(false);
    expect(drainGoesOn(0, 1_000, false)).toBe(false);
    expect(drainGoesOn(1_000, 1_000, true)).toBe(false);
    // The drone sender's claim is bounded by drones, not rows (batch size 1): it drains until a turn finds nothing.
    expect(drainGoesOn(3, 1, false)).toBe(true);
    expect(drainGoesOn(0, 1, false)).toBe(false);
  });

  it('calls a turn stuck only past its bound, with the last error', () => {
    expect(stuckReason('event relay', undefined, 100_000, 30_000, undefined)).toBeUndefined();
    expect(stuckReason('event relay', 70_000, 100_000, 30_000, undefined)).toBeUndefined();
    expect(stuckReason('event relay', 60_000, 100_000, undefined, new Error('x'))).toBeUndefined();
    expect(stuckReason('event relay', 60_000, 100_000, 30_000, new Error('broker gone'))).toBe('the event relay has not finished a turn for 40 s: broker gone');
  });

  it('reports a batch abandoned at the deadline with its rows and outbox, and a turn that had sent nothing as such', () => {
    const note = abandonedNote('event relay', 'event_outbox', 1_000);
    expect(note.fields).toEqual({ outbox: 'event_outbox', rows: 1_000 });
    expect(note.message).toMatch(/^event relay stopped at its deadline with 1000 rows of event_outbox .*stay in the outbox/);
    const idle = abandonedNote('gate command sender', 'gate_command_outbox', 0);
    expect(idle.fields).toEqual({ outbox: 'gate_command_outbox', rows: 0 });
    expect(idle.message).toMatch(/before its turn sent anything/);
  });
});
