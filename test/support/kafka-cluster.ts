// The local three-broker Kafka cluster of infra/kafka-cluster.sh (`infra/kafka.sh cluster ...`), for the
// failover test: started if absent, a node killed and started again. Asynchronous, so the test's own
// clients keep running while a node starts.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const KAFKA_SH = fileURLToPath(new URL('../../infra/kafka.sh', import.meta.url));
const run = promisify(execFile);

/** The cluster's bootstrap brokers; node N (broker id N) listens on the Nth. */
export const CLUSTER_BROKERS = ['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094'];

async function cluster(...args: string[]): Promise<string> {
  const { stdout } = await run('bash', [KAFKA_SH, 'cluster', ...args], { timeout: 180_000 });
  return stdout;
}

/** Starts the three nodes unless they all answer already (then this takes a second). Resolves true when it started any. */
export async function clusterUp(): Promise<boolean> {
  const running = await cluster('status').then(() => true, () => false);
  if (!running) await cluster('up');
  return !running;
}
/** Stops the three nodes. */
export const clusterDown = () => cluster('down');
/** SIGKILL of node `id`: a broker lost without warning. */
export const killNode = (id: number) => cluster('kill', String(id));
/** Starts node `id` again and waits until it answers. */
export const startNode = (id: number) => cluster('start', String(id));
