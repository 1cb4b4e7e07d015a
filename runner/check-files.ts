/**
 * The rule that ties a check's id to its files: check `area/behaviour` is defined in
 * `suites/area/behaviour.check.ts`, and Vitest runs it from `suites/area/behaviour.test.ts`
 * beside it. The runner selects Vitest files by id, so a check in the wrong place would never
 * run; `run()` refuses such a catalogue with this error instead of reporting it as "not run".
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** One sentence per check whose Vitest file is not where its id says; empty when all are. */
export function checkFileProblems(suitesDir: string, checks: readonly { id: string }[], ext: '.ts' | '.js'): string[] {
  const problems: string[] = [];
  for (const { id } of checks) {
    const file = path.join(suitesDir, `${id}.test${ext}`);
    if (!existsSync(file)) {
      problems.push(
        `check ${id} has no Vitest file at suites/${id}.test${ext}: a check with id area/behaviour lives in suites/area/behaviour.check${ext} with suites/area/behaviour.test${ext} beside it`,
      );
    }
  }
  return problems;
}
