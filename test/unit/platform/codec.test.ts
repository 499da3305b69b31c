import { describe, expect, it } from 'vitest';
import { TopicCodec } from '../../../platform/codec/index.ts';
import type { SchemaRegistry } from '../../../platform/codec/schema-registry.ts';
import { TopicSchemas } from '../../../platform/codec/topic-schemas.ts';
import { DependencyError } from '../../../platform/errors.ts';
import { topicNames } from '../../../platform/topics.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { position } from '../../support/tracks.ts';

/** The registry's contract in memory: one id per distinct schema text, shared by every subject holding it. */
class MemoryRegistry implements SchemaRegistry {
  readonly #ids = new Map<string, number>();
  readonly #subjects = new Map<number, Set<string>>();
  lookups = 0;
  failing = false;

  async register(subject: string, schema: object): Promise<number> {
    const text = JSON.stringify(schema);
    const id = this.#ids.get(text) ?? this.#ids.size + 1;
    this.#ids.set(text, id);
    this.#subjects.set(id, (this.#subjects.get(id) ?? new Set()).add(subject));
    return id;
  }

  async subjectsOf(id: number): Promise<string[]> {
    this.lookups++;
    if (this.failing) throw new DependencyError('schema_registry', 'connection refused');
    return [...(this.#subjects.get(id) ?? [])];
  }
}

const topics = topicNames('p.');
const report = position(219000001, new Date('2026-11-20T10:00:00Z'), 12.6, 55.7);
const event = { id: 'evt_1', type: 'zone_entry', metadata: { mmsi: 219000001 } } as unknown as SecurityEvent;

async function registryCodec(now = () => 0) {
  const registry = new MemoryRegistry();
  const codec = new TopicCodec(await TopicSchemas.register(registry, topics, now));
  return { registry, codec };
}

function framed(id: number, json: string): Buffer {
  const out = Buffer.alloc(5 + Buffer.byteLength(json));
  out.writeUInt32BE(id, 1);
  out.write(json, 5);
  return out;
}

const values = (codec: TopicCodec, value: string | Buffer) => codec.decode('aisPositions', [{ value }]);

describe('topic codec', () => {
  it('round-trips plain JSON, and text topics byte for byte', async () => {
    const codec = new TopicCodec();
    const encoded = codec.encode('aisPositions', report);
    expect(encoded).toBe(JSON.stringify(report));
    expect(await values(codec, Buffer.from(encoded))).toEqual({ values: [{ record: { value: Buffer.from(encoded) }, value: report }], failures: [] });
    const line = '!AIVDM,1,1,,A,x\xff,0*00';
    const raw = codec.encode('aisRaw', line) as Buffer;
    expect(raw.length).toBe(line.length);
    expect((await codec.decode('aisRaw', [{ value: raw }])).values[0]?.value).toBe(line);
  });

  it('round-trips the wire format: magic byte 0, the big-endian id registered for the topic, then the JSON', async () => {
    const { codec } = await registryCodec();
    const positionBytes = codec.encode('aisPositions', report) as Buffer;
    const eventBytes = codec.encode('securityEvents', event) as Buffer;
    expect(positionBytes[0]).toBe(0);
    expect(positionBytes.readUInt32BE(1)).not.toBe(eventBytes.readUInt32BE(1));
    expect(positionBytes.toString('utf8', 5)).toBe(JSON.stringify(report));
    expect((await values(codec, positionBytes)).values[0]?.value).toEqual(report);
    expect((await codec.decode('securityEvents', [{ value: eventBytes }])).values[0]?.value).toEqual(event);
  });

  it('frames JSON text as encode() frames the value it holds (a relay forwarding stored events), in either mode', async () => {
    const text = '{"id": "evt_1", "type": "zone_entry", "metadata": {"mmsi": 219000001}}';
    expect(new TopicCodec().encodeJsonText('securityEvents', text)).toBe(text);
    const { codec } = await registryCodec();
    const bytes = codec.encodeJsonText('securityEvents', text) as Buffer;
    expect(bytes.subarray(0, 5)).toEqual((codec.encode('securityEvents', event) as Buffer).subarray(0, 5));
    expect(bytes.toString('utf8', 5)).toBe(text);
    expect((await codec.decode('securityEvents', [{ value: bytes }])).values[0]?.value).toEqual(event);
  });

  it('registers every JSON topic once under <topic>-value, text topics not at all, and again with the same ids', async () => {
    const registry = new MemoryRegistry();
    const first = new TopicCodec(await TopicSchemas.register(registry, topics));
    const again = new TopicCodec(await TopicSchemas.register(registry, topics));
    const idOf = (codec: TopicCodec) => (codec.encode('deadLetter', {} as never) as Buffer).readUInt32BE(1);
    expect(idOf(again)).toBe(idOf(first));
    const subjects = (await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => registry.subjectsOf(id)))).flat().sort();
    expect(subjects).toEqual(['p.ais.positions-value', 'p.ais.static-value', 'p.ais.stations-value', 'p.drone.commands-value', 'p.gate.appointments-value', 'p.gate.commands-value', 'p.gate.readings-value', 'p.ingest.deadletter-value', 'p.security.events-value']);
  });

  it('refuses a wrong magic byte, in either mode', async () => {
    const wrong = framed(1, JSON.stringify(report));
    wrong[0] = 2;
    for (const codec of [new TopicCodec(), (await registryCodec()).codec]) {
      const { values: ok, failures } = await values(codec, wrong);
      expect(ok).toEqual([]);
      expect(failures.map((f) => f.error.code)).toEqual(['wrong_magic_byte']);
      expect(failures[0]?.error.message).toMatch(/first byte 0x02/);
    }
  });

  it('refuses a schema id the registry does not hold for the topic, and asks about it only once', async () => {
    const { registry, codec } = await registryCodec();
    const staticId = (codec.encode('aisStatic', {} as never) as Buffer).readUInt32BE(1);
    const batch = [{ value: framed(999, '{}') }, { value: framed(staticId, '{}') }, { value: framed(999, '{}') }];
    const { failures } = await codec.decode('aisPositions', batch);
    expect(failures.map((f) => [f.record, f.error.code])).toEqual(batch.map((r) => [r, 'unknown_schema_id']));
    expect(failures[0]?.error.message).toBe('schema id 999 is not registered for ais.positions');
    expect(registry.lookups).toBe(2);
    await codec.decode('aisPositions', batch);
    expect(registry.lookups).toBe(2);
  });

  it('accepts a newer version of a topic\'s schema that another instance registered', async () => {
    const { registry, codec } = await registryCodec();
    const newer = await registry.register('p.ais.positions-value', { title: 'vessel position, evolved' });
    const { values: ok, failures } = await values(codec, framed(newer, JSON.stringify(report)));
    expect(failures).toEqual([]);
    expect(ok[0]?.value).toEqual(report);
  });

  it('asks about a refused id again after a minute, in case it was registered for the topic since', async () => {
    let now = 0;
    const { registry, codec } = await registryCodec(() => now);
    const id = await registry.register('p.ais.static-value', { title: 'same text, later also a position schema' });
    expect((await values(codec, framed(id, '{}'))).failures).toHaveLength(1);
    await registry.register('p.ais.positions-value', { title: 'same text, later also a position schema' });
    now += 30_000;
    expect((await values(codec, framed(id, '{}'))).failures).toHaveLength(1);
    now += 30_001;
    expect((await values(codec, framed(id, '{}'))).failures).toEqual([]);
  });

  it('refuses a truncated value: a header shorter than 5 bytes, or JSON cut short', async () => {
    const { codec } = await registryCodec();
    const whole = codec.encode('aisPositions', report) as Buffer;
    const { failures } = await codec.decode('aisPositions', [{ value: whole.subarray(0, 3) }, { value: whole.subarray(0, 40) }]);
    expect(failures.map((f) => f.error.code)).toEqual(['truncated', 'not_json']);
  });

  it('without a registry, refuses the wire format and names the setting', async () => {
    const { codec } = await registryCodec();
    const { failures } = await values(new TopicCodec(), codec.encode('aisPositions', report));
    expect(failures.map((f) => f.error.code)).toEqual(['unexpected_wire_format']);
    expect(failures[0]?.error.message).toMatch(/PSS_SCHEMA_REGISTRY_URL/);
  });

  it('with a registry, still reads plain JSON written before the switch (compacted topics keep it)', async () => {
    const { codec } = await registryCodec();
    expect((await values(codec, JSON.stringify(report))).values[0]?.value).toEqual(report);
  });

  it('rejects the whole batch when the registry cannot be asked, so the consumer retries instead of skipping', async () => {
    const { registry, codec } = await registryCodec();
    registry.failing = true;
    await expect(values(codec, framed(999, '{}'))).rejects.toBeInstanceOf(DependencyError);
  });

  describe('binary positions (PSS_POSITION_FORMAT=binary)', () => {
    const binary = new TopicCodec(undefined, 'binary');

    it('writes ais.positions as a binary frame and every other topic as JSON', () => {
      expect((binary.encode('aisPositions', report) as Buffer)[0]).toBe(1);
      expect(binary.encode('securityEvents', event)).toBe(JSON.stringify(event));
      expect(new TopicCodec().encode('aisPositions', report)).toBe(JSON.stringify(report));
    });

    it('reads both formats whichever it writes, so instances switch with old values still on the topic', async () => {
      const json = Buffer.from(JSON.stringify(report));
      const frame = binary.encode('aisPositions', report);
      for (const codec of [binary, new TopicCodec(), (await registryCodec()).codec]) {
        const { values: ok, failures } = await codec.decode('aisPositions', [{ value: json }, { value: frame }]);
        expect(failures).toEqual([]);
        expect(ok.map((v) => v.value)).toEqual([report, report]);
      }
    });

    it('writes JSON for a value the frame cannot carry exactly, which reads back as JSON would (NaN as null)', async () => {
      const odd = { ...report, lat: Number.NaN };
      const encoded = binary.encode('aisPositions', odd);
      expect(encoded).toBe(JSON.stringify(odd));
      expect((await values(binary, encoded)).values[0]?.value).toEqual({ ...report, lat: null });
    });

    it('never writes the binary frame with a registry, whose subject describes JSON', async () => {
      const { codec } = await registryCodec();
      const registryBinary = new TopicCodec(await TopicSchemas.register(new MemoryRegistry(), topics), 'binary');
      expect((registryBinary.encode('aisPositions', report) as Buffer)[0]).toBe(0);
      expect((codec.encode('aisPositions', report) as Buffer)[0]).toBe(0);
    });

    it('skips a frame of an unknown version, a cut one, or one on a topic without a binary form, each with its reason', async () => {
      const newer = Buffer.from(binary.encode('aisPositions', report) as Buffer);
      newer[1] = 9;
      const whole = binary.encode('aisPositions', report) as Buffer;
      const { values: ok, failures } = await binary.decode('aisPositions', [{ value: newer }, { value: whole.subarray(0, 12) }, { value: whole }]);
      expect(ok.map((v) => v.value)).toEqual([report]);
      expect(failures.map((f) => f.error.code)).toEqual(['unknown_format_version', 'truncated']);
      expect(failures[0]?.error.message).toMatch(/version 9 is not known/);
      const onEvents = await binary.decode('securityEvents', [{ value: whole }]);
      expect(onEvents.failures.map((f) => f.error.code)).toEqual(['unexpected_binary_format']);
    });
  });
});
