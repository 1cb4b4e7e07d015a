// The same project as pooltestProject(), written out: where the suites are and which global
// setup provides the target to them.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'pooltest',
          // The compiled suites inside the installed package. Scanning from `dir` keeps
          // Vitest's default **/node_modules/** exclude from hiding them.
          dir: 'node_modules/pooltest/dist',
          include: ['suites/**/*.test.js'],
          globalSetup: ['pooltest/vitest/setup'],
          // Hands each check its run's live state in the worker (spares, what earlier checks found).
          setupFiles: ['pooltest/vitest/worker-setup'],
          // The checks steer a small pool: one file at a time.
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
