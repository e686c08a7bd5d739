import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own SQLite file / PostgreSQL schema, so files run in parallel safely.
    fileParallelism: true,
  },
});
