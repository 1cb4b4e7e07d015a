/**
 * What the engine knows about any record, whatever the check: the vetoes. Each is a pure
 * function from the record (the check's steps, what discovery found, what the check declares)
 * and the outcome its judge proposed to a reason the outcome does not stand, or null. The
 * chain is {@link VETOES}, read in order; the first that objects makes the check inconclusive.
 * (Jepsen composes its checkers the same way: each may only make a result less valid.)
 */
import type { LandingNeed } from '../record/check-meta.js';
import { OTHER_RUNS_TAG } from '../record/run-facts.js';
import { isConnectTag, isLandingTake } from '../record/tags.js';
import type { Discovery, Facts, StepRecord } from '../types.js';
import { failedStep } from './absence.js';
import { isCapacityRefusal } from '../record/capacity-refusal.js';
import { unprovenLandings } from './landing.js';
import { nothingAnswered, outageIn } from './outage.js';
import { numberOf } from '../record/step-reading.js';

/** What a veto reads: the record, what the check declares, and the judge's proposal. */
export interface VetoInput {
  steps: readonly StepRecord[];
  discovery: Discovery;
  restsOn: readonly LandingNeed[];
  answersWithRefusals: boolean;
  /** The label the check's judge read from the record. */
  outcome: string;
}

/** Why the proposed outcome does not stand, and the facts that say so. */
export interface Veto {
  reason: string;
  facts?: Facts;
}

export type VetoRule = (r: VetoInput) => Veto | null;

const unproven = (outcome: string): string => `(without that the record would read "${outcome}")`;

/**
 * Another pooltest run was active during the check (steering/other-runs.ts): its session
 * resets can erase this run's state on shared backends.
 */
export const otherRunsVeto: VetoRule = ({ steps, outcome }) => {
  const others = otherRunsIn(steps);
  if (others <= 0) return null;
  const why =
    `${others} other pooltest run(s) worked on this target during the check, ` +
    'and their checks reset whole sessions (DISCARD ALL, RESET ALL) on shared backends';
  return {
    facts: { otherPooltestRuns: others },
    reason: `not conclusive: ${why}; run one at a time for a conclusive answer ${unproven(outcome)}`,
  };
};

/** How many other pooltest runs the engine saw active during the check (its note), 0 if none. */
export function otherRunsIn(steps: readonly StepRecord[]): number {
  return (
    numberOf(
      steps.find((s) => s.tag === OTHER_RUNS_TAG),
      'other_runs',
    ) ?? 0
  );
}

/**
 * The target was unavailable during the check (judging/outage.ts: a restarting server's errors
 * are no refusal), or every connection of the check failed (nothing answered).
 */
export const outageVeto: VetoRule = ({ steps, outcome }) => {
  const outage = outageIn(steps) ?? nothingAnswered(steps);
  if (!outage) return null;
  const none = nothingAnswered(steps) ? '; no connection of the check was answered' : '';
  return {
    reason: `not conclusive: the target was unavailable during the check (${failedStep(outage)}${none}) ${unproven(outcome)}`,
  };
};

/**
 * A statement of the check was refused for want of room (record/capacity-refusal.ts), unless
 * the check answers with such refusals (capacity checks). A refused landing candidate is a
 * queue (judging/landing.ts), not this: the pooler never ran the statement, so it neither
 * refused nor allowed it.
 */
export const capacityVeto: VetoRule = ({ steps, outcome, answersWithRefusals }) => {
  if (answersWithRefusals) return null;
  const full = steps.find((x) => isCapacityRefusal(x.error) && !isConnectTag(x.tag) && !isLandingTake(x.tag));
  if (!full) return null;
  return {
    reason: `not conclusive: the pooler had no room for a client of the check (${failedStep(full)}), a refusal at capacity, not an answer to the statement ${unproven(outcome)}`,
  };
};

/**
 * A landing the conclusion rests on missed A's backend without proof that the pooler kept it
 * (judging/landing.ts: a candidate queued behind other clients' traffic, a pool that changed).
 */
export const landingVeto: VetoRule = ({ steps, discovery, restsOn, outcome }) => {
  const doubts = unprovenLandings(steps, discovery, restsOn);
  if (doubts.length === 0) return null;
  return {
    reason: `not conclusive: ${doubts.join('; ')} (without that doubt the record would read "${outcome}")`,
  };
};

/** The chain, in the order the vetoes are asked. */
export const VETOES: readonly VetoRule[] = [otherRunsVeto, outageVeto, capacityVeto, landingVeto];

/** The first veto of the chain that objects to the proposed outcome, or null. */
export function firstVeto(input: VetoInput, chain: readonly VetoRule[] = VETOES): Veto | null {
  for (const rule of chain) {
    const veto = rule(input);
    if (veto) return veto;
  }
  return null;
}
