// What Postgres is busy with while a benchmark runs: samples pg_stat_activity every few milliseconds and
// prints each statement's share of the samples (with its wait: CPU when none). A statement at 10 % was
// running, on average, on a tenth of a backend. Start it beside the benchmark, e.g.
//   node --import tsx bench/support/pg-activity-sample.ts 75 25 & npm run bench pipeline
// (sample for 75 s after a 25 s delay). The sampler's own queries cost some CPU: compare shares, not latencies.
import pg from 'pg';

const [seconds = 60, delaySeconds = 0, everyMs = 20] = process.argv.slice(2).map(Number);
const url = process.env.PSS_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const client = new pg.Client({ connectionString: url });
await client.connect();
await new Promise((r) => setTimeout(r, delaySeconds * 1000));
const counts = new Map<string, number>();
let samples = 0;
for (const end = Date.now() + seconds * 1000; Date.now() < end; samples++) {
  const { rows } = await client.query<{ wait: string; statement: string }>(
    `SELECT coalesce(wait_event_type, 'CPU') AS wait, regexp_replace(left(query, 100), '\\s+', ' ', 'g') AS statement
       FROM pg_stat_activity WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  for (const r of rows) {
    const key = `${r.wait.padEnd(8)} ${r.statement}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  await new Promise((r) => setTimeout(r, everyMs));
}
await client.end();

const busy = [...counts.values()].reduce((a, b) => a + b, 0);
console.log(`${samples} samples every ${everyMs} ms; on average ${(busy / Math.max(1, samples)).toFixed(2)} backends active`);
for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${((100 * n) / Math.max(1, samples)).toFixed(1).padStart(6)} %  ${key}`);
}
