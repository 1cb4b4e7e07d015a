/** What the sweep at the end of a run established, as a report stores it. */

/**
 * What the sweep could establish: `clean` (every backend visited, nothing found), `dirty`
 * (something of this run's was found, and removed where it could be), or `unknown` (it could
 * not look: the target or --direct unreachable, a backend never reached). Only `dirty` is
 * pooltest's own failure; `unknown` says why in `reason`.
 */
export type SweepState = 'clean' | 'dirty' | 'unknown';

export interface SweepResult {
  /** `state === 'clean'`; kept for readers of reports written before `state` existed. */
  clean: boolean;
  /** Absent only in reports written before it existed: read it with `sweepState`. */
  state?: SweepState;
  /** Why the sweep could not tell (state `unknown`), or why it is not sure. */
  reason?: string;
  backendsVisited: number[];
  /** What was found: state of this run's that was still there (and was removed). */
  leftovers: string[];
  via: string[];
  /**
   * Session settings the pooler itself left on its server connections and the sweep reset:
   * the run's own application_name, which PgBouncer shows to any later client that sends
   * none (see sweep.ts). Routine, not a leftover; absent when there was nothing to reset.
   */
  restored?: string[];
  /**
   * Sessions of this run the pooler kept idle in a transaction after their clients left, which
   * the sweep ended through `--direct` (pg_terminate_backend), one line each: a finding about
   * the pooler, not a leftover (sweep-idle.ts). Absent when there were none.
   */
  ended?: string[];
}

/** A sweep's state, also for reports written before `state` existed (`clean` true or false). */
export function sweepState(s: SweepResult): SweepState {
  return s.state ?? (s.clean ? 'clean' : 'dirty');
}
