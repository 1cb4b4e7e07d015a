/**
 * What a wire-level step's record says when the exchange itself went wrong, before any reading
 * of its answers: no answer within the bound (`stalled`), the connection closed or reset under
 * it (`dropped`). The checks that speak the protocol themselves (copy/in-out, prepared/close)
 * report these as findings about the pooler, with the step and the wait, instead of a hung or
 * refused run. Bytes that break the protocol are no label: the engine reports a record with a
 * PROTOCOL_VIOLATION as the target's misbehaviour, with the step (judge-record.ts), whatever
 * the judge says, so the judge only says it cannot conclude.
 */
import { PROTOCOL_VIOLATION } from './protocol.js';
import type { StepRecord } from '../types.js';

export type WireTroubleLabel = 'stalled' | 'dropped';

export interface WireTrouble {
  /** null: a protocol violation, on which nothing is concluded. */
  label: WireTroubleLabel | null;
  step: StepRecord;
  /** One line for the judgement's reason: the step, and what happened to it. */
  reason: string;
}

/** The trouble of one step, or null when it was answered (an SQL error is an answer). */
export function wireTrouble(step: StepRecord): WireTrouble | null {
  const at = `${step.session} ${step.tag} (${step.sql})`;
  if (step.timedOut)
    return { label: 'stalled', step, reason: `${at} got no answer within ${Math.round(step.durationMs)} ms` };
  if (step.error?.code === PROTOCOL_VIOLATION)
    return { label: null, step, reason: `${at} broke the protocol: ${step.error.message}` };
  if (step.error && !step.error.code)
    return { label: 'dropped', step, reason: `${at}: the connection ended: ${step.error.message}` };
  return null;
}

/** The first troubled step among those of `session` whose tag is in `tags`, in record order. */
export function firstWireTrouble(
  steps: readonly StepRecord[],
  session: string,
  tags: readonly string[],
): WireTrouble | null {
  for (const s of steps) {
    if (s.session !== session || !tags.includes(s.tag)) continue;
    const t = wireTrouble(s);
    if (t) return t;
  }
  return null;
}
