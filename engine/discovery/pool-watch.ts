/**
 * Watching the pool for damage. A real pooler can lose a server slot for good when a client
 * dies inside a transaction (its pool of 2 becomes a pool of 1 and never recovers). Steering
 * with the old count then goes wrong in the same way for every later check. So after each
 * check flagged `destructive` (they run last, in a fixed order: runner/check-order.ts) the
 * pool is counted again. A smaller pool is an availability finding of the check that caused
 * it, with the counts; the run carries on with the new count when it can still steer (2
 * backends or more), and otherwise every later check is inconclusive with that reason.
 *
 * The change is kept in the run's state (`ctx.state`, run-state.ts): the Vitest worker runs
 * every check file of a run in one process, with one state per run for all of them
 * (runner/worker-run-states.ts), so a change seen after one check is known to the next. The
 * recount's result is also a fact of the check's record (record/run-facts.ts).
 */
import { discover } from './discovery.js';
import type { PoolChange } from '../record/pool-change.js';
import type { RunContext } from '../steering/scenario.js';

export { describeChange, type PoolChange } from '../record/pool-change.js';

/** What counting the pool again found: a smaller pool, or why it could not count. */
export type Recount = { change: PoolChange | null } | { failed: string };

/** The blocking pool change of this run, if one was found. */
export function blockingChange(ctx: Pick<RunContext, 'state'>): PoolChange | null {
  const c = ctx.state.poolChange;
  return c?.blocking ? c : null;
}

/**
 * Counts the pool again after `checkId`. Returns the change when it is smaller than the
 * count steering used, and then updates `ctx.discovery` (carry on) or blocks later checks.
 * No change when unchanged or when there was no count to compare; `failed` when re-discovery
 * failed (an outage is the outage rules' business, not a smaller pool).
 */
export async function recountAfter(ctx: RunContext, checkId: string): Promise<Recount> {
  const before = ctx.discovery.poolSize;
  if (before === null || ctx.discovery.mode === 'direct') return { change: null };
  let again;
  try {
    again = await discover(ctx.target, {
      bounds: ctx.bounds,
      poolBound: ctx.discovery.poolBound,
      runId: ctx.runId,
      state: ctx.state,
      waitMs: ctx.discovery.waitBoundMs,
      failOnLargePool: false,
      known: ctx.discovery,
    });
  } catch (err) {
    return { failed: err instanceof Error ? err.message : String(err) };
  }
  // null: no limit met up to the bound - not a smaller pool.
  const after = again.poolSize;
  if (after === null || after >= before) return { change: null };
  const blocking = after < 2 || again.mode !== ctx.discovery.mode;
  const change: PoolChange = { check: checkId, before, after, blocking };
  ctx.state.poolChange = change;
  if (!blocking)
    Object.assign(ctx.discovery, {
      poolSize: after,
      sharedAcrossClients: again.sharedAcrossClients,
      clientKeepsBackend: again.clientKeepsBackend,
    });
  return { change };
}
