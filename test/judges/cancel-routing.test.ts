/**
 * cancel/routing, judged from real logs: a CancelRequest with A's key stops A's slow query
 * (routed), stops B's (misrouted, simulated), or nothing (ignored: pgpool-II with both child
 * processes busy cannot read the request until a client leaves).
 */
import { describe, expect, test } from 'vitest';
import { judgeCancelRouting } from '../../suites/cancel/routing.check.js';
import { mutate, without } from '../support/recorded.js';
import { setColumn, trafficSteps } from '../support/traffic.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'cancel/routing';
const bouncer = (): StepRecord[] => trafficSteps('pgbouncer-transaction', ID);
const byRequest = { code: '57014', severity: 'ERROR', message: 'canceling statement due to user request' };

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.

  test.each(['direct', 'pgbouncer-transaction', 'pgbouncer-session', 'pgbouncer-statement'] as const)(
    'routed on %s: A got 57014, B completed, on two backends',
    (fixture) => {
      const j = judgeCancelRouting(trafficSteps(fixture, ID));
      expect(j.outcome).toBe('routed');
      expect(j.facts).toMatchObject({ aCancelled: true, bCancelled: false, cancelWritten: true });
      expect(j.facts.aBackend).not.toBe(j.facts.bBackend);
      expect(j.facts.cancelConnectionClosedAfterMs).not.toBeNull();
    },
  );

  test('ignored on pgpool-II: A ran its full sleep and the cancel connection was never closed', () => {
    const j = judgeCancelRouting(trafficSteps('pgpool', ID));
    expect(j.outcome).toBe('ignored');
    expect(j.facts).toMatchObject({
      aCancelled: false,
      bCancelled: false,
      cancelWritten: true,
      cancelConnectionClosedAfterMs: null,
    });
  });
});

describe(`${ID}: mutations`, () => {
  test("misrouted: B's query was cancelled and A's ran on", () => {
    const steps = mutate(
      mutate(bouncer(), 'A.slow', (s) => (s.error = null)),
      'B.slow',
      (s) => (s.error = { ...byRequest }),
    );
    const j = judgeCancelRouting(steps);
    expect(j.outcome).toBe('misrouted');
    expect(j.facts).toMatchObject({ aCancelled: false, bCancelled: true });
  });
  test('misrouted: both queries were cancelled', () => {
    expect(judgeCancelRouting(mutate(bouncer(), 'B.slow', (s) => (s.error = { ...byRequest }))).outcome).toBe(
      'misrouted',
    );
  });
  test('ignored: nothing was cancelled although the target read the request', () => {
    const j = judgeCancelRouting(mutate(bouncer(), 'A.slow', (s) => (s.error = null)));
    expect(j.outcome).toBe('ignored');
    expect(j.reason).toMatch(/closed the cancel connection after/);
  });
  // Issue 21: on a busy machine the cancel connection can be made after both sleeps are over;
  // neither query is then cancelled, and that is no sign the target ignores cancels.
  const ignoredWithWrite = (afterBEndMs: number): StepRecord[] => {
    const steps = mutate(bouncer(), 'A.slow', (s) => (s.error = null));
    const b = steps.find((s) => s.tag === 'B.slow')!;
    return mutate(steps, 'cancel.send', (s) => {
      const row = s.results[0]![0]!;
      row.b_sleep_ms = 300;
      row.written_after_ms = b.startMs + 300 + afterBEndMs - s.startMs;
    });
  };
  test("ignored: the request was written while B's sleep was certainly still running", () => {
    const j = judgeCancelRouting(ignoredWithWrite(-50));
    expect(j.outcome, j.reason).toBe('ignored');
    expect(j.facts.cancelWrittenAfterBEndMs).toBe(-50);
  });
  test("inconclusive, not ignored: the request was written only after B's sleep could have ended", () => {
    const j = judgeCancelRouting(ignoredWithWrite(120));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/written 120 ms after B's sleep could have ended/);
  });
  const inconclusive: Array<[string, () => StepRecord[], RegExp]> = [
    [
      'A and B on the same backend',
      () => mutate(bouncer(), 'B.slow', (s) => (s.pid = bouncer().find((x) => x.tag === 'A.slow')!.pid)),
      /same backend/,
    ],
    [
      'B never reported a backend',
      () => mutate(bouncer(), 'B.slow', (s) => (s.pid = null)),
      /did not both report a backend/,
    ],
    ['A is missing', () => without(bouncer(), 'A.slow'), /did not both report a backend/],
    ['no cancel was sent', () => without(bouncer(), 'cancel.send'), /no cancel request was sent/],
    [
      'the cancel could not be written',
      () => mutate(bouncer(), 'cancel.send', (s) => setColumn(s, 'written', false)),
      /no cancel request was sent/,
    ],
    [
      'the safety net fired (57014 from statement_timeout)',
      () =>
        mutate(
          bouncer(),
          'A.slow',
          (s) => (s.error = { code: '57014', message: 'canceling statement due to statement timeout' }),
        ),
      /A's slow query ended abnormally: 57014 canceling statement due to statement timeout/,
    ],
    ['B timed out', () => mutate(bouncer(), 'B.slow', (s) => (s.timedOut = true)), /B's slow query ended abnormally/],
    [
      'B failed with another error',
      () => mutate(bouncer(), 'B.slow', (s) => (s.error = { code: '53200', message: 'out of memory' })),
      /ended abnormally/,
    ],
  ];
  test.each(inconclusive)('inconclusive: %s', (_, steps, reason) => {
    const j = judgeCancelRouting(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
