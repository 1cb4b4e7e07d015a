/**
 * The judges with labels of their own (advisory locks, LISTEN/NOTIFY, SET LOCAL) and the
 * verdict rules, from recorded logs and their mutations.
 */
import { describe, expect, test } from 'vitest';
import { combineVerdicts, verdictFor } from '../../engine/record/verdict.js';
import { judgeAdvisory } from '../../suites/locks/advisory-session.check.js';
import { judgeListen } from '../../suites/notify/listen.check.js';
import { judgeSetLocal } from '../../suites/session/set-local.check.js';
import { mutate, stepsOf, without } from '../support/recorded.js';

describe('locks/advisory-session', () => {
  test("shared on PgBouncer transaction: the lock was already held by the backend the other client got; A's unlock warned", () => {
    const j = judgeAdvisory(stepsOf('pgbouncer-transaction', 'locks/advisory-session'));
    expect(j.outcome).toBe('shared');
    expect(j.facts).toMatchObject({ otherHeldBefore: true, aUnlocked: false, aUnlockWarned: true });
  });
  test('exclusive on direct Postgres: the other client was refused', () => {
    const j = judgeAdvisory(stepsOf('direct', 'locks/advisory-session'));
    expect(j.outcome).toBe('exclusive');
    expect(j.facts).toMatchObject({ otherGotLock: false, aUnlocked: true, aUnlockWarned: false });
  });
  test("released: the other client on A's old backend found no lock there", () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'locks/advisory-session'), 'observe.take', (s) => {
      for (const rows of s.results) for (const r of rows) if ('held_before' in r) r.held_before = 0;
    });
    expect(judgeAdvisory(steps).outcome).toBe('released');
  });
  test('released: another client elsewhere got the lock A should hold', () => {
    const steps = mutate(stepsOf('direct', 'locks/advisory-session'), 'observe.take', (s) => {
      for (const rows of s.results) for (const r of rows) if ('got' in r) r.got = true;
    });
    expect(judgeAdvisory(steps).outcome).toBe('released');
  });
  test('rejected: the lock function failed with an SQLSTATE', () => {
    const steps = mutate(
      stepsOf('direct', 'locks/advisory-session'),
      'A.create',
      (s) => (s.error = { code: '42501', message: 'permission denied' }),
    );
    expect(judgeAdvisory(steps).outcome).toBe('rejected');
  });
  test.each([
    [
      'A never got the lock',
      () => mutate(stepsOf('direct', 'locks/advisory-session'), 'A.create', (s) => (s.results = [s.results[0]!])),
    ],
    ['no other client tried', () => without(stepsOf('direct', 'locks/advisory-session'), 'observe.take')],
    [
      "the client on A's backend neither held nor got it",
      () =>
        mutate(stepsOf('pgbouncer-transaction', 'locks/advisory-session'), 'observe.take', (s) => {
          for (const rows of s.results)
            for (const r of rows) {
              if ('held_before' in r) r.held_before = 0;
              if ('got' in r) r.got = false;
            }
        }),
    ],
  ])('inconclusive: %s', (_n, steps) => {
    expect(judgeAdvisory(steps()).outcome).toBeNull();
  });
});

describe('notify/listen', () => {
  test('misrouted on PgBouncer transaction: a client that never listened got it', () => {
    const j = judgeListen(stepsOf('pgbouncer-transaction', 'notify/listen'));
    expect(j.outcome).toBe('misrouted');
    expect(j.facts.listenerReceived).toBe(false);
  });
  test('delivered on direct Postgres', () => {
    expect(judgeListen(stepsOf('direct', 'notify/listen')).outcome).toBe('delivered');
  });
  test('dropped: nobody received it', () => {
    const steps = stepsOf('direct', 'notify/listen').map((s) => ({ ...s, notifications: [] }));
    expect(judgeListen(steps).outcome).toBe('dropped');
  });
  test('rejected: LISTEN failed with an SQLSTATE', () => {
    const steps = mutate(
      stepsOf('direct', 'notify/listen'),
      'A.create',
      (s) => (s.error = { code: '0A000', message: 'LISTEN not supported' }),
    );
    expect(judgeListen(steps).outcome).toBe('rejected');
  });
  test.each([
    [
      'LISTEN lost its connection',
      () =>
        mutate(
          stepsOf('direct', 'notify/listen'),
          'A.create',
          (s) => (s.error = { message: 'Connection terminated unexpectedly' }),
        ),
    ],
    [
      'the NOTIFY failed',
      () =>
        mutate(
          stepsOf('direct', 'notify/listen'),
          'N.notify',
          (s) => (s.error = { message: 'no answer within 10000 ms' }),
        ),
    ],
    ['the NOTIFY never ran', () => without(stepsOf('direct', 'notify/listen'), 'N.notify')],
  ])('inconclusive: %s', (_n, steps) => {
    expect(judgeListen(steps()).outcome).toBeNull();
  });
});

describe('session/set-local', () => {
  test('scoped on PgBouncer transaction, with the next client on that backend seeing the default', () => {
    const j = judgeSetLocal(stepsOf('pgbouncer-transaction', 'session/set-local'));
    expect(j.outcome).toBe('scoped');
    expect(j.facts).toMatchObject({ visibleInside: true, visibleAfterInA: false });
  });
  test("rejected on PgBouncer statement mode: BEGIN refused with the pooler's error", () => {
    const j = judgeSetLocal(stepsOf('pgbouncer-statement', 'session/set-local'));
    expect(j.outcome).toBe('rejected');
    expect(String(j.facts.rejectedWith)).toContain('transaction blocks not allowed');
  });
  test('leaked: A still sees the value after COMMIT', () => {
    const steps = stepsOf('direct', 'session/set-local');
    const marker = /'([^']+)'/.exec(steps.find((s) => s.tag === 'A.create')!.sql)![1];
    mutate(steps, 'A.readback', (s) => {
      for (const rows of s.results) for (const r of rows) if ('after' in r) r.after = marker;
    });
    expect(judgeSetLocal(steps).outcome).toBe('leaked');
  });
  test.each([
    ['SET LOCAL never ran', () => without(stepsOf('direct', 'session/set-local'), 'A.create')],
    [
      'the value was not visible inside',
      () => mutate(stepsOf('direct', 'session/set-local'), 'A.inside', (s) => (s.results = [[{ inside: '0' }]])),
    ],
    [
      "A's next transaction did not answer",
      () =>
        mutate(stepsOf('direct', 'session/set-local'), 'A.readback', (s) => ((s.timedOut = true), (s.results = []))),
    ],
  ])('inconclusive: %s', (_n, steps) => {
    expect(judgeSetLocal(steps()).outcome).toBeNull();
  });
});

describe('verdicts', () => {
  test('observation, expectation and the tri-state combination', () => {
    expect(verdictFor(null, 'leaked')).toBe('inconclusive');
    expect(verdictFor(null, null)).toBe('inconclusive');
    // Nothing expected, nothing to pass: a leak nobody asserted against is observed, not passed.
    expect(verdictFor('leaked', null)).toBe('observed');
    expect(verdictFor('session', null)).toBe('observed');
    expect(verdictFor('leaked', 'leaked')).toBe('pass');
    expect(verdictFor('session', 'leaked')).toBe('fail');
    expect(combineVerdicts(['pass', 'inconclusive', 'pass'])).toBe('inconclusive');
    expect(combineVerdicts(['inconclusive', 'fail', 'pass'])).toBe('fail');
    expect(combineVerdicts(['skipped', 'pass'])).toBe('pass');
    expect(combineVerdicts(['observed', 'pass'])).toBe('pass');
    expect(combineVerdicts(['skipped', 'observed'])).toBe('observed');
    expect(combineVerdicts(['observed', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts([])).toBe('skipped');
  });
});
