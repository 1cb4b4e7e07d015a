/**
 * The shared state judge, from real recorded logs: every label it can give and every path on
 * which it must refuse to conclude.
 */
import { describe, expect, test } from 'vitest';
import { judgeState, type StateReading } from '../../engine/judging/state-judge.js';
import { valueOf } from '../../engine/record/step-reading.js';
import { setLeak } from '../../suites/session/set-leak.check.js';
import { mutate, recorded, stepsOf, without } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

// Every recorded log is judged against the hand-written table in golden.test.ts.

const tx = recorded('pgbouncer-transaction').discovery;
const judgeSetLeak = (steps: StepRecord[], discovery = tx) => setLeak.judge(steps, discovery);

describe('state judge: labels', () => {
  test("leaked: the observer on A's old backend read A's value", () => {
    const j = judgeSetLeak(stepsOf('pgbouncer-transaction', 'session/set-leak'));
    expect(j.outcome).toBe('leaked');
    expect(j.facts).toMatchObject({
      observerOnOldBackend: true,
      otherSawState: true,
      aChangedBackend: true,
      aKeptState: false,
    });
  });

  test('lost: the observer found the old backend clean and A lost the value elsewhere', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'observe.take', (s) => {
      for (const rows of s.results) for (const r of rows) if ('seen' in r) r.seen = '0';
    });
    expect(judgeSetLeak(steps).outcome).toBe('lost');
  });

  test('tracked: recorded from PgBouncer replaying TimeZone', () => {
    const steps = stepsOf('pgbouncer-transaction', 'session/tracked-parameter').filter((s) => !s.tag.includes(':'));
    const j = judgeState(steps, tx, {
      seenByOther: (take) => valueOf(take, 'seen_tz') === 'Pacific/Chatham',
      keptByA: (readback) => valueOf(readback, 'mine_tz') === 'Pacific/Chatham',
    });
    expect(j.outcome).toBe('tracked');
    expect(j.facts).toMatchObject({ aChangedBackend: true, otherSawState: false, aKeptState: true });
  });

  test('session: A stayed and no other client could reach its backend (queued)', () => {
    const run = recorded('pgbouncer-session');
    const j = judgeSetLeak(stepsOf('pgbouncer-session', 'session/set-leak'), run.discovery);
    expect(j.outcome).toBe('session');
    expect(j.facts.candidateQueued).toBe(true);
  });

  test('pinned: A stayed on its backend while backends are otherwise shared between clients', () => {
    const run = recorded('pgbouncer-session');
    const pinnedDiscovery = { ...run.discovery, mode: 'transaction' as const, sharedAcrossClients: true };
    expect(judgeSetLeak(stepsOf('pgbouncer-session', 'session/set-leak'), pinnedDiscovery).outcome).toBe('pinned');
  });

  test('rejected: the statement failed with an SQLSTATE', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'A.create', (s) => {
      s.error = { code: '0A000', message: 'SET is not supported' };
    });
    const j = judgeSetLeak(steps);
    expect(j.outcome).toBe('rejected');
    expect(j.facts.rejectedWith).toBe('0A000 SET is not supported');
  });
});

describe('state judge: inconclusive paths', () => {
  const base = () => stepsOf('pgbouncer-transaction', 'session/set-leak');
  const cases: Array<[string, () => StepRecord[], RegExp]> = [
    ['no create step', () => without(base(), 'A.create'), /never created/],
    [
      'create lost its connection (no SQLSTATE)',
      () => mutate(base(), 'A.create', (s) => (s.error = { message: 'Connection terminated unexpectedly' })),
      /without an SQLSTATE/,
    ],
    ['create recorded no pid', () => mutate(base(), 'A.create', (s) => (s.pid = null)), /no pid/],
    ['readback missing', () => without(base(), 'A.readback'), /did not answer/],
    ['readback timed out', () => mutate(base(), 'A.readback', (s) => (s.timedOut = true)), /did not answer/],
    [
      'observer returned no reading',
      () => mutate(base(), 'observe.take', (s) => (s.results = s.results.map(() => []))),
      /no reading/,
    ],
    [
      'observer and A on the same backend at once',
      () => {
        const steps = mutate(base(), 'observe.take', (s) => {
          for (const rows of s.results) for (const r of rows) if ('seen' in r) r.seen = '0';
        });
        const pid = steps.find((s) => s.tag === 'A.create')!.pid;
        return mutate(steps, 'A.readback', (s) => (s.pid = pid));
      },
      /while the observer held it/,
    ],
    [
      'A moved but nobody reached its old backend',
      () => mutate(base(), 'observe.take', (s) => (s.pid = 1)),
      /no other client could be placed/,
    ],
  ];
  test.each(cases)('%s', (_name, steps, reason) => {
    const j = judgeSetLeak(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });

  test('A stayed, nobody reached its backend, and the candidates were not exhausted', () => {
    const run = recorded('pgbouncer-session');
    const steps = without(
      without(stepsOf('pgbouncer-session', 'session/set-leak'), 'observe.take.connect'),
      'observe.take',
    );
    const j = judgeSetLeak(steps, { ...run.discovery, poolSize: 2 });
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/not exhausted/);
  });

  test('A stayed and its readback carried no reading', () => {
    const run = recorded('pgbouncer-session');
    const steps = mutate(
      stepsOf('pgbouncer-session', 'session/set-leak'),
      'A.readback',
      (s) => (s.results = [s.results[0]!]),
    );
    expect(judgeSetLeak(steps, run.discovery).reason).toMatch(/no reading/);
  });
});

test('judgeState only reads what its StateReading reports', () => {
  const reading: StateReading = { seenByOther: () => false, keptByA: () => false };
  expect(judgeState(stepsOf('pgbouncer-transaction', 'session/set-leak'), tx, reading).outcome).toBe('lost');
});
