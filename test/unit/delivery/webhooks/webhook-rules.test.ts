import { describe, expect, it } from 'vitest';
import { deliveriesFor } from '../../../../delivery/webhooks/matcher.ts';
import { matches, type WebhookFilter } from '../../../../delivery/webhooks/matching.ts';
import { eventsProblems, headersProblems, secretProblems } from '../../../../delivery/webhooks/webhook-rules.ts';
import { testEvent } from '../../../support/security-events.ts';

describe('webhook rules', () => {
  it('takes known event types or ["*"] alone', () => {
    expect(eventsProblems(['zone_entry', 'seal_violation'])).toEqual([]);
    expect(eventsProblems(['*'])).toEqual([]);
    expect(eventsProblems(['*', 'zone_entry'])).toHaveLength(1);
    expect(eventsProblems(['zone_entry', 'boat_sank'])).toEqual([{ path: '/events/1', message: expect.stringContaining('unknown event type') }]);
  });

  it('refuses the service\'s own headers, hop-by-hop headers and bad names or values', () => {
    expect(headersProblems({ Authorization: 'Bearer x', 'X-Team': 'harbour' })).toEqual([]);
    for (const name of ['Content-Type', 'user-agent', 'X-Service-Signature', 'x-service-anything', 'Connection', 'Transfer-Encoding', 'Host', 'Upgrade', 'TE']) {
      expect(headersProblems({ [name]: 'x' }), name).toHaveLength(1);
    }
    expect(headersProblems({ 'bad name': 'x' })).toHaveLength(1);
    expect(headersProblems({ 'X-Ok': 'line\r\nInjected: 1' })).toHaveLength(1);
  });

  it('wants a secret of 24 visible characters, 8 of them different', () => {
    expect(secretProblems('whsec_0123456789abcdefghij')).toEqual([]);
    expect(secretProblems('short')).toHaveLength(1);
    expect(secretProblems('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toHaveLength(1);
    expect(secretProblems('0123456789 abcdefghijklmnop')).toHaveLength(1);
  });
});

describe('matches', () => {
  const hook = (over: Partial<WebhookFilter> = {}): WebhookFilter => ({ id: 'wh_1', events: ['*'], min_severity: null, categories: null, zones: null, ...over });
  const event = testEvent('m', 1); // zone_entry, maritime, high, zone "zone_test"

  it('needs every filter to match', () => {
    expect(matches(hook(), event)).toBe(true);
    expect(matches(hook({ events: ['zone_entry'] }), event)).toBe(true);
    expect(matches(hook({ events: ['zone_exit'] }), event)).toBe(false);
    expect(matches(hook({ min_severity: 'high' }), event)).toBe(true);
    expect(matches(hook({ min_severity: 'critical' }), event)).toBe(false);
    expect(matches(hook({ categories: ['maritime'] }), event)).toBe(true);
    expect(matches(hook({ categories: ['gate'] }), event)).toBe(false);
    expect(matches(hook({ zones: ['ZONE_TEST'] }), event)).toBe(true);
    expect(matches(hook({ zones: ['other'] }), event)).toBe(false);
    expect(matches(hook({ zones: ['zone_test'] }), testEvent('m', 2, 'gate'))).toBe(false);
    expect(matches(hook({ events: ['zone_entry'], min_severity: 'critical', categories: ['maritime'] }), event)).toBe(false);
  });

  it('does not tell a webhook about its own failure', () => {
    expect(matches(hook(), { ...event, metadata: { webhook_id: 'wh_1' } })).toBe(false);
    expect(matches(hook(), { ...event, metadata: { webhook_id: 'wh_2' } })).toBe(true);
  });
});

describe('deliveriesFor', () => {
  it('gives a webhook only the events appended since it was created', () => {
    const w = { id: 'wh_new', events: ['*'], min_severity: null, categories: null, zones: null, created_ms: 1_000 };
    const older = testEvent('m', 10);
    const newer = testEvent('m', 11);
    expect(deliveriesFor([w], [{ event: older, appendedAt: 999 }, { event: newer, appendedAt: 1_000 }])).toEqual([{ webhookId: 'wh_new', event: newer }]);
  });
});
