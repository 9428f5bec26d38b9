import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/support/global-setup.ts'],
    // Files share one private NATS server and database set; e2e files stop and start services,
    // so they run one after another.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
