/**
 * Vitest setup file of pooltest's check suites: hands each check the worker's one live state of
 * its run (worker-run-states.ts) through the test context, where runner/vitest-check.ts finds
 * it. Vitest evaluates a setup file again before every test file, so the table is not kept
 * here but in the module it imports, which is evaluated once per worker.
 */
import { beforeEach } from 'vitest';
import { workerRunState } from './worker-run-states.js';

beforeEach((context) => {
  context.pooltestRunState = workerRunState;
});
