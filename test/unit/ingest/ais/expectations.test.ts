// Decoding checked against every published expectation record (gpsd, libais, pyais; see
// test/fixtures/ais/NOTICE). Sentinel values in the expectations ("not available") must come out as
// absent fields; every other difference is a named, counted convention below, never a silent skip.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { FIXTURES } from './fixtures.ts';

interface ExpectationRecord {
  id: string;
  source_repo: string;
  sentences: string[];
  expected: Record<string, unknown>;
  payload_msg_type: number;
  tolerance: { latlon_deg: number; sog_kn: number; cog_deg: number };
  compare_rounded_to_decimals?: Record<string, number>;
  pyais_asserted_truthy?: string[];
  caveats?: string[];
}

const { records } = JSON.parse(readFileSync(new URL('decoded-expectations.json', FIXTURES), 'utf8')) as { records: ExpectationRecord[] };

const DECODED_TYPES = new Set([1, 2, 3, 4, 5, 18, 19, 21, 24, 27]);

/** Records our decoder deliberately treats differently from the source decoder, by id. */
const REJECTED_ON_PURPOSE: Readonly<Record<string, string>> = {
  // Message type 0 is not defined by ITU-R M.1371; pyais decodes it as a position report.
  'pyais-0004': 'invalid_type',
  // The checksum is wrong (67 given, 57 computed); pyais does not check it by default.
  'pyais-0005': 'bad_checksum',
};

/** libais's 6-bit text table maps 31 to '-' and 39 to '`'; ITU-R M.1371 table 47 has '_' and "'". */
const ITU_TEXT_OVERRIDES: Readonly<Record<string, Record<string, string>>> = {
  'libais-typeexamples.nmea-0020': { name: "9%&//3*37_+P]['<RD^6" },
};

/** Fields that describe another sentence (gpsd merges type 24 parts) or types we do not decode. */
const NOT_FROM_THIS_SENTENCE = /_from_part_[ab]$/;

type Flat = Record<string, unknown>;

function decode(record: ExpectationRecord): AisDecodeResult[] {
  // A receive time after every recording (the libais tag blocks are from 2014): event times more than
  // 5 minutes after it would be rejected as future_timestamp. A leap year, so a 29 February ETA exists.
  const decoder = createAisDecoder({ source: 'expectations', now: () => Date.UTC(2024, 0, 1) });
  return record.sentences.flatMap((s) => decoder.push(s));
}

/** Position and static halves of a type 19 are merged, so one record maps to one object. */
function merge(results: AisDecodeResult[]): Flat {
  return Object.assign({}, ...results) as Flat;
}

const numberOrUndefined = (v: unknown): number | undefined => (v === null || v === undefined || v === '' ? undefined : Number(v));

/**
 * Turns an expected (source) value into what our decoder must produce: sentinels and out-of-range
 * values become undefined. Returns [our field name, expected value].
 */
function normalise(key: string, value: unknown, e: Flat, msgType: number): [string, unknown] {
  const n = numberOrUndefined(value);
  switch (key) {
    case 'lat':
    case 'lon':
      // 91 / 181 are "not available"; real type 4/27 senders also transmit impossible positions.
      return [key, Math.abs(Number(e.lat)) > 90 || Math.abs(Number(e.lon)) > 180 ? undefined : n];
    case 'sog':
      return [key, n === 102.3 || (msgType === 27 && n === 63) ? undefined : n];
    case 'cog':
      return [key, n !== undefined && n >= 360 ? undefined : n];
    case 'heading':
      return [key, n !== undefined && n >= 360 ? undefined : n];
    case 'nav_status':
      return [key, n === 15 ? undefined : n];
    case 'rot_raw':
      return [key, n === -128 ? undefined : n];
    case 'second':
      return ['utc_second', n !== undefined && n >= 60 ? undefined : n];
    case 'accuracy':
      return ['position_accuracy', value === true || value === 1];
    case 'raim':
      return [key, value === true || value === 1];
    case 'imo':
    case 'ship_type':
    case 'epfd':
    case 'aid_type':
    case 'draught':
      return [key, n === 0 ? undefined : n];
    case 'name':
    case 'callsign':
    case 'destination':
      // gpsd ends text at the first '@' (as we do) and prints "" for a field that starts with one.
      return [key, value === '' ? undefined : value];
    case 'to_bow':
    case 'to_stern':
    case 'to_port':
    case 'to_starboard':
      // All four zero = reference point not available; pyais asserts `false` for that case.
      return [key, [e.to_bow, e.to_stern, e.to_port, e.to_starboard].every((v) => v === 0 || v === false) ? undefined : n];
    case 'partno':
      return ['part', value === 0 ? 'A' : 'B'];
    default:
      return [key, value];
  }
}

function toleranceFor(key: string, record: ExpectationRecord): number {
  if (key === 'lat' || key === 'lon') return record.tolerance.latlon_deg;
  if (key === 'sog') return record.tolerance.sog_kn;
  if (key === 'cog') return record.tolerance.cog_deg;
  if (key === 'draught') return 1e-9;
  return 0;
}

function matches(key: string, ours: unknown, expected: unknown, record: ExpectationRecord): boolean {
  if (typeof expected !== 'number' || typeof ours !== 'number') return ours === expected;
  const decimals = record.compare_rounded_to_decimals?.[key];
  const value = decimals === undefined ? ours : Math.round(ours * 10 ** decimals) / 10 ** decimals;
  return Math.abs(value - expected) <= toleranceFor(key, record) + 1e-12;
}

/** ETA "MM-DDTHH:MMZ" (gpsd); month 0, day 0, hour 24 or minute 60 mean not available. */
function compareEta(expected: string, ours: unknown): boolean {
  const [, month, day, hour, minute] = /^(\d\d)-(\d\d)T(\d\d):(\d\d)Z$/.exec(expected) ?? [];
  const unavailable = month === '00' || day === '00' || Number(hour) > 23 || Number(minute) > 59;
  if (unavailable) return ours === undefined;
  return typeof ours === 'string' && ours.slice(5, 16) === `${month}-${day}T${hour}:${minute}`;
}

/** Type 4 clock fields compared with station_time; any unavailable part makes station_time absent. */
function compareStationTime(e: Flat, ours: unknown): boolean {
  const parts = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
  const limits = { year: [1, 9999], month: [1, 12], day: [1, 31], hour: [0, 23], minute: [0, 59], second: [0, 59] } as const;
  const unavailable = parts.some((p) => e[p] !== undefined && (Number(e[p]) < limits[p][0] || Number(e[p]) > limits[p][1]));
  if (unavailable) return ours === undefined;
  if (typeof ours !== 'string') return false;
  const date = new Date(ours);
  const actual = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds() };
  return parts.every((p) => e[p] === undefined || Number(e[p]) === actual[p]);
}

/** gpsd scaled "turn": "n/a", "fastleft"/"fastright" (ROT_AIS -127/127) or deg/min; pyais: -128 = n/a. */
function compareTurn(value: unknown, ours: Flat): boolean {
  if (value === 'n/a' || value === null || value === -128) return ours.rot_raw === undefined;
  if (value === 'fastleft') return ours.rot_raw === -127 && ours.rot === undefined;
  if (value === 'fastright') return ours.rot_raw === 127 && ours.rot === undefined;
  return typeof ours.rot === 'number' && Math.abs(ours.rot - Number(value)) <= 0.05;
}

interface Tally {
  decoded: number;
  skipped: number;
  rejectedOnPurpose: number;
  fields: Record<string, number>;
  otherPart: number;
  notDecodedFields: number;
  failures: string[];
}

function compareDecoded(record: ExpectationRecord, results: AisDecodeResult[], tally: Tally): void {
  const ours = merge(results);
  const e = record.expected;
  const kinds = results.map((r) => r.kind);
  if (!kinds.every((k) => k === 'position' || k === 'static' || k === 'non_vessel')) {
    tally.failures.push(`${record.id}: expected a report, got ${JSON.stringify(results.map((r) => (r.kind === 'reject' ? r.detail : r.kind)))}`);
    return;
  }
  const msgType = record.payload_msg_type;
  for (const [key, value] of Object.entries(e)) {
    let ok: boolean;
    let field = key;
    if (NOT_FROM_THIS_SENTENCE.test(key) || key === 'name_from_part_a') {
      tally.otherPart++;
      continue;
    } else if (key === 'eta') {
      ok = compareEta(String(value), ours.eta);
    } else if (msgType === 4 && ['year', 'month', 'day', 'hour', 'minute', 'second'].includes(key)) {
      field = 'station_time';
      ok = compareStationTime(e, ours.station_time);
    } else if (key === 'turn_gpsd' || key === 'turn_pyais') {
      field = 'rot';
      ok = compareTurn(value, ours);
    } else {
      const [name, expected] = normalise(key, value, e, msgType);
      field = name;
      const override = ITU_TEXT_OVERRIDES[record.id]?.[key];
      ok = matches(name, ours[name], override ?? expected, record);
    }
    tally.fields[field] = (tally.fields[field] ?? 0) + 1;
    if (!ok) tally.failures.push(`${record.id} ${key}: expected ${JSON.stringify(value)}, decoded ${JSON.stringify(ours[field])}`);
  }
  for (const key of record.pyais_asserted_truthy ?? []) {
    if (!ours[key]) tally.failures.push(`${record.id} ${key}: pyais asserts a truthy value, decoded ${JSON.stringify(ours[key])}`);
  }
  tally.decoded++;
}

function compareSkipped(record: ExpectationRecord, results: AisDecodeResult[], tally: Tally): void {
  const [result] = results;
  const e = record.expected;
  const ok = results.length === 1 && result?.kind === 'skip' && result.reason === 'unsupported_type'
    && result.msg_type === record.payload_msg_type && (e.mmsi === undefined || result.mmsi === e.mmsi);
  if (!ok) tally.failures.push(`${record.id}: expected an unsupported_type skip, got ${JSON.stringify(results)}`);
  tally.notDecodedFields += Object.keys(e).filter((k) => k !== 'mmsi' && k !== 'msg_type').length;
  tally.skipped++;
}

function runAll(): Tally {
  const tally: Tally = { decoded: 0, skipped: 0, rejectedOnPurpose: 0, fields: {}, otherPart: 0, notDecodedFields: 0, failures: [] };
  for (const record of records) {
    const results = decode(record);
    const purpose = REJECTED_ON_PURPOSE[record.id];
    if (purpose !== undefined) {
      const [result] = results;
      if (results.length !== 1 || result?.kind !== 'reject' || result.reason !== purpose) tally.failures.push(`${record.id}: expected ${purpose}`);
      tally.rejectedOnPurpose++;
    } else if (DECODED_TYPES.has(record.payload_msg_type)) {
      compareDecoded(record, results, tally);
    } else {
      compareSkipped(record, results, tally);
    }
  }
  return tally;
}

describe('decoding against the published expectations', () => {
  const tally = runAll();

  it('agrees with every record, field by field, within the published tolerances', () => {
    expect(tally.failures).toEqual([]);
  });

  it('accounts for all 1,937 records: decoded, skipped as unsupported, or rejected on purpose', () => {
    expect(records).toHaveLength(1937);
    expect({ decoded: tally.decoded, skipped: tally.skipped, rejectedOnPurpose: tally.rejectedOnPurpose }).toEqual({
      decoded: 1646,
      skipped: 289,
      rejectedOnPurpose: 2,
    });
  });

  it('compares the fields the issue names as often as the records give them', () => {
    expect(tally.fields).toMatchObject({
      lat: 1467, lon: 1466, sog: 1278, cog: 1278, heading: 1202, ship_type: 176, name: 314, callsign: 171,
      imo: 159, destination: 160, draught: 160, eta: 157, utc_second: 1347, rot_raw: 949, part: 5,
    });
  });

  it('sets aside only the type 24 fields gpsd merged from the other part', () => {
    expect(tally.otherPart).toBe(21);
  });
});

describe('published expectations for "not available" values', () => {
  const sentinels: Record<string, { field: string; value: number; also?: string }> = {
    heading: { field: 'heading', value: 511 },
    sog: { field: 'sog', value: 102.3 },
    cog: { field: 'cog', value: 360 },
    lat: { field: 'lat', value: 91, also: 'lon' },
    nav_status: { field: 'nav_status', value: 15 },
    rot_raw: { field: 'rot_raw', value: -128 },
  };
  const seen: Record<string, { published: number; absent: number }> = {};
  for (const record of records) {
    if (!DECODED_TYPES.has(record.payload_msg_type) || REJECTED_ON_PURPOSE[record.id]) continue;
    const ours = merge(decode(record));
    for (const [name, { field, value, also }] of Object.entries(sentinels)) {
      if (record.expected[field] !== value) continue;
      const entry = (seen[name] ??= { published: 0, absent: 0 });
      entry.published++;
      if (!(field in ours) && (also === undefined || !(also in ours))) entry.absent++;
    }
  }

  it('leave the field out every time rather than carrying the sentinel number', () => {
    expect(seen).toEqual({
      heading: { published: 662, absent: 662 },
      sog: { published: 23, absent: 23 },
      cog: { published: 109, absent: 109 },
      lat: { published: 23, absent: 23 },
      nav_status: { published: 88, absent: 88 },
      rot_raw: { published: 511, absent: 511 },
    });
  });
});
