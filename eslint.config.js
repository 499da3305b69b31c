import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Only platform/kafka/ may talk to a Kafka client library directly.
const kafkaClients = [
  { name: 'kafkajs', message: 'Use platform/kafka/index.ts' },
  { name: '@platformatic/kafka', message: 'Use platform/kafka/index.ts' },
];

/**
 * Imports run downward only: app/ and cli/ assemble and command; api/ serves the modules below it;
 * response/ (what happens after an alert) uses incidents/, processors/, delivery/, drones/ and events/; drones/ (missions,
 * the fleet contract) uses ingest/, incidents/ and events/; processors/
 * use events/; everything may use platform/ and schemas/, which use nothing above them.
 * (`npm test` also runs madge, which fails on any import cycle.)
 */
const above = {
  schemas: ['platform', 'ingest', 'processors', 'events', 'incidents', 'delivery', 'response', 'drones', 'api', 'app', 'cli'],
  platform: ['ingest', 'processors', 'events', 'incidents', 'delivery', 'response', 'drones', 'api', 'app', 'cli'],
  events: ['ingest', 'processors', 'incidents', 'delivery', 'response', 'drones', 'api', 'app', 'cli'],
  incidents: ['response', 'drones', 'ingest', 'processors', 'delivery', 'api', 'app', 'cli'],
  response: ['api', 'app', 'cli'],
  drones: ['response', 'processors', 'delivery', 'api', 'app', 'cli'],
  ingest: ['response', 'api', 'app', 'cli'],
  processors: ['response', 'api', 'app', 'cli'],
  delivery: ['response', 'api', 'app', 'cli'],
  api: ['app', 'cli'],
  app: ['cli'],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', '.cache/**', 'infra/.cache/**', 'console/dist/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: kafkaClients }],
    },
  },
  ...Object.entries(above).map(([layer, forbidden]) => ({
    files: [`${layer}/**`],
    rules: {
      'no-restricted-imports': ['error', {
        paths: kafkaClients,
        patterns: forbidden.map((upper) => ({ group: [`**/${upper}/**`], message: `${layer}/ must not import ${upper}/: imports run downward only (eslint.config.js)` })),
      }],
    },
  })),
  {
    // The Kafka module's own integration test injects faults with the client directly.
    files: ['platform/kafka/**/*.ts', 'bench/kafka-clients.ts', 'bench/kafka-consume.ts', 'test/integration/platform/kafka.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
