/**
 * The order checks run in, fixed for every run: catalogue order, except that checks flagged
 * `destructive` (they can cost a pooler a server connection, or flood it) come after all the
 * others, again in catalogue order. Vitest's default sequencer orders files by cached
 * durations and past failures, so without this the same build ran its checks in a different
 * order each time - and on a pooler that a destructive check damages, the checks that happened
 * to run after the damage changed from run to run, and with them their verdicts.
 */
import type { TestSequencer, TestSequencerConstructor, TestSpecification } from 'vitest/node';
import { CATALOGUE } from '../suites/catalogue.js';

/** `ids` in run order: non-destructive checks in catalogue order, then the destructive ones. */
export function runOrder(ids: readonly string[]): string[] {
  const chosen = CATALOGUE.filter((c) => ids.includes(c.id));
  const destructive = (id: string): boolean => chosen.find((c) => c.id === id)?.flags?.includes('destructive') === true;
  return [...chosen.filter((c) => !destructive(c.id)), ...chosen.filter((c) => destructive(c.id))].map((c) => c.id);
}

/** Whether the catalogue flags check `id` as destructive. */
export function isDestructive(id: string): boolean {
  return CATALOGUE.find((c) => c.id === id)?.flags?.includes('destructive') === true;
}

/**
 * A Vitest sequencer that runs files in the order of `filters`: a file goes where the first
 * filter its path contains stands (files no filter matches go last, by path). No sharding.
 */
export function sequencerFor(filters: readonly string[]): TestSequencerConstructor {
  const rank = (spec: TestSpecification): number => {
    const file = spec.moduleId.replace(/\\/g, '/');
    const i = filters.findIndex((f) => file.includes(f));
    return i === -1 ? filters.length : i;
  };
  return class FixedOrder implements TestSequencer {
    shard(files: TestSpecification[]): TestSpecification[] {
      return files;
    }
    sort(files: TestSpecification[]): TestSpecification[] {
      return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
    }
  };
}
