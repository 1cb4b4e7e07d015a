/**
 * What the engine learns during one run and acts on in later checks of the same run, in one
 * object: a pool found smaller, a target that stopped answering, a refusal at capacity, the
 * logins made ahead of need, the kept engine session, and which TLS attempt worked per endpoint.
 *
 * The engine finds it as a field of the run context it is handed (`ctx.state`), never by run id
 * in a table of its own: engine/ keeps no run state at module level
 * (test/architecture/run-state.test.ts). The context has two parts. {@link RunData} is data
 * (target, discovery, bounds, run id) and is what crosses the process boundary: the runner
 * hands it to the Vitest workers through provide/inject or a channel, which serialize it. The
 * {@link RunState} is live (open sessions, timers) and never travels: whoever owns a process
 * makes the one for its side and attaches it. `run()` makes the runner's; in a Vitest worker,
 * runner/worker-run-states.ts keeps one per run for every check file of that run; a caller of
 * the engine's functions gets one from {@link runContext}, which builds the context.
 */
import type { Discovery } from '../record/discovery-facts.js';
import type { PoolChange } from '../record/pool-change.js';
import type { Target } from '../target/target.js';

/**
 * Everything a check needs to know about the run, as data: handed to Vitest workers via
 * provide/inject (serialized), so it holds nothing live.
 */
export interface RunData {
  target: Target;
  direct: Target | null;
  discovery: Discovery;
  /** Unique per run: every marker (lock key, channel, table, GUC value) derives from it. */
  runId: string;
  bounds: { connectMs: number; stepMs: number };
  /**
   * The target is a throwaway server pooltest (or the caller) started for this run: checks
   * that would disturb other users of a shared server (capacity/burst) may run.
   */
  fixture?: boolean;
  /** Run the checks known to wedge the pooler discovery identified too (engine/execute/known-wedge.ts). */
  runWedging?: boolean;
  /**
   * Which TLS attempt worked per endpoint and sslmode (RunState.tlsFirst), as the process that
   * handed this over had learned it ({@link runData} below).
   */
  tlsLearned?: Array<[string, boolean]>;
}

/**
 * The run as the engine sees it in one process: the data, and the run's live state there (its
 * spares, kept sessions, what earlier checks found). Built with {@link runContext}.
 */
export interface RunContext extends RunData {
  readonly state: RunState;
}

/**
 * A live part of the run's state that a layer above this one owns and types (steering's logins
 * ahead of need and kept engine session): a constant key, and how to make the part on first
 * use. The state holds the parts without knowing their types, so this layer imports no
 * session nor steering.
 */
export interface LivePart<T> {
  /** What the part holds, for a reader of the state. */
  readonly name: string;
  make(): T;
}

/** A target that stopped answering for good, after `check` (engine/context/target-gone.ts). */
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
  /** Per endpoint and sslmode: whether TLS was the attempt that worked (session/connect.ts). */
  readonly tlsFirst = new Map<string, boolean>();
  /** The live parts layers above keep per run: logins ahead of need, the kept engine session. */
  private readonly parts = new Map<LivePart<unknown>, unknown>();

  /** The run's `part` in this process, made on first use (steering/spare-session.ts, kept-session.ts). */
  part<T>(key: LivePart<T>): T {
    if (!this.parts.has(key)) this.parts.set(key, key.make());
    // Only this method stores a part, and under its own key, from that key's make(): a T.
    return this.parts.get(key) as T;
  }
}

/**
 * The run context for `data`, carrying `state`: a new one unless the caller shares one (the
 * later phases of the same run in the same process must, or they forget what earlier ones
 * learned). The data is not copied: a change to `discovery` is seen through both.
 */
export function runContext(data: RunData, state: RunState = stateFor(data)): RunContext {
  return { ...data, state };
}

/**
 * The serializable part of `ctx`, for handing to another process: the live state stays here,
 * but for what it learned of TLS per endpoint (`tlsLearned`), so that the other side's first
 * login does not ask for TLS a server already refused (a round trip and a TCP connection).
 */
export function runData(ctx: RunData & { state?: unknown }): RunData {
  const { state, ...data } = ctx;
  const learned = state instanceof RunState ? [...state.tlsFirst] : [];
  return learned.length > 0 ? { ...data, tlsLearned: learned } : data;
}

/** A new live state for the run `data` describes, knowing what it says was learned of TLS. */
export function stateFor(data: Pick<RunData, 'tlsLearned'>): RunState {
  const state = new RunState();
  for (const [endpoint, tls] of data.tlsLearned ?? []) state.tlsFirst.set(endpoint, tls);
  return state;
}
