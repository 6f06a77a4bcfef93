import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // On PostgreSQL: a database per worker (see the file).
    setupFiles: ['test/setup/worker-database.ts', 'test/setup/master-key.ts', 'test/setup/queue-isolation.ts'],
    // Debian's chromium for the browser test (installed once when missing).
    globalSetup: ['test/setup/debian-packages.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One embedded database per worker is shared by its test files (organizations isolate tests).
    isolate: false,
  },
});
