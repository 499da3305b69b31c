import { describe, expect, it } from 'vitest';
import { HEARTBEAT_INTERVAL_MS, beatAction, untilNextBeat, uptimeSeconds } from '../../../../delivery/stream/heartbeat.ts';

describe('the heartbeat schedule', () => {
  it('beats every 30 s from the moment the client connected', () => {
    expect(HEARTBEAT_INTERVAL_MS).toBe(30_000);
    expect(untilNextBeat(1_000, 1_000)).toBe(30_000);
    expect(untilNextBeat(1_000, 16_000)).toBe(15_000);
    expect(untilNextBeat(1_000, 31_000)).toBe(30_000);
    expect(untilNextBeat(1_000, 95_500)).toBe(25_500);
  });

  it('never schedules the next beat a moment after one that fired early by the wall clock', () => {
    expect(untilNextBeat(1_000, 30_999)).toBe(30_001);
    expect(untilNextBeat(1_000, 31_000)).toBe(30_000);
    // A beat that came late (a blocked process) is followed by the next boundary at least 15 s on.
    expect(untilNextBeat(1_000, 50_000)).toBe(41_000);
  });

  it('drops a client whose previous ping is unanswered at the next beat: a dead peer goes within 60 s', () => {
    expect(beatAction(false)).toBe('beat');
    expect(beatAction(true)).toBe('drop');
  });

  it('counts uptime in whole seconds', () => {
    expect(uptimeSeconds(1_000, 1_999)).toBe(0);
    expect(uptimeSeconds(1_000, 61_000)).toBe(60);
    expect(uptimeSeconds(1_000, 0)).toBe(0);
  });
});
