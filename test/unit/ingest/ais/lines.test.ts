import { describe, expect, it } from 'vitest';
import { createLineSplitter } from '../../../../ingest/ais/lines.ts';

describe('createLineSplitter', () => {
  it('splits on LF, CRLF and lone CR, dropping empty lines', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('a\nb\r\nc\rd\r\n\r\n\ne')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitter.flush()).toEqual(['e']);
  });

  it('keeps a line that spans chunks', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('!AIVDM,1,1,')).toEqual([]);
    expect(splitter.push(',B,13aD*29\n!AI')).toEqual(['!AIVDM,1,1,,B,13aD*29']);
    expect(splitter.flush()).toEqual(['!AI']);
  });

  it('treats a CR at the end of a chunk and an LF at the start of the next as one break', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('one\r')).toEqual(['one']);
    expect(splitter.push('')).toEqual([]);
    expect(splitter.push('\ntwo\r')).toEqual(['two']);
    expect(splitter.push('three\n')).toEqual(['three']);
  });

  it('hands on an endless line once it passes the length limit instead of buffering it, and skips the rest of it', () => {
    const splitter = createLineSplitter(10);
    expect(splitter.push('0123456789ABC')).toEqual(['0123456789ABC']);
    expect(splitter.push('x'.repeat(100))).toEqual([]);
    expect(splitter.push('xyz\nnext\n')).toEqual(['next']);
  });
});
