/**
 * session/lock-timeout-leak (the example check of docs/writing-checks.md): its judge on the real
 * recorded logs of every fixture, against outcomes written here by hand from what each pooler
 * documents, plus the mutations that reach the other labels and the inconclusive paths.
 */
import { describe, expect, test } from 'vitest';
import { lockTimeoutLeak } from '../../suites/session/lock-timeout-leak.check.js';
import { FIXTURES, mutate, recorded, stepsOf, without } from '../support/recorded.js';
import { setColumn } from '../support/state-recorded.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'session/lock-timeout-leak';
const judge = (fixture: string, steps: StepRecord[] = stepsOf(fixture, ID)) =>
  lockTimeoutLeak.judge(steps, recorded(fixture).discovery);

/** Written from the docs, not from the judge: dedicated backends keep it, transaction and statement pooling leak it. */
const BY_HAND: Record<(typeof FIXTURES)[number], string> = {
  direct: 'session',
  'pgbouncer-transaction': 'leaked',
  'pgbouncer-session': 'session',
  'pgbouncer-statement': 'leaked',
  pgpool: 'session',
};

describe(`${ID}: recorded runs`, () => {
  test.each(FIXTURES)('%s', (fixture) => {
    expect(judge(fixture).outcome).toBe(BY_HAND[fixture]);
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
