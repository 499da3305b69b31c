// The Confluent-compatible registry of the schema-registry-mode tests: the one PSS_TEST_SCHEMA_REGISTRY_URL
// names, or Apicurio Registry started by infra/schema-registry.sh (first run downloads it from Maven
// Central) and stopped again by the test that started it.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../infra/schema-registry.sh', import.meta.url));

export interface TestRegistry {
  url: string;
  /** Stops the registry if this test started it: a JVM left behind would compete with what runs next. */
  release(): void;
}

export function testRegistry(): TestRegistry {
  const given = process.env.PSS_TEST_SCHEMA_REGISTRY_URL;
  if (given) return { url: given, release: () => undefined };
  const running = spawnSync('bash', [SCRIPT, 'status'], { stdio: 'ignore' }).status === 0;
  const url = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
  return { url, release: () => (running ? undefined : execFileSync('bash', [SCRIPT, 'stop'], { stdio: 'inherit' })) };
}
