import { accessSync, constants } from 'node:fs';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './scripts/slow-first-sequencer.js';
import { testGroups } from './scripts/test-groups.js';

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
 * fixtures). `npm test` runs three projects one after another (scripts/test-groups.ts says
 * which file goes where): `unit` files side by side, then `fixtures` two at a time (each starts
 * its own servers on free ports), then `timing` two at a time - the catalogue and load tests
 * and the files that keep a tight clock, beside one another only. They ran one at a time until
 * the checks that need things at once arranged them (crowd.ts: a crowd's logins are waited for
 * while they keep coming); two at a time, under stress-ng, the project took 371 s against
 * 557 s (issue 21). A file in a folder the grouping does not know runs in `timing`.
 * `npx vitest run <file>` still runs just that file, in its project.
 *
 * No project isolates its files (isolate: false): each worker imports the engine, the fixtures
 * and pg once and runs its files one after another in that module graph, instead of a fresh
 * process per file importing it all again (about 1.3 s a file on the busy 2-core machine, for
 * 90 files). A test file's own module is still evaluated afresh; none of them changes globals,
 * and the one that sets an environment variable restores it (test/fixtures/pooler-build.test.ts).
 */
const groups = testGroups(import.meta.dirname);

export default defineConfig({
  test: {
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: fastTmp(),
    isolate: false,
    // Longest files first in each project, on a fresh clone too (scripts/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // Measured on the busy 2-core machine: 64 s against 516 s for the 64 files isolated.
        test: { name: 'unit', include: groups.unit, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // Two at once: their time is mostly waiting for servers, step bounds and injected faults.
        test: { name: 'fixtures', include: groups.fixtures, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: groups.timing,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
