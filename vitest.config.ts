import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most tests wait on HTTP and child processes, not on the CPU: two test
    // files per core keep the cores busy (Vitest's default is one fewer than
    // the cores, so a single worker on a 2-core machine).
    maxWorkers: Math.max(2, 2 * availableParallelism()),
    reporters: ['default'],
  },
});
