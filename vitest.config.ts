import { defineConfig } from 'vitest/config';

// Unit tests are pure and run in parallel. Integration and end-to-end tests use the real Kafka broker and
// PostGIS; test/support/global-setup.ts gives each project its own database and topic prefix, so within a
// project they run one file at a time. infra/test.sh runs the e2e project in a vitest process of its own
// beside the others (one process runs sequential files one after another, whatever their project): the
// suite takes about the longer of the two lanes. The three-broker failover test (its own cluster) runs in
// the integration lane, which balances the lanes; so does the quorum-loss test (the same cluster).
const CLUSTER = ['test/e2e/kafka-failover.test.ts', 'test/e2e/kafka-quorum-loss.test.ts'];
const lane = (name: string, include: string[], exclude: string[] = []) => ({
  test: {
    name,
    include,
    exclude,
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['app/**/*.ts', 'cli/**/*.ts', 'platform/**/*.ts', 'ingest/**/*.ts', 'processors/**/*.ts', 'events/**/*.ts', 'delivery/**/*.ts', 'incidents/**/*.ts', 'response/**/*.ts', 'drones/**/*.ts', 'api/**/*.ts'],
      reporter: ['text-summary', 'html', 'lcov'],
    },
    projects: [
      {
        // vitest's 5 s default stays for unit tests: a unit test waits on nothing slow. Those whose work is a
        // fixed number of iterations or a big input say so (test/support/work-bounded.ts): their work bounds
        // them, since a busy machine multiplies their time (issue 33).
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      lane('integration', ['test/integration/**/*.test.ts', ...CLUSTER]),
      lane('e2e', ['test/e2e/**/*.test.ts'], CLUSTER),
    ],
  },
});
