// What the demo gate lane does with gate.commands (docs/gate.md "What lane controllers must do").
import { describe, expect, it } from 'vitest';
import { LaneLocks } from '../../../cli/demo/lane-locks.ts';
import { GATE_COMMAND_ACTIONS, type GateCommand } from '../../../schemas/gate-transaction.ts';

const STARTED = Date.parse('2026-11-28T14:00:00Z');
const LANES = ['lane-1', 'lane-2', 'lane-3'];
const command = (over: Partial<GateCommand>): GateCommand => ({
  command_id: 'cmd_1', gate: 'gate-north', lane: '*', action: 'lock', issued_at: '2026-11-28T14:05:00Z', issued_by: 'system:response', reason: 'zone_entry evt_1', ...over,
});

describe('the demo lane controller', () => {
  it('locks the lane a lock names: its trucks take the next open lane', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    expect(locks.apply(command({ command_id: 'cmd_tx_override', lane: 'lane-2', transaction_id: 'gtx_1' }))).toMatchObject({ lane: 'lane-2', command_id: 'cmd_tx_override' });
    expect(locks.isLocked('lane-2')).toBe(true);
    expect(locks.route('lane-2', LANES)).toBe('lane-3');
    expect(locks.route('lane-1', LANES)).toBe('lane-1');
    expect(locks.allLocked(LANES)).toBe(false);
  });

  it('locks every lane for "*": no lane takes a truck', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    expect(locks.apply(command({}))).toMatchObject({ lane: '*' });
    expect(LANES.map((l) => locks.route(l, LANES))).toEqual([undefined, undefined, undefined]);
    expect(locks.allLocked(LANES)).toBe(true);
    expect(locks.isLocked('lane-9')).toBe(true);
  });

  it('obeys a lock once, however often Kafka delivers it', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    expect(locks.apply(command({}))).toBeDefined();
    expect(locks.apply(command({}))).toBeUndefined();
  });

  it('leaves other gates\' commands, and a lock issued before it started (an earlier demo\'s)', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    expect(locks.apply(command({ gate: 'gate-south' }))).toBeUndefined();
    expect(locks.apply(command({ issued_at: '2026-11-28T13:59:59Z' }))).toBeUndefined();
    expect(locks.allLocked(LANES)).toBe(false);
  });

  it('stays locked through open and hold', () => {
    expect([...GATE_COMMAND_ACTIONS]).toEqual(['open', 'hold', 'lock', 'release']);
    const locks = new LaneLocks('gate-north', STARTED);
    locks.apply(command({ lane: 'lane-1', transaction_id: 'gtx_1' }));
    locks.apply(command({ command_id: 'cmd_2', lane: 'lane-1', action: 'open', transaction_id: 'gtx_2' }));
    locks.apply(command({ command_id: 'cmd_3', lane: 'lane-1', action: 'hold', transaction_id: 'gtx_3' }));
    expect(locks.isLocked('lane-1')).toBe(true);
  });

  it('takes trucks again after a release of the gate\'s lock, and a lock delivered again after it does not lock it again', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    locks.apply(command({}));
    expect(locks.apply(command({ command_id: 'cmd_release_1', action: 'release', issued_by: 'op-7', reason: 'Threat cleared by the duty officer' }))).toMatchObject({ lane: '*', command_id: 'cmd_1', released_by: 'op-7' });
    expect(locks.allLocked(LANES)).toBe(false);
    expect(LANES.map((l) => locks.route(l, LANES))).toEqual(LANES);
    // At-least-once: the lock and the release delivered again change nothing.
    expect(locks.apply(command({}))).toBeUndefined();
    expect(locks.apply(command({ command_id: 'cmd_release_1', action: 'release' }))).toBeUndefined();
    expect(locks.isLocked('lane-1')).toBe(false);
  });

  it('a release of the whole gate leaves a lane\'s own lock (an override\'s, released at the lane)', () => {
    const locks = new LaneLocks('gate-north', STARTED);
    locks.apply(command({ command_id: 'cmd_tx_override', lane: 'lane-2', transaction_id: 'gtx_1' }));
    locks.apply(command({}));
    locks.apply(command({ command_id: 'cmd_release_1', action: 'release' }));
    expect(locks.isLocked('lane-2')).toBe(true);
    expect(locks.route('lane-2', LANES)).toBe('lane-3');
  });
});
