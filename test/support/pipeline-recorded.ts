/**
 * Hand-built records of the `pipeline/*` checks' rounds, for their judge tests: steps in the
 * order the scenario records them, with the pids, values and errors a test chooses.
 */
import type { StepRecord } from '../../engine/types.js';

export const PIPE_MARKER = 'pooltest-0123abcd-pipeline';

type Row = Record<string, unknown>;

/** Builds a record step by step; `seq` follows the order of the calls. */
export class RecordBuilder {
  readonly steps: StepRecord[] = [];

  constructor(markers: Record<string, string> = { pipe: PIPE_MARKER }) {
    this.add({ session: 'run', tag: 'run.markers', results: [[markers]] });
  }

  add(s: Partial<StepRecord> & { session: string; tag: string }): this {
    this.steps.push({
      seq: this.steps.length + 1,
      sql: '',
      pid: null,
      results: [],
      error: null,
      notices: [],
      notifications: [],
      startMs: this.steps.length,
      durationMs: 1,
      timedOut: false,
      txStatus: 'I',
      ...s,
    });
    return this;
  }

  /** A marked transaction's answer: the value set and read back, on `pid` (or `pid2` for the second statement). */
  marked(tag: string, pid: number, value: string, o: { pid2?: number; seen?: string } = {}): this {
    const p2 = o.pid2 ?? pid;
    return this.add({
      session: 'A',
      tag,
      pid,
      results: [[{ pid: String(pid), mark: value }], [{ pid: String(p2), seen: o.seen ?? value }]],
    });
  }

  /** Another client's reading (`C.hold`, `C.look`, `D.compete`...). */
  other(session: string, tag: string, pid: number, row: Row = {}, txStatus = 'I'): this {
    return this.add({ session, tag, pid, txStatus, results: [[{ pid, ...row }]] });
  }
}
