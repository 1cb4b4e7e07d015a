/** What discovery is given: its bounds, the run it is a phase of, and the caller's hooks. */
import type { RunContext, RunState } from '../context/run-state.js';
import type { Discovery } from '../record/discovery-facts.js';

export interface DiscoveryOptions {
  bounds: RunContext['bounds'];
  /** Most backends to count before calling the pool "too large to steer". */
  poolBound: number;
  /** Fixed wait bound in ms; computed from round trips when absent. */
  waitMs?: number;
  /** Raise POOL_TOO_LARGE when transaction pooling has more backends than the bound. */
  failOnLargePool?: boolean;
  /** The run's id: discovery's sessions carry the run's application_name (see Session). */
  runId?: string;
  /**
   * The run's live state in this process (run-state.ts), when discovery is a phase of a run
   * that has one: its TLS choices carry over, and a recount takes the run's spares. A
   * discovery of its own gets a new one.
   */
  state?: RunState;
  /** Stops discovery at once (its sessions fail, and discovery throws). */
  signal?: AbortSignal;
  /**
   * Called once the first client's first query was answered (the target is reachable and
   * speaks PostgreSQL), and awaited before anything discovery times: the runner starts Vitest
   * here (runner/vitest-runner.ts, startSuites), and its start-up on this thread would
   * otherwise stretch the round trips and logins that the run's bounds are derived from.
   */
  beforeTimed?: () => Promise<unknown>;
  /**
   * Called once the target accepted a TCP connection, before the first login: the runner starts
   * loading Vitest's module here (alongside that login). Not before: a target that cannot be
   * reached ends the run at once, and a module still loading would keep the process alive for
   * about a second of CPU after the error was said.
   */
  onReachable?: () => void;
  /**
   * An earlier discovery of the same target, for a recount (pool-watch.ts): its round
   * trips, identity and transaction-block answer are taken as they were, and only the pool is
   * counted and classified again. At a distance that saves most of discovery's round trips.
   */
  known?: Discovery;
}
