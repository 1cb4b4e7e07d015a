/**
 * Watching the pool for damage. A real pooler can lose a server slot for good when a client
 * dies inside a transaction (its pool of 2 becomes a pool of 1 and never recovers). Steering
 * with the old count then goes wrong in the same way for every later check. So after each
 * check flagged `destructive` (they run last, in a fixed order: runner/check-order.ts) the
 * pool is counted again. A smaller pool is an availability finding of the check that caused
 * it, with the counts; the run carries on with the new count when it can still steer (2
 * backends or more), and otherwise every later check is inconclusive with that reason.
 *
 * State is per run and per process: the Vitest worker runs every check file of a run in one
 * process without isolation, so a change seen after one check is known to the next.
 */
import { discover } from './discovery.js';
import type { RunContext } from './steering/scenario.js';

export interface PoolChange {
  /** The check after which the pool was found smaller. */
  check: string;
  before: number;
  after: number;
  /** Later checks cannot be steered on what is left (fewer than 2 backends, or no count). */
  blocking: boolean;
}

const changes = new Map<string, PoolChange>();
/** Why the last recount of a run could not count (reported in the check's facts). */
const lastFailure = new Map<string, string>();

/** The failure of the last recount of this run, if it failed; cleared by reading it. */
export function takeRecountFailure(runId: string): string | null {
  const f = lastFailure.get(runId) ?? null;
  lastFailure.delete(runId);
  return f;
}

/** The blocking pool change of this run, if one was found. */
export function blockingChange(runId: string): PoolChange | null {
  const c = changes.get(runId);
  return c?.blocking ? c : null;
}

/**
 * Counts the pool again after `checkId`. Returns the change when it is smaller than the
 * count steering used, and then updates `ctx.discovery` (carry on) or blocks later checks.
 * Null when unchanged, when there was no count to compare, or when re-discovery failed (an
 * outage is the outage rules' business, not a smaller pool).
 */
export async function recountAfter(ctx: RunContext, checkId: string): Promise<PoolChange | null> {
  const before = ctx.discovery.poolSize;
  if (before === null || ctx.discovery.mode === 'direct') return null;
  let again;
  try {
    again = await discover(ctx.target, {
      bounds: ctx.bounds,
      poolBound: ctx.discovery.poolBound,
      runId: ctx.runId,
      waitMs: ctx.discovery.waitBoundMs,
      failOnLargePool: false,
      known: ctx.discovery,
    });
  } catch (err) {
    lastFailure.set(ctx.runId, err instanceof Error ? err.message : String(err));
    return null;
  }
  // null: no limit met up to the bound - not a smaller pool.
  const after = again.poolSize;
  if (after === null || after >= before) return null;
  const blocking = after < 2 || again.mode !== ctx.discovery.mode;
  const change: PoolChange = { check: checkId, before, after, blocking };
  changes.set(ctx.runId, change);
  if (!blocking)
    Object.assign(ctx.discovery, {
      poolSize: after,
      sharedAcrossClients: again.sharedAcrossClients,
      clientKeepsBackend: again.clientKeepsBackend,
    });
  return change;
}

/** The finding's words, for the check that caused it and for the ones after it. */
export function describeChange(c: PoolChange): string {
  return `the pool was smaller after ${c.check}: ${c.before} backend(s) before, ${c.after} after (counted again)`;
}
