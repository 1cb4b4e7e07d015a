/**
 * locks/advisory-xact: `exclusive` (held inside BEGIN, and inside one long statement under
 * statement pooling), `shared`, `rejected`, and the inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { advisoryXact, judgeAdvisoryXact } from '../../suites/locks/advisory-xact.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'locks/advisory-xact';
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
const stmtSteps = () => stateSteps('pgbouncer-statement', ID);

judgesToRecordedOutcomes(advisoryXact);

describe(`${ID}: labels`, () => {
  test("exclusive on PgBouncer transaction: refused while A's transaction held it, granted after COMMIT", () => {
    const j = judgeAdvisoryXact(txSteps());
    expect(j.outcome).toBe('exclusive');
    expect(j.facts).toMatchObject({ heldFor: 'transaction', otherGotLockWhileHeld: false, otherGotLockAfter: true });
  });
  test('exclusive under statement pooling, for the one statement that holds it', () => {
    const j = judgeAdvisoryXact(stmtSteps());
    expect(j.outcome).toBe('exclusive');
    expect(j.facts.heldFor).toBe('statement');
  });
  test('shared: another client got the lock while A held it', () => {
    const j = judgeAdvisoryXact(setColumn(txSteps(), 'B.try', 'got', true));
    expect(j.outcome).toBe('shared');
  });
  test('rejected: the lock function failed with an SQLSTATE', () => {
    const steps = mutate(
      txSteps(),
      'A.take',
      (s) => (s.error = { code: '0A000', message: 'advisory locks are not supported' }),
    );
    expect(judgeAdvisoryXact(steps).outcome).toBe('rejected');
  });
});

describe(`${ID}: inconclusive`, () => {
  const txTake = () => txSteps().find((s) => s.tag === 'A.take')!;
  test.each<[string, () => StepRecord[], RegExp]>([
    ["A's take has no pid", () => mutate(txSteps(), 'A.take', (s) => (s.pid = null)), /could not take the lock/],
    [
      'A never reported the lock taken',
      () => setColumn(txSteps(), 'A.take', 'locked', null),
      /could not take the lock/,
    ],
    ['the other client never tried', () => without(txSteps(), 'B.try'), /did not answer/],
    [
      "the other client's try timed out",
      () => mutate(txSteps(), 'B.try', (s) => (s.timedOut = true)),
      /did not answer/,
    ],
    ['the try came after COMMIT', () => mutate(txSteps(), 'B.try', (s) => (s.seq = 10)), /did not finish while/],
    ['COMMIT is not in the record', () => without(txSteps(), 'A.commit'), /did not finish while/],
    [
      "statement pooling: the try ended after A's statement",
      () => mutate(stmtSteps(), 'B.try', (s) => (s.startMs += 10_000)),
      /did not finish while/,
    ],
    ['the try returned no answer column', () => setColumn(txSteps(), 'B.try', 'got', null), /no answer/],
    [
      'the lock was still refused after the transaction',
      () => setColumn(txSteps(), 'B.after', 'got', false),
      /still refused/,
    ],
    [
      "a take without BEGIN is judged by its timing, which B's try falls outside",
      () => mutate(txSteps(), 'A.take', (s) => (s.sql = txTake().sql.replace('BEGIN; ', ''))),
      /did not finish while/,
    ],
  ])('%s', (_name, steps, reason) => {
    const j = judgeAdvisoryXact(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
