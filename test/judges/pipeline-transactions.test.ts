/**
 * pipeline/transactions: its judge on hand-built records, one per label, and the paths on which
 * it must not conclude (the pool never shared, no pipeline).
 */
import { describe, expect, test } from 'vitest';
import { judgeTransactions } from '../../suites/pipeline/transactions.check.js';
import { recorded } from '../support/recorded.js';
import { PIPE_MARKER as M, RecordBuilder } from '../support/pipeline-recorded.js';

const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

/** Two rounds: A on 101, then (C holding 101) on 102; D on the other backend each time. */
function twoRounds(round2: (b: RecordBuilder) => void = (b) => b.marked('A.pipe.1', 102, `${M}-r2-s1`)): RecordBuilder {
  const b = new RecordBuilder();
  b.marked('A.pipe.1', 101, `${M}-r1-s1`).marked('A.pipe.2', 101, `${M}-r1-s2`).marked('A.pipe.3', 101, `${M}-r1-s3`);
  b.other('D', 'D.compete', 102, { seen: '' });
  b.other('C2.1', 'C.hold', 101, {}, 'T');
  round2(b);
  b.marked('A.pipe.2', 102, `${M}-r2-s2`).marked('A.pipe.3', 102, `${M}-r2-s3`);
  b.other('D', 'D.compete', 101, { seen: '' });
  b.other('C2.1', 'C.look', 101, { seen: '' }, 'T');
  b.add({ session: 'C2.1', tag: 'C.hold.release' });
  return b;
}

describe('pipeline/transactions: judge', () => {
  test('every answer in order, each transaction on one backend, the pool shared: ordered', () => {
    const j = judgeTransactions(twoRounds().steps, transaction);
    expect(j.outcome, j.reason).toBe('ordered');
    expect(j.facts.rounds).toBe(2);
  });

  test("a transaction's statements on two backends: split", () => {
    const j = judgeTransactions(
      twoRounds((b) => b.marked('A.pipe.1', 102, `${M}-r2-s1`, { pid2: 103 })).steps,
      transaction,
    );
    expect(j.outcome).toBe('split');
  });

  test('the read-back misses the value its transaction set: split', () => {
    const j = judgeTransactions(
      twoRounds((b) => b.marked('A.pipe.1', 102, `${M}-r2-s1`, { seen: '' })).steps,
      transaction,
    );
    expect(j.outcome).toBe('split');
  });

  test("another segment's value in this segment's answer: misordered", () => {
    const j = judgeTransactions(twoRounds((b) => b.marked('A.pipe.1', 102, `${M}-r2-s2`)).steps, transaction);
    expect(j.outcome).toBe('misordered');
  });

  test('a segment ran on the backend C held inside its transaction: leaked', () => {
    const j = judgeTransactions(twoRounds((b) => b.marked('A.pipe.1', 101, `${M}-r2-s1`)).steps, transaction);
    expect(j.outcome).toBe('leaked');
  });

  test("D read A's value: leaked", () => {
    const b = twoRounds();
    b.other('D', 'D.compete', 101, { seen: `${M}-r2-s1` });
    expect(judgeTransactions(b.steps, transaction).outcome).toBe('leaked');
  });

  test('a segment unanswered within the bound: stalled, with the wait', () => {
    const b = twoRounds((x) =>
      x.add({ session: 'A', tag: 'A.pipe.1', timedOut: true, durationMs: 10_000, txStatus: null }),
    );
    const j = judgeTransactions(b.steps, transaction);
    expect(j.outcome).toBe('stalled');
    expect(j.reason).toMatch(/within 10000 ms/);
  });

  test('the connection closed under the pipeline: dropped; a malformed answer: malformed', () => {
    const closed = twoRounds((x) => x.add({ session: 'A', tag: 'A.pipe.1', error: { message: 'connection closed' } }));
    expect(judgeTransactions(closed.steps, transaction).outcome).toBe('dropped');
    const bad = twoRounds((x) =>
      x.add({
        session: 'A',
        tag: 'A.pipe.1',
        error: { code: 'PROTOCOL_VIOLATION', message: 'protocol violation by the server' },
      }),
    );
    expect(judgeTransactions(bad.steps, transaction).outcome).toBe('malformed');
  });

  test('control: all right but no backend served A and another client: inconclusive under transaction pooling', () => {
    const b = new RecordBuilder();
    b.marked('A.pipe.1', 101, `${M}-r1-s1`).other('D', 'D.compete', 102, { seen: '' });
    const j = judgeTransactions(b.steps, transaction);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/never shared/);
    // On a target where every client has its own backend the same record concludes.
    expect(judgeTransactions(b.steps, direct).outcome).toBe('ordered');
  });

  test('control: no pipeline in the record: inconclusive', () => {
    expect(judgeTransactions(new RecordBuilder().steps, direct).outcome).toBeNull();
  });
});
