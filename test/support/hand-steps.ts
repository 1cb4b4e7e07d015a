/**
 * Hand-built steps for a judge's tests: one step a call, numbered in the order of the calls
 * (its start 10 ms apart), with one row or none, and whatever else a test states.
 */
import type { StepRecord } from '../../engine/types.js';

export class HandSteps {
  private seq = 0;

  /** `defaults`: what every step has unless the call says otherwise (its txStatus, say). */
  constructor(private readonly defaults: Partial<StepRecord> = {}) {}

  /** The next record begins: its steps are numbered from 1 again. */
  restart(): void {
    this.seq = 0;
  }

  /** The next step of `session`, tagged `tag` (its SQL too), on `pid`, answering `row` (or nothing). */
  readonly step = (
    session: string,
    tag: string,
    pid: number | null,
    row: Record<string, unknown> | null,
    more: Partial<StepRecord> = {},
  ): StepRecord => {
    this.seq++;
    return {
      seq: this.seq,
      session,
      tag,
      sql: tag,
      pid,
      results: row ? [[row]] : [],
      error: null,
      notices: [],
      notifications: [],
      startMs: this.seq * 10,
      durationMs: 5,
      timedOut: false,
      txStatus: null,
      ...this.defaults,
      ...more,
    };
  };
}
