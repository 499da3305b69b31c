import { describe, expect, it } from 'vitest';
import { Payload } from '../../../../ingest/ais/sixbit.ts';
import { armor, textField, type Field } from './nmea-builder.ts';

function payloadOf(fields: readonly Field[]): Payload {
  const { payload, fill } = armor(fields);
  const p = new Payload();
  expect(p.append(payload, 0, payload.length)).toBe(-1);
  p.finish(fill);
  return p;
}

describe('Payload', () => {
  it('reads unsigned fields across character boundaries', () => {
    const p = payloadOf([[5, 3], [0x3fffffff, 30], [1, 1], [300, 9]]);
    expect(p.bitLength).toBe(43);
    expect([p.uint(0, 3), p.uint(3, 30), p.uint(33, 1), p.uint(34, 9)]).toEqual([5, 0x3fffffff, 1, 300]);
  });

  it('reads signed fields in two\'s complement', () => {
    const p = payloadOf([[-1, 8], [-128, 8], [127, 8], [-(181 * 600000), 28], [54600000, 27]]);
    expect([p.int(0, 8), p.int(8, 8), p.int(16, 8), p.int(24, 28), p.int(52, 27)]).toEqual([-1, -128, 127, -108600000, 54600000]);
  });

  it('ends text at the first @ and drops trailing spaces', () => {
    const p = payloadOf([...textField('SEA ENTERPRISE   ', 20), ...textField('@@J130B', 7), ...textField('A@B', 3)]);
    expect(p.text(0, 20)).toBe('SEA ENTERPRISE');
    expect(p.text(120, 7)).toBeUndefined();
    expect(p.text(162, 3)).toBe('A');
  });

  it('decodes the whole 6-bit ASCII table', () => {
    const all = '@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_ !"#$%&\'()*+,-./0123456789:;<=>?';
    const p = payloadOf(textField(all.slice(1), 63));
    expect(p.untrimmedText(0, 63)).toBe(all.slice(1));
  });

  it('reads only the characters actually present', () => {
    const p = payloadOf(textField('ROTTERDAM', 9));
    expect(p.text(0, 20)).toBe('ROTTERDAM');
  });

  it('reports the first character that is not armoring, and overflow', () => {
    const p = new Payload();
    expect(p.append('13aD|p', 0, 6)).toBe(4);
    expect(p.append('x', 0, 1)).toBe(0);
    expect(p.append('é', 0, 1)).toBe(0);
    expect(new Payload().append('0'.repeat(5000), 0, 5000)).toBe(-2);
  });
});
