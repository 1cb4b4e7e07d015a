/**
 * What the engine learns during one run and acts on in later checks of the same run, in one
 * object: a pool found smaller, a target that stopped answering, a refusal at capacity, the
 * logins made ahead of need, the kept engine session, and which TLS attempt worked per endpoint.
 *
 * Why a registry keyed by run id rather than a field of the run context: the run context is
 * data that crosses the process boundary (the runner hands it to the Vitest workers through
 * provide/inject, which serializes it), so every check file may see its own copy of it, and
 * open sessions and timers cannot travel in it. One Vitest worker runs every check file of a
 * run in one process without isolation (runner/vitest-runner.ts), and what one check finds (a
 * smaller pool, a target gone) must reach the next: so the state outlives any one copy of the
 * context, and there is exactly one {@link RunState} per run id in each process, found through
 * the context with {@link runState}. Nothing else in engine/ keeps run state at module level
 * (test/architecture/run-state.test.ts).
 */
import type { PoolChange } from './judging/pool-change.js';
import type { Session } from './session/session.js';
import type { Spares } from './steering/spare-session.js';

/** A session the engine keeps open for its own questions (steering/kept-session.ts). */
export interface KeptSession {
  session: Promise<Session>;
  timer: NodeJS.Timeout | null;
  /** Questions in flight: the idle timer only runs while nobody uses the session. */
  users: number;
}

/** A target that stopped answering for good, after `check` (engine/target-gone.ts). */
export interface TargetGone {
  /** The check after which the target did not answer again. */
  check: string;
  /** How long the engine waited for an answer after it. */
  waitedMs: number;
}

export class RunState {
  /** The blocking pool change of the run (pool-watch.ts), once one was found. */
  poolChange: PoolChange | null = null;
  /** The first check after which the target did not answer again (target-gone.ts). */
  gone: TargetGone | null = null;
  /** A client of the run was refused at capacity: no more logins ahead (spare-session.ts). */
  sparesRefused = false;
  /** The run's logins ahead of need, per endpoint and login (spare-session.ts). */
  readonly spares = new Map<string, Spares>();
  /** The run's kept engine sessions, per endpoint (kept-session.ts). */
  readonly kept = new Map<string, KeptSession>();
  /** Per endpoint and sslmode: whether TLS was the attempt that worked (session/connect.ts). */
  readonly tlsFirst = new Map<string, boolean>();
}

/** The one registry: see the file comment for why it is keyed by run id. */
const runs = new Map<string, RunState>();

/** The state of the run `ctx` belongs to in this process, created on first use. */
export function runState(ctx: { readonly runId: string }): RunState {
  let state = runs.get(ctx.runId);
  if (!state) {
    state = new RunState();
    runs.set(ctx.runId, state);
  }
  return state;
}

/** Every run's state in this process (closing every run's sessions at once). */
export function everyRunState(): RunState[] {
  return [...runs.values()];
}

/**
 * Drops the run's state from this process once the run is over, and returns it so its sessions
 * can be closed: a library user running many runs in one process keeps none of them.
 */
export function forgetRun(runId: string): RunState | undefined {
  const state = runs.get(runId);
  runs.delete(runId);
  return state;
}
