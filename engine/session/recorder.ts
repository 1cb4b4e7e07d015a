import type { StepRecord } from '../types.js';

/**
 * The event log of one check (or of discovery): every step of every session, in the order the
 * answers arrived. Judges read only this, so anything a verdict rests on must pass through it.
 */
export class Recorder {
  readonly steps: StepRecord[] = [];
  readonly startedAt = performance.now();
  /** Statements sent, counted per `;`-separated statement, holders and cleanup included. */
  statements = 0;

  now(): number {
    return Math.round((performance.now() - this.startedAt) * 10) / 10;
  }

  /** Milliseconds from `startMs` (a value of {@link now}) until now, to a tenth. */
  since(startMs: number): number {
    return Math.round((this.now() - startMs) * 10) / 10;
  }

  add(step: Omit<StepRecord, 'seq'>): StepRecord {
    const full: StepRecord = { seq: this.steps.length + 1, ...step };
    this.steps.push(full);
    return full;
  }
}
