/**
 * The order in which `npm test` starts its files (vitest.config.ts names this class): within a
 * project, longest first, so that the `fixtures` project's two workers end together instead of
 * one running a long file alone at the end.
 *
 * Vitest's own order is longest first by the durations it cached from the last run, but a fresh
 * clone (CI) has no cache, and then it starts the larger files first. Size says little about
 * time here: the two fault-matrix files are 13 and 16 lines (their rows live in a helper), so a
 * fresh clone ran them, about two minutes each, last of all. Without a cached duration a file
 * takes its time from MEASURED_S (scripts/file-order.ts); a file in neither comes after, larger
 * first, as before. The order changes only when a file runs, never what it asserts (each
 * fixture file starts its own servers on free ports), so a stale figure costs time, not a result.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { orderFiles } from './file-order.js';

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const items = files.map((spec) => {
      const file = relative(root, spec.moduleId).split('\\').join('/');
      const key = `${spec.project.name}:${file}`;
      return {
        spec,
        groupOrder: spec.project.config.sequence.groupOrder,
        project: spec.project.name,
        file,
        cached: cache.getFileTestResults(key),
        size: cache.getFileStats(key)?.size ?? 0,
      };
    });
    return orderFiles(items).map((i) => i.spec);
  }
}
