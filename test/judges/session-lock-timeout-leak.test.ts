/**
 * session/lock-timeout-leak (the example check of docs/writing-checks.md): its judge on the real
 * recorded logs of every fixture, against the outcomes written by hand in golden-expectations.ts,
 * plus the mutations that reach the other labels and the inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { lockTimeoutLeak } from '../../suites/session/lock-timeout-leak.check.js';
import { GOLDEN } from './golden-expectations.js';
import { FIXTURES, mutate, recorded, stepsOf, without } from '../support/recorded.js';
import { setColumn } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/lock-timeout-leak';
const judge = (fixture: string, steps: StepRecord[] = stepsOf(fixture, ID)) =>
  lockTimeoutLeak.judge(steps, recorded(fixture).discovery);

/**
 * The outcome of each recorded run is written by hand once, in golden-expectations.ts (with the
 * line of the record that decides it; golden.test.ts holds the bare judge to it). Here the same
 * runs go through the engine's vetoes too (judgeRecord), which must not refuse any of them.
 */
describe(`${ID}: recorded runs, as the engine judges them`, () => {
  test.each(FIXTURES)('%s', (fixture) => {
    const [outcome] = GOLDEN[fixture]![ID]!;
    expect(judgeRecord(lockTimeoutLeak, stepsOf(fixture, ID), recorded(fixture).discovery).outcome).toBe(outcome);
  });
});

describe(`${ID}: mutations`, () => {
  const tx = 'pgbouncer-transaction';
  test('lost: the old backend no longer has it, and neither has A elsewhere', () => {
    const steps = stepsOf(tx, ID);
    setColumn(steps, 'observe.take', 'seen', '0');
    setColumn(steps, 'A.readback', 'mine', '0');
    expect(judge(tx, steps).outcome).toBe('lost');
  });
  test('tracked: the old backend is clean, A still has its value elsewhere', () => {
    const steps = stepsOf(tx, ID);
    const marker = String(steps.find((s) => s.tag === 'run.markers')!.results[0]![0]!['lock_timeout']);
    setColumn(steps, 'observe.take', 'seen', '0');
    setColumn(steps, 'A.readback', 'mine', marker);
    expect(judge(tx, steps).outcome).toBe('tracked');
  });
  test('rejected: SET lock_timeout failed with an SQLSTATE', () => {
    expect(
      judge(
        tx,
        mutate(stepsOf(tx, ID), 'A.create', (s) => (s.error = { code: '0A000', message: 'SET is not supported' })),
      ).outcome,
    ).toBe('rejected');
  });
  test.each([
    ['the record carries no marker', () => without(stepsOf(tx, ID), 'run.markers')],
    ["A's next transaction never answered", () => mutate(stepsOf(tx, ID), 'A.readback', (s) => (s.timedOut = true))],
    ['the observer could not read the setting', () => setColumn(stepsOf(tx, ID), 'observe.take', 'seen', null)],
  ])('inconclusive: %s', (_why, steps) => {
    expect(judge(tx, steps()).outcome).toBeNull();
  });
});
