/**
 * The live state of each run in this Vitest worker: one {@link RunState} per run id, shared by
 * every check file of the run that the worker executes.
 *
 * Why a table here: each check file receives the run context as data, a copy of its own
 * (runner/vitest-check.ts), so the copies cannot carry the one live state the run's checks
 * must share (a smaller pool, a target gone, the logins ahead, the kept session). pooltest's
 * runner executes every check file of a run in one worker without isolation
 * (runner/vitest-runner.ts), and this module, imported by the worker's setup file
 * (vitest-worker-setup.ts) but not itself a setup file, is evaluated once per worker: its
 * table outlives each file. It lives in runner/, the owner of the process boundary; engine/
 * keeps no run state at module level and is handed the state as `ctx.state`.
 *
 * Nothing here needs dropping or closing: pooltest's runner starts a Vitest, with its own
 * worker thread, per run, and the thread ends with the run (after the last check, before the
 * runner's sweep); a state's spares and kept session also close themselves once idle
 * (engine/steering/spare-session.ts, engine/steering/kept-session.ts). The runner's own process closes its
 * state when `run()` ends (runner/run.ts).
 */
import { stateFor, type RunState } from '../engine/context/run-state.js';
import type { RunData } from '../engine/steering/scenario.js';

/** The one table: see the file comment for why it is keyed by run id and lives here. */
const runs = new Map<string, RunState>();

/** This worker's state of the run `ctx` belongs to, made on first use. */
export function workerRunState(ctx: Pick<RunData, 'runId' | 'tlsLearned'>): RunState {
  let state = runs.get(ctx.runId);
  if (!state) {
    state = stateFor(ctx);
    runs.set(ctx.runId, state);
  }
  return state;
}
