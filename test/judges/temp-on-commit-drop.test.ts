/**
 * temp/on-commit-drop: `works`, `rejected`, `lost`, `leaked` and the inconclusive paths, from
 * recorded logs and their mutations.
 */
import { describe, expect, test } from 'vitest';
import { judgeOnCommitDrop, onCommitDrop } from '../../suites/temp/on-commit-drop.check.js';
import { mutate, without } from '../support/recorded.js';
import { judgesToRecordedOutcomes, setColumn, stateSteps } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'temp/on-commit-drop';
const txSteps = () => stateSteps('pgbouncer-transaction', ID);
const b1 = () => txSteps().find((s) => s.tag === 'A.create')!.pid!;
/** A's look after COMMIT ran elsewhere; an observer placed on b1 looked instead. */
function viaObserver(survived: boolean): StepRecord[] {
  const steps = txSteps();
  const after = steps.find((s) => s.tag === 'A.after')!;
  const observer: StepRecord = {
    ...structuredClone(after),
    seq: after.seq + 1,
    session: 'O2',
    tag: 'observe.take',
    results: [[], [{ pid: b1() }], [{ survived }], []],
  };
  after.pid = b1() + 1;
  after.results = [[{ pid: b1() + 1 }], [{ survived: false }], []];
  return [...steps, observer];
}

judgesToRecordedOutcomes(onCommitDrop);

describe(`${ID}: labels`, () => {
  test('works on PgBouncer transaction: one backend for the whole transaction, gone after COMMIT', () => {
    const j = judgeOnCommitDrop(txSteps());
    expect(j.outcome).toBe('works');
    expect(j.facts).toMatchObject({
      insideOnOneBackend: true,
      rowsInside: 1,
      survivedCommit: false,
      probedBackend: b1(),
    });
  });
  test('works when only an observer on the old backend could look after COMMIT', () => {
    expect(judgeOnCommitDrop(viaObserver(false)).outcome).toBe('works');
  });
  test('rejected under statement pooling: BEGIN refused', () => {
    const j = judgeOnCommitDrop(stateSteps('pgbouncer-statement', ID));
    expect(j.outcome).toBe('rejected');
    expect(j.facts.rejectedWith).toMatch(/transaction blocks not allowed/);
  });
  test('lost: the table was missing inside its own transaction', () => {
    const steps = mutate(
      txSteps(),
      'A.insert',
      (s) => ((s.error = { code: '42P01', message: 'relation does not exist' }), (s.results = [])),
    );
    expect(judgeOnCommitDrop(steps).outcome).toBe('lost');
  });
  test('lost: a statement of the transaction ran on another backend', () => {
    expect(judgeOnCommitDrop(mutate(txSteps(), 'A.read', (s) => (s.pid = b1() + 1))).outcome).toBe('lost');
  });
  test('lost: the table did not hold the row', () => {
    expect(judgeOnCommitDrop(setColumn(txSteps(), 'A.read', 'n', 0)).outcome).toBe('lost');
  });
  test('leaked: the table survived COMMIT on its backend (seen by A, or by an observer)', () => {
    expect(judgeOnCommitDrop(setColumn(txSteps(), 'A.after', 'survived', true)).outcome).toBe('leaked');
    expect(judgeOnCommitDrop(viaObserver(true)).outcome).toBe('leaked');
  });
});

describe(`${ID}: inconclusive`, () => {
  test.each<[string, () => StepRecord[], RegExp]>([
    ['CREATE has no pid', () => mutate(txSteps(), 'A.create', (s) => (s.pid = null)), /could not create/],
    [
      'a statement inside the transaction timed out',
      () => mutate(txSteps(), 'A.read', (s) => ((s.timedOut = true), (s.error = { message: 'no answer' }))),
      /did not all answer/,
    ],
    [
      'COMMIT failed',
      () => mutate(txSteps(), 'A.commit', (s) => (s.error = { code: '40001', message: 'could not serialize' })),
      /COMMIT did not succeed/,
    ],
    [
      'nobody looked at the backend after COMMIT',
      () => mutate(txSteps(), 'A.after', (s) => (s.pid = b1() + 1)),
      /nobody looked/,
    ],
    ['the look after COMMIT is missing', () => without(txSteps(), 'A.after'), /nobody looked/],
  ])('%s', (_name, steps, reason) => {
    const j = judgeOnCommitDrop(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
