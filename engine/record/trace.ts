/**
 * A timeline of what the run waited for, for finding the chains of round trips that make a run
 * slow at a distance (bench/speed/trace-report.ts reads it). Off unless `POOLTEST_TRACE` names a
 * file: then every login, every step and the parts of each check (scenario, goodbyes, tidy-up,
 * recount) append one JSON line, `{ kind, label, what, from, to }`, with wall-clock times in ms
 * that compare across processes (Vitest's workers write to the same file). Nothing in a verdict
 * reads it; with the variable unset it costs one comparison per event.
 */
import { appendFileSync } from 'node:fs';

const FILE = process.env.POOLTEST_TRACE || null;

/** Whether spans are being written. */
export const tracing = FILE !== null;

/** Milliseconds since the epoch, with the sub-millisecond part: comparable between processes. */
export function traceNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Appends one span. `kind`: `login`, `step` or `part`; `label`: the session or the check;
 * `what`: the step's tag, the part's name or the login's endpoint.
 */
export function traceSpan(kind: string, label: string, what: string, from: number, to = traceNow()): void {
  if (FILE === null) return;
  try {
    appendFileSync(FILE, `${JSON.stringify({ kind, label, what, from, to })}\n`);
  } catch {
    // A trace that cannot be written changes nothing about the run.
  }
}

/** Runs `work` and traces it as a span; the value and any rejection pass through. */
export async function traced<T>(kind: string, label: string, what: string, work: () => Promise<T>): Promise<T> {
  if (FILE === null) return work();
  const from = traceNow();
  try {
    return await work();
  } finally {
    traceSpan(kind, label, what, from);
  }
}
