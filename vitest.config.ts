import { defineConfig } from 'vitest/config';

// Unit tests are pure and run in parallel. Integration and end-to-end tests share one real Kafka broker
// and one PostGIS database (started by test/support/global-setup.ts), so they run one file at a time.
export default defineConfig({
  test: {
    coverage: {
      provider: 'v8',
      include: ['app/**/*.ts', 'cli/**/*.ts', 'platform/**/*.ts', 'ingest/**/*.ts', 'processors/**/*.ts', 'events/**/*.ts', 'delivery/**/*.ts', 'incidents/**/*.ts', 'response/**/*.ts', 'drones/**/*.ts', 'api/**/*.ts'],
      reporter: ['text-summary', 'html', 'lcov'],
    },
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
