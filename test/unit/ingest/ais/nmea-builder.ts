// Test helper: builds AIS payloads field by field and wraps them in NMEA sentences with valid
// checksums, so sentinel and edge values can be tested without hunting for real samples.

/** A field: value and width in bits (negative values are written in two's complement). */
export type Field = readonly [value: number, width: number];

const ARMOR = '0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVW`abcdefghijklmnopqrstuvw';

export function bitString(fields: readonly Field[]): string {
  return fields
    .map(([value, width]) => {
      const unsigned = value < 0 ? 2 ** width + value : value;
      return unsigned.toString(2).padStart(width, '0').slice(-width);
    })
    .join('');
}

/** 6-bit ASCII text field of `chars` characters, padded with '@'. */
export function textField(text: string, chars: number): Field[] {
  const padded = text.padEnd(chars, '@').slice(0, chars);
  return [...padded].map((c): Field => {
    const code = c.charCodeAt(0);
    return [code >= 64 ? code - 64 : code, 6];
  });
}

export function armor(fields: readonly Field[]): { payload: string; fill: number } {
  const bits = bitString(fields);
  const fill = (6 - (bits.length % 6)) % 6;
  const padded = bits + '0'.repeat(fill);
  let payload = '';
  for (let i = 0; i < padded.length; i += 6) payload += ARMOR[parseInt(padded.slice(i, i + 6), 2)];
  return { payload, fill };
}

export function checksum(body: string): string {
  let sum = 0;
  for (const c of body) sum ^= c.charCodeAt(0);
  return sum.toString(16).toUpperCase().padStart(2, '0');
}

export interface SentenceOptions {
  readonly talker?: string;
  readonly formatter?: 'VDM' | 'VDO';
  readonly total?: number;
  readonly number?: number;
  readonly sequence?: string;
  readonly channel?: string;
}

export function sentence(payload: string, fill: number, options: SentenceOptions = {}): string {
  const { talker = 'AI', formatter = 'VDM', total = 1, number = 1, sequence = '', channel = 'A' } = options;
  const body = `${talker}${formatter},${total},${number},${sequence},${channel},${payload},${fill}`;
  return `!${body}*${checksum(body)}`;
}

/** One sentence holding the whole message. */
export function message(fields: readonly Field[], options: SentenceOptions = {}): string {
  const { payload, fill } = armor(fields);
  return sentence(payload, fill, options);
}

/** The message split into `parts` sentences sharing a sequence id. */
export function fragments(fields: readonly Field[], parts: number, options: SentenceOptions = {}): string[] {
  const { payload, fill } = armor(fields);
  const size = Math.ceil(payload.length / parts);
  return Array.from({ length: parts }, (_, i) =>
    sentence(payload.slice(i * size, (i + 1) * size), i === parts - 1 ? fill : 0, { sequence: '1', ...options, total: parts, number: i + 1 }),
  );
}

export function tagBlock(fields: string, check = checksum(fields)): string {
  return `\\${fields}*${check}\\`;
}

export interface ClassAFields {
  type?: number;
  mmsi?: number;
  status?: number;
  rot?: number;
  sog?: number;
  accuracy?: number;
  lon?: number;
  lat?: number;
  cog?: number;
  heading?: number;
  second?: number;
  raim?: number;
}

/** Type 1/2/3 fields in raw ITU units (lon/lat in 1/10000 minute, SOG/COG in tenths). */
export function classA(f: ClassAFields = {}): Field[] {
  return [
    [f.type ?? 1, 6], [0, 2], [f.mmsi ?? 244660274, 30], [f.status ?? 0, 4], [f.rot ?? 0, 8], [f.sog ?? 123, 10],
    [f.accuracy ?? 1, 1], [f.lon ?? Math.round(4.5 * 600000), 28], [f.lat ?? Math.round(51.9 * 600000), 27],
    [f.cog ?? 2345, 12], [f.heading ?? 234, 9], [f.second ?? 30, 6], [0, 2], [0, 3], [f.raim ?? 0, 1], [0, 19],
  ];
}

export interface StaticVoyageFields {
  mmsi?: number;
  imo?: number;
  callsign?: string;
  name?: string;
  shipType?: number;
  dims?: readonly [number, number, number, number];
  epfd?: number;
  eta?: readonly [month: number, day: number, hour: number, minute: number];
  draught?: number;
  destination?: string;
}

/** Type 5 (424 bits). */
export function staticVoyage(f: StaticVoyageFields = {}): Field[] {
  const [bow, stern, port, starboard] = f.dims ?? [100, 20, 10, 12];
  const [month, day, hour, minute] = f.eta ?? [3, 29, 11, 0];
  return [
    [5, 6], [0, 2], [f.mmsi ?? 371255000, 30], [0, 2], [f.imo ?? 9266633, 30], ...textField(f.callsign ?? 'HP6683', 7),
    ...textField(f.name ?? 'SEA ENTERPRISE', 20), [f.shipType ?? 70, 8], [bow, 9], [stern, 9], [port, 6], [starboard, 6],
    [f.epfd ?? 1, 4], [month, 4], [day, 5], [hour, 5], [minute, 6], [f.draught ?? 14, 8],
    ...textField(f.destination ?? 'ROTTERDAM', 20), [0, 1], [0, 1],
  ];
}

/** Type 27 (96 bits), lon/lat in 1/10 minute. */
export function longRange(f: { lon?: number; lat?: number; sog?: number; cog?: number; status?: number } = {}): Field[] {
  return [
    [27, 6], [0, 2], [230000000, 30], [0, 1], [0, 1], [f.status ?? 0, 4], [f.lon ?? 14976, 18], [f.lat ?? 36096, 17],
    [f.sog ?? 12, 6], [f.cog ?? 180, 9], [0, 1], [0, 1],
  ];
}
