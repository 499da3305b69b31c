import { describe, expect, it } from 'vitest';
import { deadLetter } from '../../../ingest/dead-letter.ts';
import { compileSchema } from '../../../ingest/validation.ts';
import { DEAD_LETTER_RAW_MAX_CHARS, deadLetterSchema, type DeadLetter } from '../../../schemas/dead-letter.ts';

const letter = (raw: string[], detail = 'why'): DeadLetter => ({ feed: 'ais', raw, source: 'feed-1', reason: 'malformed_sentence', detail, at: '2024-01-01T00:00:00.000Z' });
const valid = compileSchema(deadLetterSchema);

describe('dead letters', () => {
  it('keep ordinary input whole, with no size fields', () => {
    const out = deadLetter(letter(['!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05']));
    expect(out).toEqual(letter(['!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05']));
    expect(valid(out)).toBe(true);
  });

  it('cut raw input of any size to its bound and note the whole size (regression: a 2 MB line made a 2 MB record Kafka refused)', () => {
    const out = deadLetter(letter(['a'.repeat(3_000), 'b'.repeat(2_000_000), 'c']));
    expect(out.raw).toEqual(['a'.repeat(3_000), 'b'.repeat(DEAD_LETTER_RAW_MAX_CHARS - 3_000)]);
    expect(out).toMatchObject({ truncated: true, raw_bytes: 2_003_001 });
    expect(JSON.stringify(out).length).toBeLessThan(DEAD_LETTER_RAW_MAX_CHARS + 512);
    expect(valid(out)).toBe(true);
  });

  it('cut an overlong detail', () => {
    expect(deadLetter(letter(['x'], 'd'.repeat(100_000))).detail.length).toBe(1_024);
  });
});
