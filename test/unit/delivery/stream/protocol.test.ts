import { describe, expect, it } from 'vitest';
import { closeReason, errorMessage, heartbeatMessage, parseClientMessage } from '../../../../delivery/stream/protocol.ts';

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

describe('what a bad client message can cost (issue 21 item 5)', () => {
  const refused = (text: string) => {
    const parsed = parseClientMessage(text);
    if (parsed.ok) throw new Error('accepted');
    return parsed;
  };

  it('refuses a list longer than its limit as one problem, before looking at its items', () => {
    const categories = Array.from({ length: 9_516 }, (_, i) => `c${i}`);
    const parsed = refused(JSON.stringify({ type: 'subscribe', filters: { categories } }));
    expect(parsed).toEqual({ ok: false, code: 'invalid_filter', message: 'filters.categories has 9516 items; at most 50' });
  });

  it('refuses a value longer than any valid one without quoting it', () => {
    const parsed = refused(JSON.stringify({ type: 'subscribe', filters: { zones: ['Z', 'x'.repeat(60_000)] } }));
    expect(parsed.message).toBe('filters.zones[1] is 60000 characters long; no valid value is longer than 200');
    expect(refused(JSON.stringify({ type: 'subscribe', filters: { categories: ['y'.repeat(1_000)] } })).message).toMatch(/no valid value is longer than 9$/);
  });

  it('lists at most ten problems, then how many more, and quotes at most 64 characters of a value', () => {
    const categories = Array.from({ length: 50 }, (_, i) => `bad${i}`);
    const many = refused(JSON.stringify({ type: 'subscribe', filters: { categories } }));
    expect(many.message.split('; valid categories').length - 1).toBe(10);
    expect(many.message).toMatch(/; and 40 more$/);
    const long = refused(JSON.stringify({ type: 'x'.repeat(10_000) }));
    expect(long.message.length).toBeLessThan(200);
    const fields = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`f${i}`, 1]));
    expect(refused(JSON.stringify({ type: 'unsubscribe', ...fields })).message).toMatch(/^unsubscribe has no field "f0", .*"f9", and 2990 more$/);
    expect(refused(JSON.stringify({ type: 'subscribe', filters: fields })).message).toBe('filters has 3000 fields; filters are categories, min_severity, zones, source_modules');
  });

  it('never sends an error message longer than 2,000 characters', () => {
    expect(JSON.parse(errorMessage('invalid_message', 'z'.repeat(100_000))).message).toHaveLength(2_003);
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
