import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'libs/*/test/**/*.test.ts',
      'libs/clients/*/test/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      'infra/dev/test/**/*.test.ts',
      'tests/e2e/**/*.test.ts',
      'tests/load/*.test.ts',
    ],
    globalSetup: ['tests/e2e/support/global-setup.ts'],
    // Each e2e file has its own databases and nats-server (tests/e2e/support/file-env.ts), so files
    // run side by side. Whole suite on 2 cores, quiet machine (vitest's Duration): 455 s one file at a
    // time, 257 s with 2 workers, 193 s with 3, 176 s with 4; the files mostly wait on PostgreSQL, NATS
    // and timers. 3, not 4: the last 17 s are not worth more CPU taken from a shared machine.
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
