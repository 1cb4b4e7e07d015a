/**
 * `--target URL`: runs only the checks the findings depend on against the pooler, now, and
 * joins their outcomes. The audit sits above the runner (see test/architecture), so it calls
 * `run()` directly; the runner is loaded only when `--target` is given, which keeps the audit of
 * files and logs from loading Vitest.
 */
import { PooltestError } from '../engine/errors.js';
import { connectClient } from '../engine/session/connect.js';
import { APPLICATION_NAME } from '../engine/session/session.js';
import { redactUrl, resolveTarget } from '../engine/target.js';
import { within } from '../engine/time.js';
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

/**
 * Throws the coded error (TARGET_REFUSED, AUTH_FAILED..., named `--target`) when `target`
 * cannot be connected to. Asked before a workload runs or a log is read: a dead pooler found
 * only at the end would cost the whole watch and leave no report.
 */
export async function checkTargetReachable(
  target: string,
  timeoutMs: number,
  password?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const t = resolveTarget({ target, ...(password !== undefined ? { password } : {}) }, env);
  let client;
  try {
    client = await connectClient(t, timeoutMs, APPLICATION_NAME);
  } catch (err) {
    if (err instanceof PooltestError) throw new PooltestError(err.code, `--target: ${err.message}`, err.detail);
    throw err;
  }
  await within(
    client.end().catch(() => undefined),
    1_000,
    undefined,
  );
}

/** The runner refuses unknown ids as a whole; ask it about each one so one gap costs only itself. */
function isRunnable(select: (only: string[], skip: string[]) => string[], id: string): boolean {
  try {
    return select([id], []).includes(id);
  } catch {
    return false;
  }
}
