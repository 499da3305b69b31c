// The optional schema-registry mode against a real Confluent-compatible registry (test/support/
// schema-registry.ts): schemas are registered per topic, values are written in the Confluent wire format,
// the registry's own client decodes and validates them, and the codec reads schema versions registered
// after it started while refusing ids of other subjects.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentenceItems } from '../../../../ingest/items/ais-items.ts';
import { frame } from '../../../../platform/codec/wire-format.ts';
import { vesselPositionSchema } from '../../../../schemas/ais.ts';
import { ingestHarness, readTopic, type IngestHarness } from '../../../support/ingest.ts';
import { testRegistry, type TestRegistry } from '../../../support/schema-registry.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const BAD_CHECKSUM = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formats = addFormatsPlugin as unknown as FormatsPlugin & { default?: FormatsPlugin };

/** The registry's own client, as another team's consumer would use it. Its default ajv knows no 2020-12 keywords. */
function registryClient(url: string): SchemaRegistry {
  const ajv = new Ajv2020({ strict: false });
  (formats.default ?? formats)(ajv);
  return new SchemaRegistry({ host: url }, { [SchemaType.JSON]: { ajvInstance: ajv as never } });
}

async function register(url: string, subject: string, schema: object): Promise<number> {
  const res = await fetch(`${url}/subjects/${subject}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schemaType: 'JSON', schema: JSON.stringify(schema) }),
  });
  return ((await res.json()) as { id: number }).id;
}

describe('schema registry mode', () => {
  let registry: TestRegistry;
  let harness: IngestHarness;

  beforeAll(async () => {
    registry = testRegistry();
    harness = await ingestHarness({ PSS_SCHEMA_REGISTRY_URL: registry.url });
  }, 600_000);
  afterAll(async () => {
    await harness?.close();
    registry?.release();
  });

  it('registers the JSON Schema of every JSON topic under <topic>-value and writes the wire format', async () => {
    const rt = harness.runtime;
    const { records } = sentenceItems([POSITION, BAD_CHECKSUM], { source: 'registry-test', records: rt.records, strictTagBlocks: true, fragmentTimeoutMs: 1_000, maxItemBytes: 65_536, now: Date.now });
    await rt.queue.add(records);

    const subjects = (await (await fetch(`${registry.url}/subjects`)).json()) as string[];
    for (const topic of ['ais.positions', 'ais.static', 'ais.stations', 'gate.readings', 'security.events', 'ingest.deadletter']) {
      expect(subjects).toContain(`${harness.config.topicPrefix}${topic}-value`);
    }
    for (const raw of ['ais.raw', 'gate.readings.raw']) expect(subjects).not.toContain(`${harness.config.topicPrefix}${raw}-value`);

    const client = registryClient(registry.url);
    const [position] = await readTopic(harness.topics.aisPositions, 1);
    const [letter] = await readTopic(harness.topics.deadLetter, 1);
    const positionValue = position!.value;
    expect(positionValue[0]).toBe(0);
    expect(positionValue.readUInt32BE(1)).toBe(await client.getLatestSchemaId(`${harness.topics.aisPositions}-value`));
    // The registry client fetches the schema by id, validates the payload against it and decodes it.
    const decoded = await rt.codec.decode('aisPositions', [position!]);
    expect(decoded.failures).toEqual([]);
    expect(await client.decode(positionValue)).toEqual(decoded.values[0]!.value);
    expect(decoded.values[0]!.value).toMatchObject({ kind: 'position', raw: [POSITION], source: 'registry-test' });
    expect(await client.decode(letter!.value)).toMatchObject({ feed: 'ais', reason: 'bad_checksum' });
  });

  it('registers again idempotently: a second instance gets the same schema ids', async () => {
    const again = await ingestHarness({ PSS_SCHEMA_REGISTRY_URL: registry.url, PSS_TOPIC_PREFIX: harness.config.topicPrefix });
    const id = (codec: typeof again.runtime.codec) => (codec.encode('securityEvents', {} as never) as Buffer).readUInt32BE(1);
    expect(id(again.runtime.codec)).toBe(id(harness.runtime.codec));
    await again.producer.close();
  });

  it('reads a schema version registered after it started, and refuses an id of another subject', async () => {
    const evolved = { ...vesselPositionSchema, title: `${vesselPositionSchema.title} (evolved)` };
    const newer = await register(registry.url, `${harness.topics.aisPositions}-value`, evolved);
    const foreign = await register(registry.url, `${harness.topics.aisStatic}-value`, { ...evolved, title: 'registered for another topic' });
    const json = '{"kind":"position","mmsi":219000001}';
    const { values, failures } = await harness.runtime.codec.decode('aisPositions', [{ value: frame(newer, json) }, { value: frame(foreign, json) }]);
    expect(values.map((v) => v.value)).toEqual([{ kind: 'position', mmsi: 219000001 }]);
    expect(failures.map((f) => [f.error.code, f.error.message])).toEqual([['unknown_schema_id', `schema id ${foreign} is not registered for ais.positions`]]);
  });
});
