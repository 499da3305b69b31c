import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analystExamples } from '../../../../processors/vessels/analyst-examples.ts';

describe('the analyst example queries', () => {
  const examples = analystExamples();

  it('are the five questions of issue 13, each with its question and query', () => {
    expect(examples.map((e) => e.name)).toEqual(['crossed_channel', 'longest_anchorage_stays', 'tracks_near_berth', 'events_per_zone_per_day', 'dark_in_zone']);
    for (const e of examples) {
      expect(e.question).not.toBe('');
      expect(e.sql).toMatch(/^SELECT /);
      expect(e.sql).toMatch(/;$/);
      // Analysts read the analyst schema only: every relation a query names (each with an alias) is in it.
      expect(e.sql).toMatch(/FROM analyst\./);
      expect([...e.sql.matchAll(/\b(?:FROM|JOIN)\s+([\w.]+)\s+AS\s/g)].map((m) => m[1]).filter((r) => !r!.startsWith('analyst.') && !r!.startsWith('ST_'))).toEqual([]);
    }
  });

  it('are quoted verbatim in docs/analysts.md, so what the documentation shows is what the tests run', () => {
    const doc = readFileSync(new URL('../../../../docs/analysts.md', import.meta.url), 'utf8');
    for (const e of examples) expect(doc, e.name).toContain(e.sql);
  });
});
