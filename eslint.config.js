import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', '.cache/**', 'infra/.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Only platform/kafka.ts may talk to a Kafka client library directly.
      'no-restricted-imports': ['error', { paths: [
        { name: 'kafkajs', message: 'Use platform/kafka.ts' },
        { name: '@platformatic/kafka', message: 'Use platform/kafka.ts' },
      ] }],
    },
  },
  {
    // The Kafka module's own integration test injects faults with the client directly.
    files: ['platform/kafka.ts', 'bench/kafka-clients.ts', 'test/integration/platform/kafka.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
