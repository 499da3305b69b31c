// The mission state machine as a table: every state against every input, each applied move and each refusal.
import { describe, expect, it } from 'vitest';
import { transition, type MissionInput, type Outcome } from '../../../drones/mission-machine.ts';
import { MISSION_STATUSES, type MissionStatus } from '../../../schemas/drone.ts';

type Expect = MissionStatus | 'repeat' | 'refused';

/** For each input: the states it moves (to where), the states where it is a repeat; every other state refuses it. */
const TABLE: { name: string; input: MissionInput; hasDrone?: boolean; moves: Partial<Record<MissionStatus, MissionStatus>>; repeats?: MissionStatus[]; releases?: MissionStatus[] }[] = [
  { name: 'ack accepted', input: { kind: 'ack', result: 'accepted' }, moves: { requested: 'accepted' }, repeats: ['accepted', 'launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted', 'failed', 'timeout', 'rejected'] },
  { name: 'ack in_progress', input: { kind: 'ack', result: 'in_progress' }, moves: { requested: 'accepted' }, repeats: ['accepted', 'launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted', 'failed', 'timeout', 'rejected'] },
  { name: 'ack temporarily_rejected', input: { kind: 'ack', result: 'temporarily_rejected' }, moves: { requested: 'requested' }, releases: ['requested'] },
  { name: 'ack denied', input: { kind: 'ack', result: 'denied' }, moves: { requested: 'rejected' }, releases: ['requested'] },
  { name: 'ack failed', input: { kind: 'ack', result: 'failed' }, moves: { requested: 'failed' }, releases: ['requested'] },
  { name: 'ack cancelled', input: { kind: 'ack', result: 'cancelled' }, moves: { requested: 'failed' }, releases: ['requested'] },
  { name: 'ack without a drone', input: { kind: 'ack', result: 'accepted' }, hasDrone: false, moves: {}, repeats: ['accepted', 'launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted', 'failed', 'timeout', 'rejected'] },
  { name: 'progress launched', input: { kind: 'progress', status: 'launched' }, moves: { accepted: 'launched' }, repeats: ['launched'] },
  { name: 'progress on_station', input: { kind: 'progress', status: 'on_station' }, moves: { launched: 'on_station' }, repeats: ['on_station'] },
  { name: 'progress returning', input: { kind: 'progress', status: 'returning' }, moves: { launched: 'returning', on_station: 'returning' }, repeats: ['returning'] },
  { name: 'progress completed', input: { kind: 'progress', status: 'completed' }, moves: { on_station: 'completed', returning: 'completed' }, repeats: ['completed'], releases: ['on_station', 'returning'] },
  { name: 'progress partially_completed', input: { kind: 'progress', status: 'partially_completed' }, moves: { launched: 'partially_completed', on_station: 'partially_completed', returning: 'partially_completed' }, repeats: ['partially_completed'], releases: ['launched', 'on_station', 'returning'] },
  { name: 'progress aborted', input: { kind: 'progress', status: 'aborted' }, moves: { accepted: 'aborted', launched: 'aborted', on_station: 'aborted', returning: 'aborted' }, repeats: ['aborted'], releases: ['accepted', 'launched', 'on_station', 'returning'] },
  { name: 'progress failed', input: { kind: 'progress', status: 'failed' }, moves: { accepted: 'failed', launched: 'failed', on_station: 'failed', returning: 'failed' }, repeats: ['failed'], releases: ['accepted', 'launched', 'on_station', 'returning'] },
  { name: 'evidence', input: { kind: 'evidence' }, moves: {}, repeats: ['launched', 'on_station', 'returning', 'completed', 'partially_completed', 'aborted'] },
  { name: 'abort', input: { kind: 'abort' }, moves: { requested: 'aborted', accepted: 'aborted', launched: 'aborted', on_station: 'aborted', returning: 'aborted' }, releases: ['requested', 'accepted', 'launched', 'on_station', 'returning'] },
  { name: 'deadline', input: { kind: 'deadline' }, moves: { requested: 'timeout', accepted: 'timeout' }, releases: ['requested', 'accepted'] },
];

const summary = (o: Outcome): Expect => (o.apply ? o.to : o.repeat ? 'repeat' : 'refused');

describe('the mission state machine', () => {
  for (const row of TABLE) {
    for (const status of MISSION_STATUSES) {
      const expected: Expect = row.moves[status] ?? (row.repeats?.includes(status) ? 'repeat' : 'refused');
      it(`${row.name} in ${status}: ${expected}`, () => {
        const outcome = transition(status, row.input, row.hasDrone ?? true);
        expect(summary(outcome)).toBe(expected);
        if (outcome.apply) expect(outcome.release === true).toBe(row.releases?.includes(status) ?? false);
        if (!outcome.apply && !outcome.repeat) expect(outcome.refused).toContain(status);
      });
    }
  }

  it('every state is reachable from requested', () => {
    const reached = new Set<MissionStatus>(['requested']);
    let grew = true;
    while (grew) {
      grew = false;
      for (const row of TABLE) for (const [from, to] of Object.entries(row.moves)) if (reached.has(from as MissionStatus) && !reached.has(to)) grew = reached.add(to).size > 0;
    }
    expect([...reached].sort()).toEqual([...MISSION_STATUSES].sort());
  });
});
