// `npm run bench [name...]`: starts the local stack when needed and runs each benchmark in its own
// process (so one's heap and JIT state do not colour the next), printing their reports in order.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `npm run bench` runs: the figures each issue names. */
const DEFAULT_BENCHES = ['ais-decode', 'ingest', 'zone-index', 'maritime-pipeline', 'events-query', 'event-stream', 'webhooks', 'gate-transactions-query', 'gate-pipeline', 'positions-sink', 'response', 'incidents-query', 'drones'];
/**
 * Runnable by name only: kafka-clients compared kafkajs with @platformatic/kafka once, to choose the
 * client (docs/design-notes.md "Kafka client"), and kafka-consume measured Confluent's librdkafka client on our consume
 * path; they are recorded decisions, not figures to watch. analyst-queries
 * generates 10,000,000 positions first, which takes several minutes (docs/benchmarks.md); vessel-directory
 * measured a decision (docs/vessels.md, decision 8). pipeline (end to end, TCP feed to WebSocket client and
 * webhook, two layouts of the service's processes) steps through several rates per layout: 7-11 minutes.
 * console (issue 26) needs Chromium (infra/chromium.sh) and runs about 2 minutes.
 */
const ON_REQUEST = ['kafka-clients', 'kafka-consume', 'analyst-queries', 'vessel-directory', 'pipeline', 'console'];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((b) => !DEFAULT_BENCHES.includes(b) && !ON_REQUEST.includes(b));
if (unknown.length) {
  console.error(`bench: unknown benchmark ${unknown.join(', ')}; known: ${[...DEFAULT_BENCHES, ...ON_REQUEST].join(', ')}`);
  process.exit(2);
}
const selected = wanted.length ? wanted : DEFAULT_BENCHES;

if (!process.env.PSS_KAFKA_BROKERS) {
  const up = spawnSync('bash', [`${ROOT}infra/stack.sh`, 'up'], { stdio: 'inherit' });
  if (up.status !== 0) process.exit(up.status ?? 1);
}

let failed = 0;
for (const name of selected) {
  const file = `${ROOT}bench/${name}.ts`;
  if (!existsSync(file)) {
    console.error(`bench: ${name}: ${file} is missing`);
    failed++;
    continue;
  }
  console.log(`\n=== ${name} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit', cwd: ROOT });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
