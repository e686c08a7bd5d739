import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // dist/ (what bin/tipjar.js runs) rebuilt once if src/ changed, before the files that spawn it.
    globalSetup: ['test/helpers/build.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own SQLite file / PostgreSQL schema, so files run in parallel safely.
    fileParallelism: true,
  },
});
