/**
 * Absence is evidence only where presence could have been seen. "Nobody received it", "the
 * state was gone", "the other client got the lock" rest on steps that would have shown the
 * opposite; a step that timed out, lost its connection or failed with an error showed nothing
 * (a stalled pooler answers no step, and then no notification arrives either). A judge that
 * concludes from an absence first asks `unseen` whether each step it rests on was answered.
 * Presence needs no such proof: a notification that arrived, a state another client saw, is
 * there whatever failed afterwards.
 */
import type { StepRecord } from '../types.js';

/** The step got a result: no error of any kind, no timeout. */
export function succeeded(step: StepRecord | undefined): step is StepRecord {
  return !!step && !step.error && !step.timedOut;
}

/** `O1 observe.release: no answer within 3000 ms`: the step and its error, verbatim. */
export function failedStep(step: StepRecord, noError = 'no answer within the bound'): string {
  return `${step.session} ${step.tag}: ${step.error?.code ? `${step.error.code} ` : ''}${step.error?.message ?? noError}`;
}

/**
 * The steps an absence rests on that did not succeed, each said as the step and what happened
 * to it (`A A.readback: no answer within 3000 ms`, or `A.readback never ran` for a step the
 * record lacks, named by `name`), joined with '; '; null when every one was answered.
 */
export function unseen(looks: ReadonlyArray<readonly [name: string, step: StepRecord | undefined]>): string | null {
  const failed = looks.flatMap(([name, step]) => {
    if (!step) return [`${name} never ran`];
    return succeeded(step) ? [] : [failedStep(step)];
  });
  return failed.length > 0 ? failed.join('; ') : null;
}

/** `unseen` as the reason of an inconclusive judgement, with the label the absence would have read. */
export function unseenReason(label: string, what: string): string {
  return `not conclusive: the record would read "${label}", an absence, but steps that could have shown the opposite went unanswered (${what})`;
}
