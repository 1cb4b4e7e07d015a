/**
 * pipeline/error: its judge on hand-built records, one per label, and the paths on which it must
 * not conclude. The stalled record is the shape Odyssey 1.5.1 gave (the failing segment answered
 * with its error and ReadyForQuery, the next segment never).
 */
import { describe, expect, test } from 'vitest';
import { judgeError } from '../../suites/pipeline/error.check.js';
import { recorded } from '../support/recorded.js';
import { PIPE_MARKER as M, RecordBuilder } from '../support/pipeline-recorded.js';

const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

const ERROR = { code: '22012', severity: 'ERROR', message: 'division by zero' };

/** One round on backend 101, D on 101 too (the pool shared), with overrides of segment 2, 3 and the next transaction. */
function round(
  o: { seg2?: (b: RecordBuilder) => void; seg3?: (b: RecordBuilder) => void; next?: (b: RecordBuilder) => void } = {},
) {
  const b = new RecordBuilder();
  b.marked('A.pipe.1', 101, `${M}-r1-s1`);
  (o.seg2 ?? ((x) => x.add({ session: 'A', tag: 'A.pipe.2', error: ERROR })))(b);
  (o.seg3 ?? ((x) => x.marked('A.pipe.3', 101, `${M}-r1-s3`)))(b);
  (o.next ?? ((x) => x.other('A', 'A.next', 101, { pid: '101', seen: '' })))(b);
  b.other('D', 'D.compete', 101, { seen: '' });
  return b.steps;
}

describe('pipeline/error: judge', () => {
  test('error with its ReadyForQuery, the rest answered, the next transaction clean: recovered', () => {
    const j = judgeError(round(), transaction);
    expect(j.outcome, j.reason).toBe('recovered');
  });

  test('the segment after the error never answered: stalled, with the wait (Odyssey 1.5.1)', () => {
    const j = judgeError(
      round({
        seg3: (x) => x.add({ session: 'A', tag: 'A.pipe.3', timedOut: true, durationMs: 10004, txStatus: null }),
      }),
      transaction,
    );
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toBe('A.pipe.3: no complete answer within 10004 ms');
  });

  test("the failing segment's ReadyForQuery never came: stalled, naming the error before the silence", () => {
    const j = judgeError(
      round({
        seg2: (x) =>
          x.add({ session: 'A', tag: 'A.pipe.2', error: ERROR, timedOut: true, durationMs: 3000, txStatus: null }),
      }),
      transaction,
    );
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toMatch(/after its ErrorResponse \(22012 division by zero\)/);
  });

  test('the statement after the error ran: broken', () => {
    const j = judgeError(
      round({
        seg2: (x) => x.add({ session: 'A', tag: 'A.pipe.2', error: ERROR, results: [[{ pid: '101', skipped: 't' }]] }),
      }),
      transaction,
    );
    expect(j.outcome).toBe('broken');
  });

  test('the later segment failed (25P02): broken; the next transaction in a failed state: broken', () => {
    const failed = { code: '25P02', message: 'current transaction is aborted' };
    expect(
      judgeError(round({ seg3: (x) => x.add({ session: 'A', tag: 'A.pipe.3', error: failed }) }), transaction).outcome,
    ).toBe('broken');
    const next = round({ next: (x) => x.other('A', 'A.next', 101, { pid: '101', seen: '' }, 'E') });
    expect(judgeError(next, transaction).outcome).toBe('broken');
  });

  test('the failing statement did not fail: broken', () => {
    const j = judgeError(round({ seg2: (x) => x.add({ session: 'A', tag: 'A.pipe.2' }) }), transaction);
    expect(j.outcome).toBe('broken');
  });

  test('control: the pool never shared under transaction pooling: inconclusive; the same on direct: recovered', () => {
    const steps = round().filter((s) => s.tag !== 'D.compete');
    expect(judgeError(steps, transaction).outcome).toBeNull();
    expect(judgeError(steps, direct).outcome).toBe('recovered');
  });

  test("control: A's next transaction missing: inconclusive", () => {
    expect(judgeError(round({ next: () => undefined }), transaction).outcome).toBeNull();
  });
});
