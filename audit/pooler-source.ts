/**
 * Which pooler's behaviour the audit and the watch join their findings with: a report's (read
 * before anything else, so a typo costs no long read), the checks run now against --target, or
 * what transaction pooling typically does.
 */
import { typicalBehaviour, type PoolerBehaviour } from './pooler-behaviour.js';
import { behaviourFromTarget, wordsName, type FindingsCommand, type TargetWords } from './target-run.js';

/** The behaviour for the findings' `checks`, from the report when one was read. */
export async function resolveBehaviour(
  fromReport: PoolerBehaviour | null,
  options: Omit<Partial<TargetWords>, 'target'> & {
    readonly target?: string | undefined;
    readonly timeoutMs?: number | undefined;
    /** Whose name the progress lines of a --target run carry (default audit). */
    readonly command?: FindingsCommand | undefined;
  },
  checks: string[],
): Promise<PoolerBehaviour> {
  if (fromReport !== null) return fromReport;
  const target = options.target;
  if (target === undefined) return typicalBehaviour();
  const words: TargetWords = { ...options, target };
  // Nothing found: no reason to touch the pooler (nor to load the runner).
  if (checks.length === 0) return { basis: 'target', name: wordsName(words), outcomes: new Map() };
  return behaviourFromTarget(words, checks, options.timeoutMs, options.command);
}
