/**
 * A target that stopped answering for good. After a check found the target unavailable, the
 * engine waits (bounded) for it to answer again; when it does not, every later check of the
 * run would pay its own bounds against a silent target (a frozen pooler costs twice the step
 * bound per check, minutes for a catalogue). Instead the later checks are inconclusive at once,
 * with the reason, and the sweep still looks (bounded) and says `unknown` when it cannot.
 *
 * State is per run and per process, as in pool-watch.ts: one Vitest worker runs every check of a run.
 */

export interface TargetGone {
  /** The check after which the target did not answer again. */
  check: string;
  /** How long the engine waited for an answer after it. */
  waitedMs: number;
}

const gone = new Map<string, TargetGone>();

/** Remembers that the target did not answer within `waitedMs` after `check`. */
export function markTargetGone(runId: string, check: string, waitedMs: number): void {
  if (!gone.has(runId)) gone.set(runId, { check, waitedMs });
}

/** Whether the target of this run stopped answering, and after which check. */
export function targetGone(runId: string): TargetGone | null {
  return gone.get(runId) ?? null;
}

/** The reason a later check gives for not running. */
export function describeGone(g: TargetGone): string {
  return `not run: the target stopped answering during ${g.check} and did not answer again within ${g.waitedMs} ms; re-run once it answers`;
}
