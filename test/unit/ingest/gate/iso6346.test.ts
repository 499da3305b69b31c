import { describe, expect, it } from 'vitest';
import { checkContainerId, checkDigit, normalizeContainerId } from '../../../../ingest/gate/iso6346.ts';

describe('ISO 6346 container ids', () => {
  it('accepts real container ids with their published check digits', () => {
    // CSQU3054383 is the standard's worked example; MSKU9070323 a Maersk box.
    expect(checkContainerId('CSQU3054383')).toBe('valid');
    expect(checkContainerId('MSKU9070323')).toBe('valid');
  });

  it('computes the check digit by hand: letters skip multiples of 11, weights are powers of two', () => {
    // M=24 S=30 K=21 U=32 (K is 21 because 22 is skipped) -> 24+60+84+256 + 9*16+0+7*64+0+3*256+2*512 = 2808 -> 2808 mod 11 = 3
    expect(checkDigit('MSKU907032')).toBe(3);
    expect(checkDigit('CSQU305438')).toBe(3);
  });

  it('writes a remainder of 10 as check digit 0', () => {
    // C=13 S=30 Q=28 U=32, serial 300014: 13+60+112+256 + 3*16 + 1*256 + 4*512 = 2793 = 11*253 + 10
    expect(checkDigit('CSQU300014')).toBe(0);
    expect(checkContainerId('CSQU3000140')).toBe('valid');
  });

  it('flags a wrong check digit without calling the id malformed', () => {
    expect(checkContainerId('CSQU3054384')).toBe('check_digit_invalid');
    expect(checkContainerId('MSKU9070320')).toBe('check_digit_invalid');
  });

  it('tolerates what OCR and people put in between, and lower case', () => {
    expect(normalizeContainerId('csqu 305438-3')).toBe('CSQU3054383');
    expect(checkContainerId('CSQU 305438 3')).toBe('valid');
    expect(checkContainerId('msku.907032.3')).toBe('valid');
  });

  it('calls anything else malformed: wrong category, short serial, letters in the serial', () => {
    for (const id of ['CSQX3054383', 'CSQU305438', 'CSQU30543833', 'CSQU3O54383', 'C5QU3054383', '', '???']) {
      expect(checkContainerId(id), id).toBe('malformed');
    }
    // J and Z are equipment categories too
    expect(checkContainerId(`CSQJ305438${checkDigit('CSQJ305438')}`)).toBe('valid');
    expect(checkContainerId(`CSQZ305438${checkDigit('CSQZ305438')}`)).toBe('valid');
  });
});
