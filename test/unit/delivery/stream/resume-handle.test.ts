import { describe, expect, it } from 'vitest';
import { decodeHandle, encodeHandle, laterOf, reached, topicTag } from '../../../../delivery/stream/resume-handle.ts';

describe('the resume handle', () => {
  const tag = topicTag('security.events');

  it('round-trips offsets and time, URL-safe and short enough for a close reason', () => {
    const point = { offsets: [0, 1, 127, 128, 2 ** 40, 2 ** 53 - 1], time: Date.UTC(2026, 10, 21) };
    const handle = encodeHandle(point, tag);
    expect(handle).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(handle.length).toBeLessThan(60);
    expect(decodeHandle(handle, tag, 6)).toEqual({ ok: true, point });
  });

  it('is refused for another topic, another partition count, and anything else', () => {
    const handle = encodeHandle({ offsets: [1, 2, 3], time: 5 }, tag);
    expect(decodeHandle(handle, topicTag('test-x.security.events'), 3)).toMatchObject({ ok: false, reason: expect.stringMatching(/another deployment/) });
    expect(decodeHandle(handle, tag, 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/3 partitions; the event topic has 6/) });
    for (const bad of ['', 'evt_1234', 'AAAA', handle.slice(0, -2), `${handle}AA`, 'a'.repeat(300), 'not a handle!']) {
      expect(decodeHandle(bad, tag, 3).ok).toBe(false);
    }
  });

  it('compares and combines positions per partition', () => {
    expect(reached([5, 5], [5, 4])).toBe(true);
    expect(reached([5, 3], [5, 4])).toBe(false);
    expect(laterOf({ offsets: [1, 9], time: 3 }, { offsets: [4, 2], time: 1 })).toEqual({ offsets: [4, 9], time: 3 });
  });
});
