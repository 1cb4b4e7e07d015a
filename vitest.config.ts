import { accessSync, constants } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * Fixtures copy a ~35 MB cluster template per start; on a RAM-backed temp folder that takes a
 * fraction of the time it takes on a slow disk. Used only when /dev/shm is there and writable.
 */
function fastTmp(): Record<string, string> {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return { TMPDIR: '/dev/shm' };
  } catch {
    return {};
  }
}

/**
 * The project's own tests (test/**). The check suites in suites/ are not run from here: they
 * need a target, and the CLI runs them (the catalogue tests drive the CLI against real
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
    env: fastTmp(),
  },
});
