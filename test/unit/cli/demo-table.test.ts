// Issue 34 item 7: the demo's table names what each row is about (a vessel, a gate lane, a gate, a
// component, a drone), one line per event, and the log (stack traces, expected retries) stays off it.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { demoLogSink, terminalLine } from '../../../cli/demo/demo-log.ts';
import { formatEvent, formatLockNotice, TABLE_HEADER } from '../../../cli/demo/event-table.ts';
import { healthChangeEvent } from '../../../events/system-health.ts';
import { createLogger } from '../../../platform/log.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';

const AT = '2026-11-28T14:03:07.250Z';
const base = (over: Partial<SecurityEvent>): SecurityEvent => ({
  id: 'evt_00000000000000000000000000000000', type: 'x', timestamp: AT, category: 'system', severity: 'high', source_module: 'm', source_device: '',
  title: 'a title', description: '', location: {}, metadata: {}, requires_action: false, assigned_to: '', incident_id: null, ...over,
});

describe('the demo event table', () => {
  it('names the zone and the vessel of a vessel event, with its dwell', () => {
    const row = formatEvent(base({ type: 'dwell_threshold', category: 'maritime', severity: 'medium', source_module: 'maritime.zones', location: { zone: 'Cruise terminal', lat: 55.7, lng: 12.6 }, metadata: { mmsi: 219592000, vessel_name: 'CROWN OF SCANDINAVIA', dwell_minutes: 5 } }));
    expect(row).toMatch(/^14:03:07 +\* +medium +dwell_threshold +Cruise terminal +CROWN OF SCANDINAVIA \(219592000\) dwell 5 min$/);
  });

  it('names a vessel without a name by its MMSI, never "unknown (?)"', () => {
    const row = formatEvent(base({ type: 'zone_entry', category: 'maritime', location: { zone: 'Holmen naval base' }, metadata: { mmsi: 219006221 } }));
    expect(row).toContain('unnamed vessel (219006221)');
    expect(row).not.toContain('?');
  });

  it('names the gate and lane of a gate transaction, and the truck with its decision', () => {
    const row = formatEvent(base({ type: 'gate_transaction_created', category: 'gate', source_module: 'gate', source_device: 'gate-north/lane-2', metadata: { container_id: 'MAEU8112730', vehicle_plate: 'BP 19 304', status: 'held' } }));
    expect(row).toMatch(/ gate_transaction_created +gate-north\/lane-2 +MAEU8112730 on BP 19 304 -> held$/);
  });

  it('names the gate of a gate lock', () => {
    const row = formatEvent(base({ type: 'gate_locked', category: 'gate', source_module: 'response', source_device: 'gate-north', title: 'Gate North gate locked', metadata: { gate_id: 'gate-north', command_id: 'cmd_lock_1' } }));
    expect(row).toMatch(/ gate_locked +gate-north +Gate North gate locked$/);
    expect(row).not.toContain('unknown');
  });

  it('names the component of a health change (a real one, from events/system-health.ts)', () => {
    const event = healthChangeEvent('ais_source:dma-copenhagen-replay', 'ok', { status: 'down', reason: 'no line for 95 s', since: new Date(AT), instances: [] }, 3, new Date(AT));
    const row = formatEvent(event);
    expect(row).toMatch(/ system_health_change +ais_source:dma-copenhagen-replay +AIS source dma-copenhagen-replay is down$/);
    expect(row).not.toContain('unknown');
  });

  it('treats a drone event as the drone\'s, though it carries the vessel of its mission', () => {
    const row = formatEvent(base({ type: 'mission_launched', category: 'drone', source_module: 'drones', source_device: 'drone-2', title: 'Drone drone-2 launched: inspect vessel:219006221', location: { lat: 55.68, lng: 12.6 }, metadata: { drone_id: 'drone-2', mmsi: 219006221 } }));
    expect(row).toMatch(/ mission_launched +drone-2 +Drone drone-2 launched: inspect vessel:219006221$/);
  });

  it('is one line whatever a title holds, and aligns with the header', () => {
    const row = formatEvent(base({ type: 'incident_created', source_device: 'inc_1', title: 'Incident opened:\nline two\r\nline three' }));
    expect(row.split('\n')).toHaveLength(1);
    expect(row.indexOf('incident_created')).toBe(TABLE_HEADER.indexOf('type'));
    expect(row.indexOf('inc_1')).toBe(TABLE_HEADER.indexOf('zone / gate / component'));
  });
});

describe('the demo lane\'s lock line', () => {
  const lock = { command_id: 'cmd_lock_9f', reason: 'zone_entry evt_1', issued_by: 'system:response' };

  it('names the gate of a whole-gate lock, in the table\'s columns', () => {
    const row = formatLockNotice('gate-north', { ...lock, lane: '*' }, new Date(AT));
    expect(row).toMatch(/^14:03:07 {4}/);
    expect(row.indexOf('lane locked')).toBe(TABLE_HEADER.indexOf('type'));
    expect(row.indexOf('gate-north ')).toBe(TABLE_HEADER.indexOf('zone / gate / component'));
    expect(row).toContain('trucks are turned away (cmd_lock_9f from system:response); locked until released');
  });

  it('says when a release lifted the lock', () => {
    const row = formatLockNotice('gate-north', { ...lock, lane: '*', released_by: 'op-7' }, new Date(AT));
    expect(row.indexOf('lane released')).toBe(TABLE_HEADER.indexOf('type'));
    expect(row).toContain('takes trucks again (cmd_lock_9f released by op-7)');
  });

  it('names the lane of a lane lock', () => {
    expect(formatLockNotice('gate-north', { ...lock, lane: 'lane-2' }, new Date(AT))).toContain('gate-north/lane-2                its trucks take the other lanes');
  });
});

describe('the demo log', () => {
  function demoLogger() {
    const file: string[] = [];
    const terminal: string[] = [];
    const log = createLogger('info', demoLogSink({ write: (chunk: string) => file.push(chunk) }, '/tmp/demo.log', (line) => terminal.push(line)));
    return { log, file, terminal };
  }

  it('keeps an expected retry, with its stack trace, in the file and off the terminal', () => {
    const { log, file, terminal } = demoLogger();
    log.child({ action_id: 'act_1' }).warn({ err: new Error('no drone available for mission msn_1: every drone is busy') }, 'response action failed (retry)');
    log.info('service started');
    expect(terminal).toEqual([]);
    expect(file.join('')).toContain('no drone available for mission msn_1');
    expect(file.join('')).toContain('"stack":"Error: no drone available');
  });

  it('prints an error on the terminal as one line without a stack trace, pointing at the file', () => {
    const { log, terminal } = demoLogger();
    log.error({ err: new Error('connect ECONNREFUSED 127.0.0.1:9092\n    at extra line') }, 'demo replay failed');
    expect(terminal).toEqual(['pss error: demo replay failed: connect ECONNREFUSED 127.0.0.1:9092 (details in /tmp/demo.log)']);
  });

  it('leaves anything that is not a log line alone', () => {
    expect(terminalLine('not json', '/tmp/demo.log')).toBeUndefined();
    expect(terminalLine('{"level":40,"msg":"w"}', '/tmp/demo.log')).toBeUndefined();
    expect(terminalLine('{"level":60,"msg":"f"}', '/tmp/demo.log')).toBe('pss fatal: f (details in /tmp/demo.log)');
  });

  it('writes through a pino destination as workers\' lines do', () => {
    const lines: string[] = [];
    const sink = demoLogSink(new Writable({ write: (c, _e, done) => { lines.push(String(c)); done(); } }), '/tmp/demo.log', () => undefined);
    sink.write('{"level":30,"msg":"from a worker"}\n');
    expect(lines).toEqual(['{"level":30,"msg":"from a worker"}\n']);
  });
});
