import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingDeeperThan, textProblems } from '../../../../api/http/input-limits.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('nestingDeeperThan', () => {
  it('counts arrays and objects, and stops at the first level over the limit', () => {
    expect(nestingDeeperThan(bytes('[[[]]]'), 3)).toBe(false);
    expect(nestingDeeperThan(bytes('[[[[]]]]'), 3)).toBe(true);
    expect(nestingDeeperThan(bytes('{"a":{"b":[1,{"c":2}]}}'), 4)).toBe(false);
    expect(nestingDeeperThan(bytes('{"a":{"b":[1,{"c":2}]}}'), 3)).toBe(true);
    expect(nestingDeeperThan(bytes(`${'['.repeat(100_000)}`), MAX_JSON_DEPTH)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes and multi-byte characters included', () => {
    expect(nestingDeeperThan(bytes('["[[[[", "\\"[[[[", "æøå{{{{"]'), 1)).toBe(false);
    expect(nestingDeeperThan(bytes('["\\\\", [[]]]'), 2)).toBe(true);
  });
});

describe('textProblems', () => {
  it('refuses NUL and unpaired surrogates in body strings and field names, at their JSON Pointer', () => {
    const body = { name: 'a\u0000', list: ['ok', 'x\ud800'], 'a/b~\u0000': 'ok', fine: 'tab\tand 🚢 emoji' };
    expect(textProblems('body', body).map((p) => p.path)).toEqual(['/name', '/list/1', '/a~1b~0\u0000']);
  });

  it('refuses every control character in path parameters and the query', () => {
    expect(textProblems('params', { zone_id: 'zone\u0001' })).toEqual([{ location: 'params', path: '/zone_id', message: expect.stringContaining('control') }]);
    expect(textProblems('query', { search: ['ok', 'line\nbreak'] }).map((p) => p.path)).toEqual(['/search/1']);
    expect(textProblems('body', { note: 'line\nbreak' })).toEqual([]);
  });

  it('lists at most 20 problems', () => {
    expect(textProblems('body', Array.from({ length: 100 }, () => '\u0000'))).toHaveLength(20);
  });
});
