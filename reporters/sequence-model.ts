/**
 * What a sequence diagram of one check shows, independent of how it is drawn (SVG in the HTML
 * report, Mermaid in the Markdown one): clients as lifelines, the backends their steps ran on,
 * and the *crossing* - the step where a client ran on the backend another client had created
 * state on. Both renderers draw from this one model, so the picture says the same everywhere.
 *
 * The crossing is read from the step tags the steering code writes (engine/record/tags.ts,
 * the one place they are spelled): the state's creator is `A.create` (with a sub-scenario
 * prefix such as `set:` for checks that run several), and the clients placed on its backend are
 * the observer's `observe.take` or the later looker's `look.take`. Whether state really reached that client is the check's outcome
 * (a breaking label such as `leaked` or `shared`), looked up per sub-scenario when the judge
 * recorded one (`set.outcome`); a client that landed there and saw nothing is still marked,
 * as a landing, because it is what proves the pooler moved the backend.
 *
 * The *decisive* step is the one the outcome turns on: what the check declares in its file
 * (`decisive`: the error or the notification, suites/decisive-steps.ts), else the crossing. A
 * step that did not read its pid but ran inside a transaction its session had open is drawn on
 * that transaction's backend (marked inferred): a transaction pooler keeps a client on one
 * backend for the whole transaction, so O1's error inside its `BEGIN` happened where O1 was.
 */
import type { CheckResult, StepRecord } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { decisiveSteps } from '../suites/decisive-steps.js';
import { stepOutcome } from './step-text.js';
import { CROSSING_TAKES, LANDING_TAGS, phaseOf } from '../engine/record/tags.js';

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
  /** The backend was not read by this step but is that of the transaction its session had open. */
  inferred: boolean;
  /** The step the outcome turns on. */
  decisive: boolean;
}

/** The step the outcome turns on, and what it says in one sentence. */
export interface Decisive {
  seq: number;
  kind: 'crossing' | 'error' | 'notification';
  /** The outcome breaks an application (red), or the step only shows where things went (blue). */
  reached: boolean;
  /** `O1 got 42P05 ... on A's backend 32724, inside its transaction there`. */
  text: string;
}

export interface SequenceModel {
  lanes: string[];
  backends: number[];
  arrows: Arrow[];
  crossings: Crossing[];
  decisive: Decisive | null;
  /** Steps not drawn (beyond the bounds below), so the caption can say so. */
  omittedSteps: number;
  omittedSessions: number;
}

/** Bounds that keep a diagram readable (and a Mermaid block within GitHub's limits). */
export const DIAGRAM_LIMITS: { lanes: number; arrows: number } = { lanes: 10, arrows: 40 };

/** The model of `check`'s recorded steps, folded to {@link DIAGRAM_LIMITS}. */
export function sequenceModel(check: DiagramCheck, limits = DIAGRAM_LIMITS): SequenceModel {
  const crossings = findCrossings(check);
  const backendOf = backendsOf(check.steps);
  const decisive = decisiveStep(check, crossings, backendOf);
  const sessions = [...new Set(check.steps.map((s) => s.session))];
  // Sessions in a crossing are always drawn; the rest fill the remaining lanes in order.
  const wanted = new Set(crossings.flatMap((c) => [c.fromSession, c.toSession]));
  const decisiveSession = check.steps.find((x) => x.seq === decisive?.seq)?.session;
  if (decisiveSession) wanted.add(decisiveSession);
  const lanes = [...sessions.filter((s) => wanted.has(s)), ...sessions.filter((s) => !wanted.has(s))].slice(
    0,
    limits.lanes,
  );
  const ordered = sessions.filter((s) => lanes.includes(s));
  const drawn = check.steps.filter((s) => ordered.includes(s.session));
  const kept = drawn.slice(0, limits.arrows);
  // Crossing steps beyond the arrow bound are pulled in: the crossing is the point of the picture.
  const pulled = [...crossings.flatMap((c) => [c.fromSeq, c.toSeq]), ...(decisive ? [decisive.seq] : [])];
  for (const seq of pulled)
    if (!kept.some((s) => s.seq === seq)) {
      const step = check.steps.find((s) => s.seq === seq);
      if (step && ordered.includes(step.session)) kept.push(step);
    }
  kept.sort((a, b) => a.seq - b.seq);
  const pidOf = (s: StepRecord): number | null => s.pid ?? backendOf.get(s.seq) ?? null;
  const backends = [...new Set(kept.map(pidOf).filter((p): p is number => p !== null))];
  const arrows = kept.map((step): Arrow => {
    const pid = pidOf(step);
    return {
      step,
      lane: ordered.indexOf(step.session),
      backend: pid === null ? -1 : backends.indexOf(pid),
      answer: stepOutcome(step),
      kind: step.error ? 'error' : step.timedOut ? 'waited' : 'ok',
      creates: crossings.some((c) => c.fromSeq === step.seq),
      crossing: crossings.find((c) => c.toSeq === step.seq) ?? null,
      inferred: step.pid === null && pid !== null,
      decisive: decisive?.seq === step.seq,
    };
  });
  return {
    lanes: ordered,
    backends,
    arrows,
    crossings,
    decisive,
    omittedSteps: check.steps.length - kept.length,
    omittedSessions: sessions.length - ordered.length,
  };
}

/** What a diagram is drawn from (the id names the check's declared decisive step). */
export type DiagramCheck = Pick<CheckResult, 'steps' | 'outcome' | 'facts'> & { id?: string };

/**
 * The backend of each step that did not read its pid but ran inside a transaction its session
 * had open (the session's previous step left it in a block, `T`, or a failed one, `E`): the
 * backend of that transaction. By seq.
 */
export function backendsOf(steps: readonly StepRecord[]): Map<number, number> {
  const out = new Map<number, number>();
  const last = new Map<string, { pid: number | null; tx: string | null }>();
  for (const s of [...steps].sort((a, b) => a.seq - b.seq)) {
    const before = last.get(s.session);
    let pid = s.pid;
    if (pid === null && before && before.pid !== null && (before.tx === 'T' || before.tx === 'E')) {
      pid = before.pid;
      out.set(s.seq, pid);
    }
    last.set(s.session, { pid, tx: s.txStatus });
  }
  return out;
}

/** The check's declared decisive step when the record has one, else its crossing, else none. */
function decisiveStep(
  check: DiagramCheck,
  crossings: readonly Crossing[],
  backendOf: Map<number, number>,
): Decisive | null {
  const reached = outcomeBreaks(check.outcome) === true;
  for (const want of decisiveSteps(check.id)) {
    const step = check.steps.find(
      (s) =>
        (want.tag === undefined || s.tag === want.tag || s.tag.endsWith(`:${want.tag}`)) &&
        (want.has === 'error' ? s.error !== null : s.notifications.length > 0),
    );
    if (!step) continue;
    const pid = step.pid ?? backendOf.get(step.seq) ?? null;
    const owner = crossings.find((c) => c.backend === pid)?.fromSession;
    const where =
      pid === null
        ? ''
        : ` on ${owner && owner !== step.session ? `${owner}'s backend` : 'backend'} ${pid}${step.pid === null ? ', inside its transaction there' : ''}`;
    const what =
      want.has === 'error'
        ? `got ${`${step.error!.code ?? ''} ${step.error!.message}`.trim()}`
        : `received the notification on ${step.notifications[0]!.channel} (sent by backend ${step.notifications[0]!.senderPid})`;
    return { seq: step.seq, kind: want.has, reached, text: `${step.session} ${what}${where}` };
  }
  const c = crossings.find((x) => x.reached) ?? crossings[0];
  if (!c) return null;
  const saw = c.reached ? ' and saw its state' : '; the state was not there';
  return {
    seq: c.toSeq,
    kind: 'crossing',
    reached: c.reached,
    text: `${c.toSession} got ${c.fromSession}'s backend ${c.backend} (step ${c.fromSeq})${saw}`,
  };
}

/** Every crossing in the record: per sub-scenario, each other client on A's create backend. */
export function findCrossings(check: DiagramCheck): Crossing[] {
  const out: Crossing[] = [];
  for (const create of check.steps) {
    const prefix = phaseOf(create.tag, LANDING_TAGS.create);
    if (prefix === null || create.pid === null || create.error) continue;
    const outcome = subOutcome(check, prefix);
    for (const take of check.steps) {
      if (!CROSSING_TAKES.some((t) => take.tag === `${prefix}${t}`)) continue;
      if (take.seq <= create.seq || take.session === create.session) continue;
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
