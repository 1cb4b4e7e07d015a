/**
 * Which pooler's behaviour the audit and the watch join their findings with: a report's (read
 * before anything else, so a typo costs no long read), the checks run now against --target, or
 * what transaction pooling typically does.
 */
import { redactUrl } from '../engine/target/target.js';
import { typicalBehaviour, type PoolerBehaviour } from './pooler-behaviour.js';
import { behaviourFromTarget } from './target-run.js';

/** The behaviour for the findings' `checks`, from the report when one was read. */
export async function resolveBehaviour(
  fromReport: PoolerBehaviour | null,
  options: {
    readonly target?: string | undefined;
    readonly password?: string | undefined;
    readonly timeoutMs?: number | undefined;
  },
  checks: string[],
): Promise<PoolerBehaviour> {
  if (fromReport !== null) return fromReport;
  if (options.target === undefined) return typicalBehaviour();
  // Nothing found: no reason to touch the pooler (nor to load the runner).
  if (checks.length === 0) return { basis: 'target', name: redactUrl(options.target), outcomes: new Map() };
  return behaviourFromTarget(options.target, checks, options.password, options.timeoutMs);
}
