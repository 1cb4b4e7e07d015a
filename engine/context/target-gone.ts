/**
 * A target that stopped answering for good. After a check found the target unavailable, the
 * engine waits (bounded) for it to answer again; when it does not, every later check of the
 * run would pay its own bounds against a silent target (a frozen pooler costs twice the step
 * bound per check, minutes for a catalogue). Instead the later checks are inconclusive at once,
 * with the reason, and the sweep still looks (bounded) and says `unknown` when it cannot.
 *
 * Kept in the run's state (`ctx.state`, run-state.ts): one Vitest worker runs every check of a
 * run, with one state per run for all of them (runner/worker-run-states.ts).
 */
import type { RunState, TargetGone } from './run-state.js';

export type { TargetGone } from './run-state.js';

/** Remembers that the target did not answer within `waitedMs` after `check`. */
export function markTargetGone(ctx: { readonly state: RunState }, check: string, waitedMs: number): void {
  ctx.state.gone ??= { check, waitedMs };
}

/** Whether the target of this run stopped answering, and after which check. */
export function targetGone(ctx: { readonly state: RunState }): TargetGone | null {
  return ctx.state.gone;
}

/** The reason a later check gives for not running. */
export function describeGone(g: TargetGone): string {
  return `not run: the target stopped answering during ${g.check} and did not answer again within ${g.waitedMs} ms; re-run once it answers`;
}
