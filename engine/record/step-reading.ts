/**
 * Reading a recorded event log: the small vocabulary judges use to find steps and values.
 * Everything here is pure, so judges can be tested from stored logs without a database.
 */
import type { StepRecord } from './step-record.js';

/** The first step with this tag, if any. */
export function stepOf(steps: readonly StepRecord[], tag: string): StepRecord | undefined {
  return steps.find((s) => s.tag === tag);
}

/** Every step with this tag, in order. */
export function stepsOf(steps: readonly StepRecord[], tag: string): StepRecord[] {
  return steps.filter((s) => s.tag === tag);
}

/** The value of column `name` in the first row of the first statement that returned it. */
export function valueOf(step: StepRecord | undefined, name: string): unknown {
  if (!step) return undefined;
  for (const rows of step.results) {
    const row = rows[0];
    if (row && Object.prototype.hasOwnProperty.call(row, name)) return row[name];
  }
  return undefined;
}

/** A column read as a boolean (Postgres booleans arrive as JS booleans; 't'/'f' tolerated). */
export function boolOf(step: StepRecord | undefined, name: string): boolean | null {
  const v = valueOf(step, name);
  if (typeof v === 'boolean') return v;
  if (v === 't' || v === 'true') return true;
  if (v === 'f' || v === 'false') return false;
  return null;
}

/** A column read as a number (counts arrive as strings from bigint columns). */
export function numberOf(step: StepRecord | undefined, name: string): number | null {
  const v = valueOf(step, name);
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return null;
}

/** True when the step got an answer (possibly an SQL error) and did not lose its connection. */
export function answered(step: StepRecord | undefined): step is StepRecord {
  return !!step && !step.timedOut && !(step.error && !step.error.code);
}

/** `CODE message` of a step's error, for facts and evidence. */
export function errorText(step: StepRecord | undefined): string | null {
  if (!step?.error) return null;
  return step.error.code ? `${step.error.code} ${step.error.message}` : step.error.message;
}

/** True when the step's error is a server or pooler error (it has an SQLSTATE). */
export function sqlError(step: StepRecord | undefined): boolean {
  return !!step?.error?.code && !step.timedOut;
}

/**
 * The pooler or server refused the step: an SQLSTATE, or the connection closed on it (PgBouncer
 * in statement mode answers BEGIN with a FATAL and hangs up). A step that merely timed out was
 * not refused.
 */
export function refused(step: StepRecord | undefined): boolean {
  if (!step || step.timedOut || !step.error) return false;
  return sqlError(step) || /closed|terminated|not usable/i.test(step.error.message);
}

/** The tag of the step in which a scenario records its markers (see Scenario.recordMarkers). */
export const MARKERS_TAG = 'run.markers';

/** A marker the scenario recorded (`run.markers` facts), as a string; '' when absent. */
export function markerOf(steps: readonly StepRecord[], name: string): string {
  const v = valueOf(
    steps.find((s) => s.tag === MARKERS_TAG),
    name,
  );
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}
