import { describe, expect, it } from 'vitest';
import { parseTagBlock } from '../../../../ingest/ais/tag-block.ts';
import { tagBlock } from './nmea-builder.ts';

const SENTENCE = '!AIVDM,1,1,,B,13aDp<PP000IwSlN?Wm@0?wN2<1T,0*29';

describe('parseTagBlock', () => {
  it('reads source, time and group, and where the sentence starts', () => {
    const line = `${tagBlock('g:1-2-3985,s:rEV02,c:1334337317')}${SENTENCE}`;
    const block = parseTagBlock(line, true);
    expect(block).toEqual({ failed: false, station: 'rEV02', timeMs: 1334337317_000, group: { number: 1, total: 2, id: '3985' }, end: line.indexOf('!') });
  });

  it('reads c: in milliseconds as well as seconds', () => {
    expect(parseTagBlock(`${tagBlock('c:1635731889123')}${SENTENCE}`, true)).toMatchObject({ timeMs: 1635731889123 });
  });

  it('ignores fields it does not use (t:, d:, vendor T: and q:)', () => {
    const line = `${tagBlock('s:rORBCOMM104,q:u,c:1418172113,T:2014-12-10 00.41.53,t:hello,d:x')}${SENTENCE}`;
    expect(parseTagBlock(line, true)).toMatchObject({ failed: false, station: 'rORBCOMM104', timeMs: 1418172113_000 });
  });

  it('rejects a wrong or missing checksum when strict, and reads the fields when lenient', () => {
    const wrong = `${tagBlock('c:1420030798', '00')}${SENTENCE}`;
    const missing = `\\c:1420030798\\${SENTENCE}`;
    expect(parseTagBlock(wrong, true)).toMatchObject({ failed: true, reason: 'bad_tag_block' });
    expect(parseTagBlock(missing, true)).toMatchObject({ failed: true, reason: 'bad_tag_block', detail: 'tag block has no checksum' });
    expect(parseTagBlock(wrong, false)).toMatchObject({ failed: false, timeMs: 1420030798_000 });
    expect(parseTagBlock(missing, false)).toMatchObject({ failed: false, timeMs: 1420030798_000 });
  });

  it('rejects an unterminated tag block even when lenient', () => {
    expect(parseTagBlock('\\c:1420030798*5B!AIVDM', false)).toMatchObject({ failed: true, reason: 'bad_tag_block' });
  });

  it('rejects malformed fields when strict and skips them when lenient', () => {
    const line = `${tagBlock('c:soon,g:x,junk')}${SENTENCE}`;
    expect(parseTagBlock(line, true)).toMatchObject({ failed: true, reason: 'bad_tag_block' });
    expect(parseTagBlock(line, false)).toMatchObject({ failed: false, timeMs: undefined, group: undefined });
  });
});
