/**
 * statement/transaction-block, judged from real logs: a transaction sent one statement per
 * message is allowed (one backend, one transaction id) or refused with the pooler's error.
 */
import { describe, expect, test } from 'vitest';
import { judgeTransactionBlock } from '../../suites/statement/transaction-block.check.js';
import { mutate, without } from '../support/recorded.js';
import { setColumn, trafficSteps } from '../support/traffic.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'statement/transaction-block';
const direct = (): StepRecord[] => trafficSteps('direct', ID);

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.

  test.each(['direct', 'pgbouncer-transaction', 'pgbouncer-session', 'pgpool'] as const)(
    'allowed on %s: both statements share a backend and a transaction id',
    (fixture) => {
      const j = judgeTransactionBlock(trafficSteps(fixture, ID));
      expect(j.outcome).toBe('allowed');
      expect(j.facts.firstBackend).toBe(j.facts.secondBackend);
      expect(j.facts.firstXid).toBe(j.facts.secondXid);
      expect(j.facts.oneMessageAllowed).toBe(true);
    },
  );

  test('rejected on PgBouncer statement mode: the FATAL verbatim, and the one-message form still works', () => {
    const j = judgeTransactionBlock(trafficSteps('pgbouncer-statement', ID));
    expect(j.outcome).toBe('rejected');
    expect(j.facts).toMatchObject({
      refusedAt: 'A.begin',
      rejectedWith: '08P01 transaction blocks not allowed in statement pooling mode',
      oneMessageAllowed: true,
    });
  });
});

describe(`${ID}: mutations`, () => {
  test('rejected later: COMMIT refused with an SQLSTATE', () => {
    const j = judgeTransactionBlock(
      mutate(direct(), 'A.commit', (s) => (s.error = { code: '0A000', message: 'COMMIT not supported' })),
    );
    expect(j.outcome).toBe('rejected');
    expect(j.facts.refusedAt).toBe('A.commit');
  });
  test('rejected: the pooler hung up on the first statement (no SQLSTATE)', () => {
    const j = judgeTransactionBlock(
      mutate(direct(), 'A.first', (s) => (s.error = { message: 'Connection terminated unexpectedly' })),
    );
    expect(j.outcome).toBe('rejected');
  });
  test('split: the second statement ran in another transaction', () => {
    const j = judgeTransactionBlock(mutate(direct(), 'A.second', (s) => setColumn(s, 'xid', '999999')));
    expect(j.outcome).toBe('split');
  });
  test('split: the second statement ran on another backend', () => {
    const j = judgeTransactionBlock(mutate(direct(), 'A.second', (s) => (s.pid = (s.pid ?? 0) + 1)));
    expect(j.outcome).toBe('split');
  });
  const inconclusive: Array<[string, () => StepRecord[], RegExp]> = [
    ['the first statement timed out', () => mutate(direct(), 'A.first', (s) => (s.timedOut = true)), /did not answer/],
    ['the second statement is missing', () => without(direct(), 'A.second'), /missing/],
    [
      'a statement read no transaction id',
      () => mutate(direct(), 'A.second', (s) => setColumn(s, 'xid', null)),
      /no pid or transaction id/,
    ],
    ['COMMIT is missing', () => without(direct(), 'A.commit'), /COMMIT did not answer/],
    ['COMMIT timed out', () => mutate(direct(), 'A.commit', (s) => (s.timedOut = true)), /COMMIT did not answer/],
  ];
  test.each(inconclusive)('inconclusive: %s', (_, steps, reason) => {
    const j = judgeTransactionBlock(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
