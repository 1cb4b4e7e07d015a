/**
 * The order in which `npm test` starts its files (vitest.config.ts names this class): within a
 * project, longest first, so that the `fixtures` project's two workers end together instead of
 * one running a long file alone at the end.
 *
 * Vitest's own order is longest first by the durations it cached from the last run, but a fresh
 * clone (CI) has no cache, and then it starts the larger files first. Size says little about
 * time here: the two fault-matrix files are 13 and 16 lines (their rows live in a helper), so a
 * fresh clone ran them, about three minutes each, last of all. Without a cached duration a file
 * takes its time from MEASURED_S below; a file in neither comes after, larger first, as before.
 * The order changes only when a file runs, never what it asserts (each fixture file starts its
 * own servers on free ports), so a stale figure here costs time, not correctness.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds per file (hooks included, scripts/file-times-reporter.ts) measured on the shared
 * 2-core machine at load 9-15, 2026-12-02: the fixture files that take half a minute or more.
 * Only their order among themselves matters.
 */
export const MEASURED_S: Record<string, number> = {
  'test/faults/fault-matrix-proxy.test.ts': 211,
  'test/faults/fault-matrix-pooler.test.ts': 206,
  'test/package/package.test.ts': 155,
  'test/cli/cli.test.ts': 122,
  'test/engine/vitest-strict.test.ts': 108,
  'test/wire/probe-findings.test.ts': 98,
  'test/cli/outputs.test.ts': 97,
  'test/bad-input/tls.test.ts': 94,
  'test/faults/shrinking-pool.test.ts': 85,
  'test/faults/interrupt.test.ts': 69,
  'test/architecture/new-check.test.ts': 66,
  'test/faults/sweep-direct-fallback.test.ts': 64,
  'test/architecture/format.test.ts': 62,
  'test/wire/pgagroal-findings.test.ts': 52,
  'test/reporters/html-browser.test.ts': 48,
  'test/drivers/agents.test.ts': 45,
  'test/bad-input/not-postgres.test.ts': 44,
  'test/cli/psql-habits.test.ts': 42,
  'test/safety/sweep-unknown.test.ts': 34,
  'test/watch/watch-cli.test.ts': 34,
  'test/faults/interrupt-discovery-names.test.ts': 31,
};

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const info = new Map(
      files.map((f) => {
        const file = relative(root, f.moduleId).split('\\').join('/');
        const key = `${f.project.name}:${file}`;
        const cached = cache.getFileTestResults(key);
        return [
          f,
          {
            failed: cached?.failed ?? false,
            ms: cached?.duration ?? (MEASURED_S[file] ?? 0) * 1000,
            size: cache.getFileStats(key)?.size ?? 0,
          },
        ] as const;
      }),
    );
    return [...files].sort((a, b) => {
      // Projects keep their order (sequence.groupOrder, then name), as in BaseSequencer.
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const x = info.get(a)!;
      const y = info.get(b)!;
      // A file that failed last time first, as Vitest does: its answer is the one awaited.
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      return y.ms - x.ms || y.size - x.size;
    });
  }
}
