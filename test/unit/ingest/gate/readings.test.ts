import { describe, expect, it } from 'vitest';
import { processGateItem } from '../../../../ingest/gate/readings.ts';
import { compileSchema } from '../../../../ingest/validation.ts';
import { topicNames } from '../../../../platform/topics.ts';
import { deadLetterSchema, type DeadLetter } from '../../../../schemas/dead-letter.ts';
import { gateReadingRecordSchema } from '../../../../schemas/gate-reading.ts';
import { reading } from '../../../support/gate-readings.ts';
import { jsonCodec, valueOf } from '../../../support/codec.ts';

const NOW = Date.UTC(2025, 2, 1, 8, 30);
const ctx = { topics: topicNames(''), codec: jsonCodec, source: 'http:key_1', maxItemBytes: 65_536, now: () => NOW };
const validRecord = compileSchema(gateReadingRecordSchema);
const validLetter = compileSchema(deadLetterSchema);

describe('gate readings', () => {
  it('accepts a full lane reading, keyed by gate, with source, receive time and no findings', () => {
    const outcome = processGateItem(reading(), ctx);
    expect(outcome.accepted).toBe(true);
    if (!outcome.accepted) return;
    expect(outcome.record.topic).toBe('gate.readings');
    expect(outcome.record.key).toBe('gate-north');
    const value = valueOf(outcome.record);
    expect(value).toMatchObject({ reading_id: 'rd-0001', source: 'http:key_1', received_at: new Date(NOW).toISOString(), findings: [] });
    expect(validRecord(value)).toBe(true);
  });

  it('keeps a container id with a wrong check digit and reports the finding', () => {
    const outcome = processGateItem(reading({ container: { id: 'CSQU3054384', ocr_confidence: 0.55 } }), ctx);
    expect(outcome.accepted && outcome.reading.findings).toEqual(['container_check_digit_invalid']);
  });

  it('reports OCR text that is not an ISO 6346 id as malformed, still accepted', () => {
    const outcome = processGateItem(reading({ container: { id: 'C5QU3O54' } }), ctx);
    expect(outcome.accepted && outcome.reading.findings).toEqual(['container_id_malformed']);
  });

  it('accepts a bobtail (vehicle, no container) and a container-only reading, but not neither', () => {
    const { container: _c, ...bobtail } = reading();
    const { vehicle: _v, ...containerOnly } = reading();
    const { vehicle: _v2, container: _c2, ...nothing } = reading();
    expect(processGateItem(bobtail, ctx).accepted).toBe(true);
    expect(processGateItem(containerOnly, ctx).accepted).toBe(true);
    expect(processGateItem(nothing, ctx).accepted).toBe(false);
  });

  it('dead-letters a structurally wrong reading with the reason and what is wrong', () => {
    const bad = { ...reading(), vehicle: { plate: 'X', plate_confidence: 1.7 }, lane: undefined, colour: 'red' };
    const outcome = processGateItem(bad, ctx);
    expect(outcome.accepted).toBe(false);
    if (outcome.accepted) return;
    expect(outcome.reason).toBe('reading_invalid');
    expect(outcome.detail).toContain('/lane is required');
    expect(outcome.detail).toContain('/vehicle/plate_confidence must be <= 1');
    expect(outcome.detail).toContain('/colour is not an allowed field');
    expect(outcome.record).toMatchObject({ topic: 'ingest.deadletter', key: 'http:key_1' });
    const letter = valueOf(outcome.record) as DeadLetter;
    expect(validLetter(letter)).toBe(true);
    expect(letter).toMatchObject({ feed: 'gate', reason: 'reading_invalid', source: 'http:key_1' });
    expect(JSON.parse(letter.raw[0]!)).toMatchObject({ colour: 'red' });
  });

  it('dead-letters raw-topic text that is not JSON as invalid_json, raw text kept', () => {
    const outcome = processGateItem('{"gate": "g1", ', ctx);
    expect(outcome.accepted).toBe(false);
    if (outcome.accepted) return;
    expect(outcome.reason).toBe('invalid_json');
    expect((valueOf(outcome.record) as DeadLetter).raw).toEqual(['{"gate": "g1", ']);
  });

  it('dead-letters a reading over the size bound as record_too_large before parsing it, truncated (regression: a 2 MB reading stalled the ingest)', () => {
    for (const item of [reading({ lane: 'x'.repeat(2_000_000) }), JSON.stringify(reading({ lane: 'x'.repeat(2_000_000) }))]) {
      const outcome = processGateItem(item, ctx);
      expect(outcome).toMatchObject({ accepted: false, reason: 'record_too_large', detail: expect.stringContaining('at most 65536') });
      expect(outcome.record.value.length).toBeLessThan(16 * 1024);
      expect(valueOf(outcome.record)).toMatchObject({ feed: 'gate', reason: 'record_too_large', truncated: true, raw_bytes: JSON.stringify(reading({ lane: 'x'.repeat(2_000_000) })).length });
    }
  });

  it('checks the image types, URLs and confidences of the spec', () => {
    expect(processGateItem(reading({ inspection: { images: [{ type: 'roof' as 'front', url: 'https://x.example/1.jpg', captured_at: '2025-03-01T08:29:57Z' }] } }), ctx).accepted).toBe(false);
    expect(processGateItem(reading({ vehicle: { plate_image_url: 'not a url' } }), ctx).accepted).toBe(false);
    expect(processGateItem(reading({ container: { seal: { confidence: -0.1 } } }), ctx).accepted).toBe(false);
    expect(processGateItem(reading({ container: { iso_type: '22g1' } }), ctx).accepted).toBe(false);
  });

  /** The reading with `url` as the evidence URL at `at` (one of the five places a reading holds one). */
  const withUrl = (at: string, url: string) => {
    const r = reading();
    const base = r as { vehicle: Record<string, unknown>; container: { seal: Record<string, unknown> } & Record<string, unknown>; inspection: { damage_regions: Record<string, unknown>[]; images: Record<string, unknown>[] } };
    if (at === '/vehicle/plate_image_url') base.vehicle.plate_image_url = url;
    if (at === '/container/ocr_image_url') base.container.ocr_image_url = url;
    if (at === '/container/seal/seal_image_url') base.container.seal.seal_image_url = url;
    if (at === '/inspection/damage_regions/0/image_url') base.inspection.damage_regions[0]!.image_url = url;
    if (at === '/inspection/images/0/url') base.inspection.images[0]!.url = url;
    return r;
  };
  const URL_PLACES = ['/vehicle/plate_image_url', '/container/ocr_image_url', '/container/seal/seal_image_url', '/inspection/damage_regions/0/image_url', '/inspection/images/0/url'];

  it('dead-letters an evidence URL of any scheme but http(s) as reading_invalid, naming the field (regression: javascript: was served back)', () => {
    const schemes = ['javascript:alert(document.domain)', 'JavaScript://%0aalert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'ftp://cams.example/1.jpg', 'vbscript:msgbox(1)'];
    for (const at of URL_PLACES) {
      for (const url of schemes) {
        const outcome = processGateItem(withUrl(at, url), ctx);
        expect(outcome, `${at} = ${url}`).toMatchObject({ accepted: false, reason: 'reading_invalid', detail: expect.stringContaining(`${at} must match pattern`) });
      }
    }
  });

  it('accepts http and https evidence URLs, the scheme in any case', () => {
    for (const at of URL_PLACES) {
      for (const url of ['http://10.0.0.7/cam/1.jpg', 'https://cams.example/x.jpg?t=1', 'HTTPS://CAMS.EXAMPLE/X.JPG']) {
        const outcome = processGateItem(withUrl(at, url), ctx);
        expect(outcome.accepted, `${at} = ${url}`).toBe(true);
        if (outcome.accepted) expect(validRecord(valueOf(outcome.record)), `${at} = ${url} in gate.readings`).toBe(true);
      }
    }
  });
});
