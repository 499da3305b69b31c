import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryRequest } from '../../../../delivery/webhooks/delivery-request.ts';
import { SecretBox } from '../../../../delivery/webhooks/secret-box.ts';
import { signature, verifyWebhookSignature } from '../../../../delivery/webhooks/signature.ts';
import { testEvent } from '../../../support/security-events.ts';

const SECRET = 'whsec_0123456789abcdefghijklmnop';
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('signature', () => {
  it('is HMAC-SHA256 of timestamp "." body, lowercase hex with sha256=', () => {
    const expected = createHmac('sha256', SECRET).update('1700000000.{"a":1}').digest('hex');
    expect(signature(SECRET, 1700000000, '{"a":1}')).toBe(`sha256=${expected}`);
  });

  it('verifies what it signs, and refuses changes, other secrets and old or future timestamps', () => {
    const req = deliveryRequest({ deliveryId: 'dlv_1', webhookId: 'wh_1', event: testEvent('m', 1), attempt: 1, now: NOW, secret: SECRET, customHeaders: {} });
    const check = (over: Partial<Parameters<typeof verifyWebhookSignature>[0]>) =>
      verifyWebhookSignature({ secret: SECRET, rawBody: req.body, signatureHeader: req.headers['X-Service-Signature'], timestampHeader: req.headers['X-Service-Timestamp'], nowMs: NOW, ...over });
    expect(check({})).toEqual({ ok: true });
    expect(check({ rawBody: Buffer.concat([req.body, Buffer.from(' ')]) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ secret: `${SECRET}x` })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ nowMs: NOW + 301_000 })).toEqual({ ok: false, reason: 'too_old' });
    expect(check({ nowMs: NOW + 299_000 })).toEqual({ ok: true });
    expect(check({ nowMs: NOW - 301_000 })).toEqual({ ok: false, reason: 'too_new' });
    expect(check({ signatureHeader: 'sha256=abc' })).toEqual({ ok: false, reason: 'malformed' });
    expect(check({ timestampHeader: undefined })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('carries every spec header and the spec body', () => {
    const event = testEvent('m', 2);
    const req = deliveryRequest({ deliveryId: 'dlv_2', webhookId: 'wh_2', event, attempt: 3, now: NOW, secret: SECRET, customHeaders: { 'X-Team': 'harbour' } });
    expect(req.headers).toMatchObject({
      'Content-Type': 'application/json', 'X-Service-Webhook-ID': 'wh_2', 'X-Service-Delivery-ID': 'dlv_2', 'X-Service-Event-Type': 'zone_entry',
      'X-Service-Timestamp': String(NOW / 1000), 'User-Agent': 'Service-Webhooks/1.0', 'X-Team': 'harbour',
    });
    const body = JSON.parse(req.body.toString());
    expect(Object.keys(body)).toEqual(['id', 'webhook_id', 'event', 'delivered_at', 'attempt']);
    expect(Object.keys(body.event)).toEqual(['id', 'type', 'timestamp', 'category', 'severity', 'title', 'description', 'location', 'metadata']);
    expect(body).toMatchObject({ id: 'dlv_2', webhook_id: 'wh_2', attempt: 3, delivered_at: new Date(NOW).toISOString() });
  });
});

describe('SecretBox', () => {
  it('opens what it sealed for the same webhook only, and never stores the secret in clear', () => {
    const box = new SecretBox(Buffer.alloc(32, 7).toString('base64'));
    const sealed = box.seal('wh_a', SECRET);
    expect(sealed).not.toContain(SECRET);
    expect(box.open('wh_a', sealed)).toBe(SECRET);
    expect(() => box.open('wh_b', sealed)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8).toString('base64')).open('wh_a', sealed)).toThrow();
  });

  it('during a key rotation opens what the previous key sealed, says so, and seals only under the new key', () => {
    const oldKey = Buffer.alloc(32, 7).toString('base64');
    const newKey = Buffer.alloc(32, 8).toString('base64');
    const underOld = new SecretBox(oldKey).seal('wh_a', SECRET);
    const rotating = new SecretBox(newKey, oldKey);
    expect(rotating.openWith('wh_a', underOld)).toEqual({ secret: SECRET, current: false });
    const underNew = rotating.seal('wh_a', SECRET);
    expect(rotating.openWith('wh_a', underNew)).toEqual({ secret: SECRET, current: true });
    expect(new SecretBox(newKey).open('wh_a', underNew)).toBe(SECRET);
    expect(() => new SecretBox(oldKey).open('wh_a', underNew)).toThrow();
    // Neither key: still refused, and the previous key does not open another webhook's value.
    expect(() => new SecretBox(Buffer.alloc(32, 9).toString('base64'), oldKey).open('wh_a', new SecretBox(newKey).seal('wh_a', SECRET))).toThrow();
    expect(() => rotating.open('wh_b', underOld)).toThrow();
  });
});
