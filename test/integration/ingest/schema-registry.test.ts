// The optional schema-registry mode against a real Confluent-compatible registry (Apicurio Registry,
// started by infra/schema-registry.sh, or the one PSS_TEST_SCHEMA_REGISTRY_URL names): schemas are
// registered per topic, values are written in the Confluent wire format, and the registry's own client
// decodes and validates them.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromWireFormat } from '../../../ingest/encoding.ts';
import { sentenceItems } from '../../../ingest/items/ais-items.ts';
import { schemaRegistryAjv } from '../../../ingest/validation.ts';
import { ingestHarness, readTopic, type IngestHarness } from '../../support/ingest.ts';

const SCRIPT = fileURLToPath(new URL('../../../infra/schema-registry.sh', import.meta.url));
const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const BAD_CHECKSUM = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05';

/** The registry to test against, and whether this test started it (and so stops it again). */
function registry(): { url: string; startedHere: boolean } {
  const given = process.env.PSS_TEST_SCHEMA_REGISTRY_URL;
  if (given) return { url: given, startedHere: false };
  const running = spawnSync('bash', [SCRIPT, 'status'], { stdio: 'ignore' }).status === 0;
  const url = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
  return { url, startedHere: !running };
}

describe('schema registry mode', () => {
  let url: string;
  let startedHere = false;
  let harness: IngestHarness;

  beforeAll(async () => {
    ({ url, startedHere } = registry());
    harness = await ingestHarness({ PSS_SCHEMA_REGISTRY_URL: url });
  }, 600_000);
  afterAll(async () => {
    await harness?.close();
    // A JVM left behind would compete with whatever runs next on a two-core machine (benchmarks).
    if (startedHere) execFileSync('bash', [SCRIPT, 'stop'], { stdio: 'inherit' });
  });

  it('registers the JSON Schema of every written topic under <topic>-value and writes the wire format', async () => {
    const rt = harness.runtime;
    const { records } = sentenceItems([POSITION, BAD_CHECKSUM], { source: 'registry-test', records: rt.records, strictTagBlocks: true, fragmentTimeoutMs: 1_000, maxItemBytes: 65_536, now: Date.now });
    await rt.queue.add(records);

    const subjects = (await (await fetch(`${url}/subjects`)).json()) as string[];
    for (const topic of ['ais.positions', 'ais.static', 'ais.stations', 'gate.readings', 'ingest.deadletter']) {
      expect(subjects).toContain(`${harness.config.topicPrefix}${topic}-value`);
    }

    const registry = new SchemaRegistry({ host: url }, { [SchemaType.JSON]: { ajvInstance: schemaRegistryAjv() as never } });
    const [position] = await readTopic(harness.topics.aisPositions, 1);
    const [letter] = await readTopic(harness.topics.deadLetter, 1);
    const positionValue = (position as { value: Buffer }).value;
    expect(positionValue[0]).toBe(0);
    const { schemaId, value } = fromWireFormat(positionValue);
    expect(schemaId).toBe(await registry.getLatestSchemaId(`${harness.topics.aisPositions}-value`));
    // The registry client fetches the schema by id, validates the payload against it and decodes it.
    expect(await registry.decode(positionValue)).toEqual(value);
    expect(value).toMatchObject({ kind: 'position', raw: [POSITION], source: 'registry-test' });
    expect(await registry.decode((letter as { value: Buffer }).value)).toMatchObject({ feed: 'ais', reason: 'bad_checksum' });
  });

  it('registers again idempotently: a second runtime gets the same schema ids', async () => {
    const again = await ingestHarness({ PSS_SCHEMA_REGISTRY_URL: url, PSS_TOPIC_PREFIX: harness.config.topicPrefix });
    const encoded = again.runtime.encoder.encode('aisPositions', { a: 1 }) as Buffer;
    const first = harness.runtime.encoder.encode('aisPositions', { a: 1 }) as Buffer;
    expect(fromWireFormat(encoded).schemaId).toBe(fromWireFormat(first).schemaId);
    await again.producer.close();
  });
});
