/**
 * The judge shared by the state checks. It reads the record of `runStateScenario` and decides
 * between `session`, `leaked`, `lost`, `tracked`, `pinned` and `rejected`, or returns no
 * outcome when the steering the decision needs is not in the record. The rules, in order:
 *
 * 1. A's create step failed with an SQLSTATE: `rejected`. Failed without one (lost connection,
 *    timeout), or no pid recorded: inconclusive.
 * 2. A's readback did not answer or carries no pid: inconclusive.
 * 3. A candidate observer ran on A's old backend (same pid as A's create):
 *    - it saw the state: `leaked`;
 *    - it did not, and A's readback ran elsewhere: `tracked` if A still has it, else `lost`;
 *    - it did not, but A's readback ran on that same backend: inconclusive (contradiction).
 * 4. No observer reached A's old backend:
 *    - A's readback ran elsewhere: inconclusive (nobody looked at the old backend);
 *    - A stayed and kept the state: `pinned` if discovery saw backends shared between connected
 *      clients (the pooler made an exception for A), otherwise `session` - provided the record
 *      proves the pooler kept that backend from other clients (judging/landing.ts: no pooling,
 *      a queue while the backend sat idle, or an unbounded session pool exhausted), else
 *      inconclusive: under other traffic a queued candidate proves nothing by itself;
 *    - A stayed and lost it: `lost` (nobody else held that backend in between).
 */
import type { Discovery, Facts, Judgement, StepRecord, Unknown } from '../types.js';
import type { StateLabel } from './state-outcomes.js';
import { readLanding, sharesBackends } from './landing.js';
import { LANDING_TAGS } from '../record/tags.js';
import { answered, errorText, sqlError, stepOf, stepsOf } from '../record/step-reading.js';

export interface StateReading {
  /** Whether the observer's take shows the state; null when the step cannot tell. */
  seenByOther(take: StepRecord): boolean | null;
  /** Whether A's readback shows A still has the state; null when it cannot tell. */
  keptByA(readback: StepRecord): boolean | null;
  /** What a step showed, in a few words (`statement_timeout = 3601007ms`), for the evidence line. */
  show?(step: StepRecord): string;
}

export function judgeState(
  steps: readonly StepRecord[],
  discovery: Discovery,
  reading: StateReading,
): Judgement<StateLabel> {
  const create = stepOf(steps, LANDING_TAGS.create);
  if (!create) return none({}, 'A never created the state (no A.create step)');
  if (sqlError(create)) {
    return {
      outcome: 'rejected',
      facts: { rejectedWith: errorText(create) },
      reason: `the statement was refused: ${errorText(create)}`,
    };
  }
  if (create.error || create.pid === null)
    return none({}, `A's create step failed without an SQLSTATE: ${errorText(create) ?? 'no pid recorded'}`);
  const b1 = create.pid;
  const readback = stepOf(steps, LANDING_TAGS.readback);
  if (!answered(readback) || readback.pid === null) {
    return none({ aBackend: b1 }, `A's next transaction did not answer (${errorText(readback) ?? 'missing'})`);
  }
  const b2 = readback.pid;
  const kept = reading.keptByA(readback);
  const takes = stepsOf(steps, LANDING_TAGS.observe);
  const observer = takes.find((t) => t.pid === b1 && !t.timedOut);
  // Queued as judging/landing.ts defines it (the one definition): timed out, or refused where that means the same.
  const landing = readLanding(steps, discovery, b1);
  const facts = {
    aBackend: b1,
    aNextBackend: b2,
    aChangedBackend: b1 !== b2,
    aKeptState: kept,
    observerOnOldBackend: observer !== undefined,
    candidatesTried: takes.length,
    candidateQueued: landing.queued,
    otherSawState: null as boolean | null,
  };
  const shown = (step: StepRecord): string => (reading.show ? ` (${reading.show(step)})` : '');
  if (observer) {
    const saw = reading.seenByOther(observer);
    facts.otherSawState = saw;
    if (saw === null) return none(facts, `the observer on backend ${b1} returned no reading`);
    if (saw)
      return {
        outcome: 'leaked',
        facts,
        reason: `${observer.session}, another client, got A's old backend ${b1} and saw A's state${shown(observer)}; A's next transaction ran on ${b2}${shown(readback)}`,
      };
    if (b1 === b2) return none(facts, `A's next transaction ran on backend ${b1} while the observer held it`);
    if (kept === null) return none(facts, `A's next transaction on backend ${b2} returned no reading`);
    return kept
      ? {
          outcome: 'tracked',
          facts,
          reason: `the state followed A to backend ${b2}${shown(readback)}; ${observer.session} on A's old backend ${b1} did not see it${shown(observer)}`,
        }
      : {
          outcome: 'lost',
          facts,
          reason: `A lost the state on backend ${b2}${shown(readback)}; ${observer.session} on A's old backend ${b1} did not see it${shown(observer)}`,
        };
  }
  if (b1 !== b2) return none(facts, `A moved from backend ${b1} to ${b2} but no other client could be placed on ${b1}`);
  if (kept === null) return none(facts, `A's next transaction returned no reading`);
  if (!kept) return { outcome: 'lost', facts, reason: `A stayed on backend ${b1} and its state was gone` };
  if (landing.reservedBy === null)
    return none(
      { ...facts, backendsSeen: landing.backendsSeen },
      `no candidate reached backend ${b1}, and nothing proves the pooler kept it for A: ${landing.doubt}`,
    );
  if (sharesBackends(discovery)) {
    return { outcome: 'pinned', facts, reason: `the pooler kept A on backend ${b1}: other clients could not get it` };
  }
  const how = {
    queue: 'a client trying for it was queued while it sat idle',
    direct: 'the target gives every client its own backend',
    pool: `${takes.length} other client(s) got other backends`,
  }[landing.reservedBy];
  return {
    outcome: 'session',
    facts,
    reason: `A kept the state on its own backend ${b1}${shown(readback)}; no other client could use that backend (${how})`,
  };
}

/**
 * Missing A's old backend (`A.create`'s pid) means something only when the record proves the
 * pooler kept it from other clients; see judging/landing.ts for what counts as proof.
 */
export function candidatesExhausted(
  steps: readonly StepRecord[],
  discovery: Discovery,
  tag: string = LANDING_TAGS.observe,
): boolean {
  const prefix = tag.slice(0, tag.length - LANDING_TAGS.observe.length);
  const b1 = stepOf(steps, `${prefix}${LANDING_TAGS.create}`)?.pid;
  return typeof b1 === 'number' && readLanding(steps, discovery, b1, prefix).reservedBy !== null;
}

function none(facts: Facts, reason: string): Unknown {
  return { outcome: null, facts, reason };
}
