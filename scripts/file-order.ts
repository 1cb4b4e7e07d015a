/**
 * The order `npm test` starts its files in (scripts/slow-first-sequencer.ts hands Vitest this
 * order): longest first within each project. Kept apart from the sequencer, which needs
 * vitest/node, so that test/architecture/file-order.test.ts can hold it without starting Vitest.
 */

/**
 * Seconds per file, the files of half a minute or more: Vitest's figure (its tests, not
 * its hooks) from one `.ci/run` of a fresh clone on the shared 2-core machine at load 10-14,
 * 2026-12-02 (test/drivers/agents.test.ts from a run of test/drivers). Only the order of these
 * figures matters, and a little drift in them costs seconds, never a result.
 */
export const MEASURED_S: Record<string, number> = {
  'test/package/package.test.ts': 155,
  'test/faults/fault-matrix-pooler.test.ts': 114,
  'test/faults/fault-matrix-proxy.test.ts': 106,
  'test/cli/outputs.test.ts': 97,
  'test/faults/interrupt.test.ts': 69,
  'test/architecture/new-check.test.ts': 66,
  'test/wire/probe-findings.test.ts': 66,
  'test/cli/cli.test.ts': 66,
  'test/faults/sweep-direct-fallback.test.ts': 64,
  'test/architecture/format.test.ts': 62,
  'test/wire/pgagroal-findings.test.ts': 52,
  'test/bad-input/tls.test.ts': 51,
  'test/reporters/html-browser.test.ts': 48,
  'test/bad-input/not-postgres.test.ts': 44,
  'test/drivers/agents.test.ts': 43,
  'test/cli/psql-habits.test.ts': 42,
  'test/safety/sweep-unknown.test.ts': 34,
  'test/watch/watch-cli.test.ts': 34,
  'test/engine/vitest-strict.test.ts': 32,
  'test/faults/shrinking-pool.test.ts': 31,
  'test/faults/interrupt-discovery-names.test.ts': 31,
  'test/bad-input/rights-and-modes.test.ts': 30,
  // The timing files of half a minute or more, from a run of the `timing` project two at once
  // under stress-ng (2026-12-02).
  'test/catalogue/catalogue.test.ts': 118,
  'test/faults/stall-every-moment.test.ts': 96,
  'test/load/honest-under-load.test.ts': 89,
  'test/catalogue/compatibility.test.ts': 85,
  'test/wire/cli-faults.test.ts': 76,
  'test/faults/interrupt-offsets.test.ts': 54,
  'test/faults/mid-run-faults.test.ts': 34,
};

/** What the order of one file rests on. */
export interface FileToOrder {
  /** The project's sequence.groupOrder, then its name: projects keep Vitest's order. */
  groupOrder: number;
  project: string;
  /** Relative to the root, with forward slashes. */
  file: string;
  /** Vitest's cached result of the last run, when it has one. */
  cached?: { failed: boolean; duration: number };
  size: number;
}

/**
 * The files in the order they start: by project as Vitest orders projects; within one, a file
 * that failed last time first (as Vitest does: its answer is the one awaited), then the longest
 * by cached duration or else MEASURED_S, then the larger.
 */
export function orderFiles<T extends FileToOrder>(files: readonly T[]): T[] {
  const ms = (f: FileToOrder): number => f.cached?.duration ?? (MEASURED_S[f.file] ?? 0) * 1000;
  return [...files].sort(
    (a, b) =>
      a.groupOrder - b.groupOrder ||
      (a.project === b.project ? 0 : a.project < b.project ? -1 : 1) ||
      Number(b.cached?.failed ?? false) - Number(a.cached?.failed ?? false) ||
      ms(b) - ms(a) ||
      b.size - a.size,
  );
}
