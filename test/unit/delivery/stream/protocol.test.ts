import { describe, expect, it } from 'vitest';
import { closeReason, heartbeatMessage, parseClientMessage } from '../../../../delivery/stream/protocol.ts';

describe('client messages', () => {
  it('parses the four client messages', () => {
    expect(parseClientMessage('{"type":"auth","token":"svc_test_x"}')).toEqual({ ok: true, message: { type: 'auth', token: 'svc_test_x' } });
    expect(parseClientMessage('{"type":"subscribe"}')).toEqual({ ok: true, message: { type: 'subscribe', filters: {} } });
    expect(parseClientMessage('{"type":"subscribe","filters":{"categories":["gate"],"min_severity":"high","zones":["Z"],"source_modules":["m"]},"resume":"AQ"}')).toEqual({
      ok: true,
      message: { type: 'subscribe', filters: { categories: ['gate'], min_severity: 'high', zones: ['Z'], source_modules: ['m'] }, resume: 'AQ' },
    });
    expect(parseClientMessage('{"type":"update_filters","filters":{}}')).toEqual({ ok: true, message: { type: 'update_filters', filters: {} } });
    expect(parseClientMessage('{"type":"unsubscribe"}')).toEqual({ ok: true, message: { type: 'unsubscribe' } });
  });

  it('names the valid categories for an unknown one (spec "Errors": invalid_filter)', () => {
    const parsed = parseClientMessage('{"type":"subscribe","filters":{"categories":["gate","weather"]}}');
    expect(parsed).toEqual({ ok: false, code: 'invalid_filter', message: 'unknown category "weather"; valid categories are gate, perimeter, maritime, drone, system, decision' });
  });

  it('lists every bad filter at once', () => {
    const parsed = parseClientMessage('{"type":"update_filters","filters":{"min_severity":"urgent","zone":"Z","zones":"Z","source_modules":[""]}}');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.code).toBe('invalid_filter');
    expect(parsed.message).toContain('unknown min_severity "urgent"; valid severities are low, medium, high, critical');
    expect(parsed.message).toContain('unknown filter "zone"; filters are categories, min_severity, zones, source_modules');
    expect(parsed.message).toContain('filters/zones must be array');
    expect(parsed.message).toContain('filters/source_modules/0 must NOT have fewer than 1 characters');
  });

  it('refuses what is not a client message, saying what is expected', () => {
    const cases: [string, RegExp][] = [
      ['{', /not JSON/],
      ['"subscribe"', /JSON object/],
      ['null', /JSON object/],
      ['{"filters":{}}', /unknown message type null; client messages are auth, subscribe, update_filters, unsubscribe/],
      ['{"type":"hello"}', /unknown message type "hello"/],
      ['{"type":"subscribe","filter":{}}', /subscribe has no field "filter"; its fields are filters, resume/],
      ['{"type":"update_filters"}', /update_filters needs filters/],
      ['{"type":"unsubscribe","now":true}', /unsubscribe has no field "now"$/],
      ['{"type":"auth","token":""}', /non-empty string "token"/],
      ['{"type":"subscribe","resume":7}', /resume handle/],
    ];
    for (const [text, message] of cases) {
      const parsed = parseClientMessage(text);
      expect(parsed, text).toMatchObject({ ok: false, code: 'invalid_message', message: expect.stringMatching(message) });
    }
    expect(parseClientMessage('{"type":"subscribe","filters":[]}')).toMatchObject({ ok: false, code: 'invalid_filter', message: 'filters must be an object' });
  });
});

describe('server messages', () => {
  it('heartbeat carries the spec fields', () => {
    expect(JSON.parse(heartbeatMessage(Date.UTC(2026, 0, 1), 12, 90, 'AQ'))).toEqual({ type: 'heartbeat', timestamp: '2026-01-01T00:00:00.000Z', events_sent: 12, connection_uptime_seconds: 90, resume: 'AQ' });
  });

  it('close reasons fit the protocol\'s 123 bytes and keep the whole resume handle', () => {
    const handle = 'A'.repeat(50);
    const reason = closeReason('é'.repeat(100), handle);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(reason.endsWith(` resume=${handle}`)).toBe(true);
    expect(reason).not.toContain('\uFFFD');
    expect(closeReason('slow consumer')).toBe('slow consumer');
  });
});
