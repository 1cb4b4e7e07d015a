/**
 * Steps that failed because the target broke the PostgreSQL wire protocol (the wire guard's
 * `PROTOCOL_VIOLATION`, see wire/pg-guard.ts). Such a record says the target misbehaved,
 * never what it does with the statement: no conclusion stands on it, discovery stops on it,
 * and a sweep that met one is not proven clean.
 */
import { PooltestError } from '../record/errors.js';
import type { StepRecord } from '../types.js';

/** The code steps and errors carry. */
export const PROTOCOL_VIOLATION = 'PROTOCOL_VIOLATION';

/** The first step whose error is a protocol violation, if any. */
export function protocolViolationIn(steps: readonly StepRecord[]): StepRecord | undefined {
  return steps.find((s) => s.error?.code === PROTOCOL_VIOLATION);
}

/** Where and what: `A A.create: protocol violation by the server: ErrorResponse ('E'), declared length 58, ...`. */
export function describeViolationStep(step: StepRecord): string {
  return `${step.session} ${step.tag}: ${step.error?.message ?? ''}`;
}

/** A recorded violation as the error that stops a run (discovery). */
export function violationError(step: StepRecord, during: string): PooltestError {
  return new PooltestError(
    PROTOCOL_VIOLATION,
    `the target broke the PostgreSQL wire protocol ${during} (step ${describeViolationStep(step)})`,
    { session: step.session, tag: step.tag },
  );
}
