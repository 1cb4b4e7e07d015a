/**
 * Checks known to leave a pooler unusable until it restarts, declared as data on the check
 * (`wedges`), and the skip that keeps a default run from walking into one. The pooler is
 * identified before any check runs (discovery's fingerprint and mode), so a run against a
 * shared pooler never breaks it for its other users unless asked to (`--run-wedging`).
 *
 * A wedge is a finding about the pooler, not an outcome of the check: the check's own question
 * cannot be answered without taking the pooler down, so the check is `skipped` with the reason.
 */
import type { Discovery } from '../record/discovery-facts.js';
import type { RunContext } from '../steering/scenario.js';

/** A pooler (by fingerprint name) and pooling mode a check is known to wedge, and how. */
export interface KnownWedge {
  /** Discovery's pooler name (engine/discovery/fingerprint.ts), e.g. `pgagroal`. */
  pooler: string;
  mode: Discovery['mode'];
  /** What the check does that wedges it, and what is left: said in the skip. */
  why: string;
}

/** Why the check is not run against this target by default (a known wedge), or null. */
export function wedgeSkip(wedges: readonly KnownWedge[] | undefined, ctx: RunContext): string | null {
  if (ctx.runWedging) return null;
  const name = ctx.discovery.pooler?.name;
  const hit = wedges?.find((w) => w.pooler === name && w.mode === ctx.discovery.mode);
  return hit
    ? `not run by default: it is known to wedge ${hit.pooler} in ${hit.mode} mode (${hit.why}); --run-wedging runs it anyway`
    : null;
}
