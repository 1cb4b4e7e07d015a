/**
 * `--target URL`: runs only the checks the findings depend on against the pooler, now, and
 * joins their outcomes. The runner is the engine's `run()`; it is imported when needed so the
 * audit works (and compiles) without it for every other input.
 */
import { fileURLToPath } from 'node:url';
import { PooltestError } from '../errors.js';
import { redactUrl } from '../target.js';
import type { Report } from '../types.js';
import { behaviourFromReport, checkedReport, type PoolerBehaviour } from './pooler-behaviour.js';

/** The engine entry points as the audit calls them. */
type RunChecks = (opts: { target: string; only?: string[]; password?: string }) => Promise<Report>;
type SelectChecks = (only: string[], skip: string[]) => string[];

interface RunModule {
  run: RunChecks;
  selectChecks: SelectChecks | null;
}

/** Kept in a variable so TypeScript does not require the module at compile time. */
const RUN_MODULE = '../run.js';

/**
 * Runs the checks among `checkIds` that this build has against `target` and returns the
 * outcomes. Ids without a check stay unknown (the audit warns about them).
 */
export async function behaviourFromTarget(target: string, checkIds: string[], password?: string): Promise<PoolerBehaviour> {
  const engine = await loadRun();
  const runnable = engine.selectChecks === null ? checkIds : checkIds.filter((id) => isRunnable(engine.selectChecks!, id));
  if (runnable.length === 0) return { basis: 'target', name: redactUrl(target), outcomes: new Map() };
  const report = await engine.run({ target, only: runnable, ...(password !== undefined ? { password } : {}) });
  return behaviourFromReport(checkedReport(report, `--target ${redactUrl(target)}`), 'target', target);
}

/** The engine refuses unknown ids as a whole; ask it about each one so one gap costs only itself. */
function isRunnable(select: SelectChecks, id: string): boolean {
  try {
    return select([id], []).includes(id);
  } catch {
    return false;
  }
}

async function loadRun(): Promise<RunModule> {
  let mod: { run?: unknown; selectChecks?: unknown };
  try {
    mod = (await import(RUN_MODULE)) as { run?: unknown; selectChecks?: unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Only the runner itself missing means "no runner"; a module missing behind it is a bug.
    const runPath = fileURLToPath(new URL(RUN_MODULE, import.meta.url)).replace(/\.js$/, '');
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && message.includes(runPath)) {
      throw new PooltestError('INTERNAL', 'this build of pooltest has no check runner (engine/run.js) for --target; run `pooltest --target URL --json report.json` and pass --report report.json');
    }
    throw new PooltestError('INTERNAL', `loading the check runner (engine/run.js) for --target failed: ${message}`);
  }
  if (typeof mod.run !== 'function') throw new PooltestError('INTERNAL', 'engine/run.js does not export run()');
  return { run: mod.run as RunChecks, selectChecks: typeof mod.selectChecks === 'function' ? (mod.selectChecks as SelectChecks) : null };
}
