/**
 * `pooltest/vitest`: pooltest's check suites as a project in a vendor's own Vitest config.
 *
 * ```js
 * import { defineConfig } from 'vitest/config';
 * import { pooltestProject } from 'pooltest/vitest';
 * export default defineConfig({ test: { projects: [pooltestProject({ profile: 'pgbouncer-transaction' })] } });
 * ```
 * Each check is one test: a failed expectation fails it, an inconclusive or skipped check is
 * skipped with the reason, and the full result is in the test's `meta().pooltest`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import type { PooltestSetupOptions } from './vitest-setup.js';

export type { PooltestSetupOptions } from './vitest-setup.js';
export { setupOptionsFromEnv } from './vitest-setup.js';

/** The installed package's compiled output (`.../node_modules/pooltest/dist`). */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The global setup module, as a path Vitest can load. */
export const POOLTEST_GLOBAL_SETUP = path.join(DIST, 'runner', 'vitest-setup.js');

/** The workers' setup file: the check files of a run in one worker share its live state. */
export const POOLTEST_WORKER_SETUP = path.join(DIST, 'runner', 'vitest-worker-setup.js');

/**
 * A Vitest project that runs pooltest's checks against `options.target` (or `POOLTEST_TARGET`).
 * The suites are found with `dir` pointing into the installed package, so Vitest's default
 * `node_modules` exclude does not hide them. Files run one at a time: the checks steer a small
 * pool and must not compete with each other for its backends.
 */
export function pooltestProject(
  options: PooltestSetupOptions & { name?: string } = {},
): TestProjectInlineConfiguration {
  const { name, ...setup } = options;
  return {
    test: {
      name: name ?? 'pooltest',
      dir: DIST,
      include: ['suites/**/*.test.js'],
      globalSetup: [POOLTEST_GLOBAL_SETUP],
      setupFiles: [POOLTEST_WORKER_SETUP],
      provide: { pooltestSetup: setup },
      fileParallelism: false,
      maxWorkers: 1,
      testTimeout: 120_000,
      hookTimeout: 60_000,
    },
  };
}
