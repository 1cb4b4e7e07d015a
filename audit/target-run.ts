/**
 * `--target URL`: runs only the checks the findings depend on against the pooler, now, and
 * joins their outcomes. The audit sits above the runner (see test/architecture), so it calls
 * `run()` directly; the runner is loaded only when `--target` is given, which keeps the audit of
 * files and logs from loading Vitest.
 */
import { redactUrl } from '../engine/target.js';
import { behaviourFromReport, checkedReport, type PoolerBehaviour } from './pooler-behaviour.js';

/**
 * Runs the checks among `checkIds` that this build has against `target` and returns the
 * outcomes. Ids without a check stay unknown (the audit warns about them).
 */
export async function behaviourFromTarget(
  target: string,
  checkIds: string[],
  password?: string,
): Promise<PoolerBehaviour> {
  const { run, selectChecks } = await import('../runner/run.js');
  const runnable = checkIds.filter((id) => isRunnable(selectChecks, id));
  if (runnable.length === 0) return { basis: 'target', name: redactUrl(target), outcomes: new Map() };
  const report = await run({ target, only: runnable, ...(password !== undefined ? { password } : {}) });
  return behaviourFromReport(checkedReport(report, `--target ${redactUrl(target)}`), 'target', target);
}

/** The runner refuses unknown ids as a whole; ask it about each one so one gap costs only itself. */
function isRunnable(select: (only: string[], skip: string[]) => string[], id: string): boolean {
  try {
    return select([id], []).includes(id);
  } catch {
    return false;
  }
}
