// ISO 6346 container identification: owner code (3 letters), equipment category (U freight container,
// J detachable freight-container-related equipment, Z trailer or chassis), serial number (6 digits) and
// a check digit. The check digit is the sum of each character's value times 2^position, modulo 11, with
// 10 written as 0. Letters count from A = 10 upwards, skipping multiples of 11 (11, 22, 33).

const SHAPE = /^[A-Z]{3}[UJZ]\d{7}$/;

/** A=10, B=12, ..., K=21, L=23, ..., U=32, V=34, ... Z=38. */
const LETTER_VALUES: ReadonlyMap<string, number> = (() => {
  const values = new Map<string, number>();
  let value = 10;
  for (let code = 65; code <= 90; code++) {
    if (value % 11 === 0) value++;
    values.set(String.fromCharCode(code), value++);
  }
  return values;
})();

/** Upper-cases and removes spaces, dashes and dots, which OCR and humans put between the parts. */
export function normalizeContainerId(text: string): string {
  return text.toUpperCase().replace(/[\s.-]/g, '');
}

/** The check digit of the first ten characters (owner, category, serial) of an ISO 6346 id. */
export function checkDigit(firstTen: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const c = firstTen.charAt(i);
    const value = i < 4 ? LETTER_VALUES.get(c) : Number(c);
    if (value === undefined || Number.isNaN(value)) throw new TypeError(`"${firstTen}" is not owner code + category + serial`);
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

export type ContainerIdCheck = 'valid' | 'check_digit_invalid' | 'malformed';

/** Checks an id as read (spaces, dashes and lower case tolerated). */
export function checkContainerId(text: string): ContainerIdCheck {
  const id = normalizeContainerId(text);
  if (!SHAPE.test(id)) return 'malformed';
  return checkDigit(id.slice(0, 10)) === Number(id.charAt(10)) ? 'valid' : 'check_digit_invalid';
}
