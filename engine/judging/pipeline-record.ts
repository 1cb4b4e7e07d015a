/**
 * Reading the record of the `pipeline/*` checks' rounds (steering/pipeline-rounds.ts): how A's
 * pipeline ended when it did not answer (stalled, dropped, malformed), whether another client
 * saw A's state or ran inside A's transaction, and whether the rounds proved that the pool was
 * shared at all (a backend that served A and another client), without which a good outcome is
 * no evidence. Pure functions of the record.
 */
import type { Discovery } from '../record/discovery-facts.js';
import type { StepRecord } from '../record/step-record.js';
import { PIPELINE_TAGS, releaseTagFor } from '../record/tags.js';

/** The labels every pipeline check shares for a pipeline that got no proper answer. */
export type TransportLabel = 'stalled' | 'dropped' | 'malformed';

/** A's pipeline steps: every segment of every round (`A.pipe.<n>`). */
export function pipeSteps(steps: readonly StepRecord[]): StepRecord[] {
  return steps.filter((s) => s.tag.startsWith(`${PIPELINE_TAGS.pipe}.`));
}

/** The segment number of a pipe step (`A.pipe.2` is 2), or null. */
export function segmentOf(step: StepRecord): number | null {
  const n = Number(step.tag.slice(PIPELINE_TAGS.pipe.length + 1));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** One of A's pipeline steps with its segment, and its round: the n-th step of a segment is round n. */
export interface PipeSegment {
  step: StepRecord;
  seg: number;
  round: number;
}

/** A's pipeline steps in record order, each with its segment and round (pipeline-rounds.ts's rounds). */
export function pipeSegments(steps: readonly StepRecord[]): PipeSegment[] {
  const rounds = new Map<number, number>();
  return pipeSteps(steps).map((step) => {
    const seg = segmentOf(step) ?? 0;
    const round = (rounds.get(seg) ?? 0) + 1;
    rounds.set(seg, round);
    return { step, seg, round };
  });
}

/** How many rounds reached segment `seg`. */
export function roundsReaching(segments: readonly PipeSegment[], seg: number): number {
  return segments.filter((s) => s.seg === seg).length;
}

/**
 * How a step of A's went unanswered: no answer within the bound (`stalled`, with the wait), the
 * connection ended (`dropped`), or a malformed reply (`malformed`). Null when it was answered.
 */
export function transportFailure(step: StepRecord): { label: TransportLabel; why: string } | null {
  const e = step.error;
  if (step.timedOut) {
    // A segment cut short after its ErrorResponse keeps the server's error; the wait is its duration.
    const after = e?.code ? ` after its ErrorResponse (${e.code} ${e.message})` : '';
    return {
      label: 'stalled',
      why: `${step.tag}: no complete answer within ${Math.round(step.durationMs)} ms${after}`,
    };
  }
  if (!e) return null;
  if (e.code === 'PROTOCOL_VIOLATION') return { label: 'malformed', why: `${step.tag}: ${e.message}` };
  if (!e.code && /connection (closed|reset)/.test(e.message))
    return { label: 'dropped', why: `${step.tag}: ${e.message}` };
  return null;
}

/** The first unanswered step among `steps` (in record order), as its label. */
export function firstTransportFailure(steps: readonly StepRecord[]): { label: TransportLabel; why: string } | null {
  for (const s of steps) {
    const f = transportFailure(s);
    if (f) return f;
  }
  return null;
}

/** The target gives each client a backend of its own (direct, session pooling): nothing can be split or mixed. */
export function dedicated(discovery: Pick<Discovery, 'mode'>): boolean {
  return discovery.mode === 'direct' || discovery.mode === 'session';
}

/** A backend that served A's pipeline and also C or D during the check (the pool was shared), or null. */
export function sharedBackend(steps: readonly StepRecord[]): number | null {
  const mine = new Set(pipeSteps(steps).flatMap((s) => pidsOf(s)));
  const others = steps.filter((s) => s.tag === PIPELINE_TAGS.hold || s.tag === PIPELINE_TAGS.compete);
  return others.map((s) => s.pid).find((p): p is number => p !== null && mine.has(p)) ?? null;
}

/** Every pid a step's statements returned (a pipeline segment has one per statement). */
export function pidsOf(step: StepRecord): number[] {
  return step.results.flatMap((rows) =>
    rows.flatMap((r) => {
      const v = r.pid;
      return typeof v === 'string' && /^\d+$/.test(v) ? [Number(v)] : typeof v === 'number' ? [v] : [];
    }),
  );
}

/**
 * Another client touched A's transaction: C or D read a value of A's (`seen` starting with
 * `marker`), or one of A's segments ran on the backend C held inside its transaction at the
 * time. Null when neither happened.
 */
export function crossing(steps: readonly StepRecord[], marker: string): string | null {
  for (const s of steps) {
    if (s.tag !== PIPELINE_TAGS.look && s.tag !== PIPELINE_TAGS.compete) continue;
    const seen = s.results.flat().find((r) => typeof r.seen === 'string' && r.seen.startsWith(marker));
    if (seen) return `${s.session} (${s.tag}, backend ${s.pid}) read A's ${String(seen.seen)}`;
  }
  // The backends other clients hold inside a transaction at each point of the record, by session.
  const held = new Map<string, number>();
  for (const s of steps) {
    if (s.tag === PIPELINE_TAGS.hold && s.pid !== null && s.txStatus === 'T') held.set(s.session, s.pid);
    else if (s.tag === releaseTagFor(PIPELINE_TAGS.hold)) held.delete(s.session);
    else if (s.tag.startsWith(`${PIPELINE_TAGS.pipe}.`)) {
      const inside = pidsOf(s).find((p) => [...held.values()].includes(p));
      if (inside !== undefined)
        return `A's ${s.tag} ran on backend ${inside} while another client held it inside a transaction`;
    }
  }
  return null;
}

/**
 * What is wrong with the answer to a marked transaction (steering/pipeline-rounds.ts) that was
 * to carry `expected`, or null when it is right: two result sets, from one backend, the value
 * set and read back inside one transaction, and the transaction ended (status I).
 */
export function markedProblem(step: StepRecord, expected: string): string | null {
  const rows = step.results.map((r) => r[0]);
  if (step.error) return `${step.tag} failed: ${step.error.code ?? ''} ${step.error.message}`.replace('  ', ' ');
  if (rows.length !== 2 || !rows[0] || !rows[1]) return `${step.tag} answered ${rows.length} result set(s), not 2`;
  if (rows[0].mark !== expected) return `${step.tag} answered ${String(rows[0].mark)} where ${expected} was asked for`;
  const pids = pidsOf(step);
  if (new Set(pids).size > 1) return `split: ${step.tag}'s statements ran on backends ${pids.join(' and ')}`;
  if (rows[1].seen !== expected)
    return `split: ${step.tag} set ${expected} but its next statement read ${String(rows[1].seen)}`;
  if (step.txStatus !== 'I') return `${step.tag} ended with transaction status ${step.txStatus ?? 'none'}, not I`;
  return null;
}
