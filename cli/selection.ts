/**
 * The run command's selection, checked before anything starts: `--only` and `--skip` that
 * leave no check would otherwise run nothing, print "0 checks" and exit 0, and a CI gate
 * would pass on a run that tested nothing (with or without --strict). A profile or an
 * expectations file never narrows the selection, so these two flags are the only way to it.
 */
import { PooltestError } from '../engine/errors.js';
import { selectChecks } from '../runner/run.js';

/** The ids to run; NO_CHECKS_SELECTED naming the flags when none is left. */
export function selectOrRefuse(only: string[], skip: string[]): string[] {
  const selected = selectChecks(only, skip);
  if (selected.length > 0) return selected;
  // Every --only name matches some check (selectChecks refuses one that does not), so an
  // empty selection always comes from --skip taking what was left.
  const before = selectChecks(only, []).length;
  const what = only.length > 0 ? `--only ${only.join(',')} selects ${before}` : `the catalogue holds ${before}`;
  throw new PooltestError(
    'NO_CHECKS_SELECTED',
    `no check left to run: ${what} and --skip ${skip.join(',')} leaves out every one (see pooltest --list)`,
    { only: only.join(','), skip: skip.join(',') },
  );
}
