import { defineConfig } from 'vitest/config';

/**
 * The project's own tests (test/**). The check suites in suites/ are not run from here: they
 * need a target, and the CLI runs them (the catalogue tests below drive the CLI against real
 * fixtures). Files run one at a time: catalogue tests steer small real pools with short wait
 * bounds, and two of them competing for two cores would turn timing noise into inconclusives.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
