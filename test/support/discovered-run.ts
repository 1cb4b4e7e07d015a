/**
 * A run context as the runner makes one, for engine tests that execute a check themselves:
 * discovery of the target (through whatever URL the test gives, a proxy included), then the
 * context with the direct server beside it. `releaseRun` closes what the run's steering kept
 * open (spares, kept sessions), as the runner does at the end of a run.
 */
import { discover } from '../../engine/discovery/discovery.js';
import { runContext, RunState } from '../../engine/context/run-state.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import { resolveTarget } from '../../engine/target/target.js';

export async function discoveredRun(
  targetUrl: string,
  directUrl: string,
  runId: string,
  bounds: RunContext['bounds'],
): Promise<RunContext> {
  const target = resolveTarget({ target: targetUrl }, {});
  const direct = resolveTarget({ target: directUrl }, {});
  const state = new RunState();
  const discovery = await discover(target, { bounds, poolBound: 8, runId, state });
  return runContext({ target, direct, discovery, runId, bounds }, state);
}

/** Closes the sessions the run's steering kept (spares and kept sessions). */
export async function releaseRun(ctx: RunContext | undefined): Promise<void> {
  if (ctx) await Promise.all([closeSpares(ctx.state), closeKeptSessions('all', ctx.state)]);
}
