import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
    globalSetup: ['tests/e2e/support/global-setup.ts'],
    // Each e2e file has its own databases and nats-server (tests/e2e/support/file-env.ts), so files
    // run side by side. Whole suite on 2 cores, quiet machine: 455 s one file at a time, 257 s with
    // two workers (the files wait on PostgreSQL, NATS and timers much of the time).
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
