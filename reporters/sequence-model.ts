/**
 * What a sequence diagram of one check shows, independent of how it is drawn (SVG in the HTML
 * report, Mermaid in the Markdown one): clients as lifelines, the backends their steps ran on,
 * and the *crossing* - the step where a client ran on the backend another client had created
 * state on. Both renderers draw from this one model, so the picture says the same everywhere.
 *
 * The crossing is read from the step tags the steering code writes (engine/steering/): the
 * state's creator is `A.create` (with a sub-scenario prefix such as `set:` for checks that run
 * several), and the clients placed on its backend are the observer's `observe.take` or the
 * later looker's `look.take`. Whether state really reached that client is the check's outcome
 * (a breaking label such as `leaked` or `shared`), looked up per sub-scenario when the judge
 * recorded one (`set.outcome`); a client that landed there and saw nothing is still marked,
 * as a landing, because it is what proves the pooler moved the backend.
 */
import type { CheckResult, StepRecord } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { stepOutcome } from './step-text.js';

/** Where an observer reached the backend another client had created state on. */
export interface Crossing {
  /** `seq` of the step that created the state (A.create). */
  fromSeq: number;
  /** `seq` of the other client's step on that backend. */
  toSeq: number;
  backend: number;
  fromSession: string;
  toSession: string;
  /** The state reached the other client (the outcome breaks), or it only landed there. */
  reached: boolean;
}

/** One arrow: a step from a client lifeline to the backend that ran it. */
export interface Arrow {
  step: StepRecord;
  /** Index into `lanes`. */
  lane: number;
  /** Index into `backends`, or -1 when the step recorded no backend. */
  backend: number;
  /** What came back, one line (error, wait, rows, notices). */
  answer: string;
  kind: 'ok' | 'error' | 'waited';
  /** This step created the state that later crossed (or landed). */
  creates: boolean;
  /** The crossing this step is the far end of, if any. */
  crossing: Crossing | null;
}

export interface SequenceModel {
  lanes: string[];
  backends: number[];
  arrows: Arrow[];
  crossings: Crossing[];
  /** Steps not drawn (beyond the bounds below), so the caption can say so. */
  omittedSteps: number;
  omittedSessions: number;
}

/** Bounds that keep a diagram readable (and a Mermaid block within GitHub's limits). */
export const DIAGRAM_LIMITS: { lanes: number; arrows: number } = { lanes: 10, arrows: 40 };

/** The model of `check`'s recorded steps, folded to {@link DIAGRAM_LIMITS}. */
export function sequenceModel(
  check: Pick<CheckResult, 'steps' | 'outcome' | 'facts'>,
  limits = DIAGRAM_LIMITS,
): SequenceModel {
  const crossings = findCrossings(check);
  const sessions = [...new Set(check.steps.map((s) => s.session))];
  // Sessions in a crossing are always drawn; the rest fill the remaining lanes in order.
  const wanted = new Set(crossings.flatMap((c) => [c.fromSession, c.toSession]));
  const lanes = [...sessions.filter((s) => wanted.has(s)), ...sessions.filter((s) => !wanted.has(s))].slice(
    0,
    limits.lanes,
  );
  const ordered = sessions.filter((s) => lanes.includes(s));
  const drawn = check.steps.filter((s) => ordered.includes(s.session));
  const kept = drawn.slice(0, limits.arrows);
  // Crossing steps beyond the arrow bound are pulled in: the crossing is the point of the picture.
  for (const c of crossings)
    for (const seq of [c.fromSeq, c.toSeq])
      if (!kept.some((s) => s.seq === seq)) kept.push(check.steps.find((s) => s.seq === seq)!);
  kept.sort((a, b) => a.seq - b.seq);
  const backends = [...new Set(kept.map((s) => s.pid).filter((p): p is number => p !== null))];
  const arrows = kept.map((step): Arrow => ({
    step,
    lane: ordered.indexOf(step.session),
    backend: step.pid === null ? -1 : backends.indexOf(step.pid),
    answer: stepOutcome(step),
    kind: step.error ? 'error' : step.timedOut ? 'waited' : 'ok',
    creates: crossings.some((c) => c.fromSeq === step.seq),
    crossing: crossings.find((c) => c.toSeq === step.seq) ?? null,
  }));
  return {
    lanes: ordered,
    backends,
    arrows,
    crossings,
    omittedSteps: check.steps.length - kept.length,
    omittedSessions: sessions.length - ordered.length,
  };
}

const CREATE = /^(.*?)A\.create$/;
const TAKE = /^(.*?)(observe|look)\.take$/;

/** Every crossing in the record: per sub-scenario, each other client on A's create backend. */
export function findCrossings(check: Pick<CheckResult, 'steps' | 'outcome' | 'facts'>): Crossing[] {
  const out: Crossing[] = [];
  for (const create of check.steps) {
    const prefix = CREATE.exec(create.tag)?.[1];
    if (prefix === undefined || create.pid === null || create.error) continue;
    const outcome = subOutcome(check, prefix);
    for (const take of check.steps) {
      const m = TAKE.exec(take.tag);
      if (!m || m[1] !== prefix || take.seq <= create.seq || take.session === create.session) continue;
      if (take.pid !== create.pid || take.timedOut || take.error) continue;
      out.push({
        fromSeq: create.seq,
        toSeq: take.seq,
        backend: create.pid,
        fromSession: create.session,
        toSession: take.session,
        reached: outcomeBreaks(outcome) === true,
      });
    }
  }
  return out;
}

/** The outcome of the sub-scenario with tag prefix `set:` (fact `set.outcome`), else the check's. */
function subOutcome(check: Pick<CheckResult, 'outcome' | 'facts'>, prefix: string): string | null {
  const key = `${prefix.replace(/:$/, '')}.outcome`;
  const sub = prefix !== '' ? check.facts[key] : undefined;
  return typeof sub === 'string' ? sub : check.outcome;
}
