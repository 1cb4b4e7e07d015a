/**
 * An absence read from a step that went unanswered: a stalled pooler answers none of the steps
 * after the NOTIFY, so nothing arrives anywhere, and the old judge read that silence as
 * "dropped" (a conclusive fail on pgbouncer-transaction). Recorded logs with the step that
 * would have carried the notification (or shown the state, or another client's backend)
 * timed out, each with its control: the same log with that step answered still reads the
 * absence.
 */
import { describe, expect, test } from 'vitest';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { numberOf } from '../../engine/record/step-reading.js';
import { judgeMultiplexing } from '../../suites/capacity/multiplexing.check.js';
import { judgeQueueing } from '../../suites/capacity/queueing.check.js';
import { judgeListen } from '../../suites/notify/listen.check.js';
import { judgeSetLocal } from '../../suites/session/set-local.check.js';
import { recorded, stepsOf } from '../support/recorded.js';
import { setColumn, traffic, trafficSteps } from '../support/traffic.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;

/** A step left without an answer, as Session records a step past its bound. */
function stall(s: StepRecord): void {
  s.timedOut = true;
  s.error = { message: 'no answer within 3000 ms' };
  s.results = [];
  s.pid = null;
  s.notifications = [];
}

/** The recorded log with no notification anywhere: what "nobody received it" looks like. */
function silent(fixture: string): StepRecord[] {
  return stepsOf(fixture, 'notify/listen').map((s) => ({ ...s, notifications: [] }));
}

function stalledAt(steps: StepRecord[], ...tags: string[]): StepRecord[] {
  for (const s of steps) if (tags.includes(s.tag)) stall(s);
  return steps;
}

describe('notify/listen: "dropped" needs every step that could have carried the notification answered', () => {
  test("the reviewer's record: O1's COMMIT and A's next SELECT unanswered after the NOTIFY - inconclusive, not dropped", () => {
    const steps = stalledAt(silent('pgbouncer-transaction'), 'observe.release', 'A.readback');
    for (const j of [judgeListen(steps), judgeRecord({ judge: judgeListen }, steps, tx)]) {
      expect(j.outcome).toBeNull();
      expect(j.reason).toMatch(
        /would read "dropped".*A A\.readback: no answer within 3000 ms; O1 observe\.release: no answer within 3000 ms/,
      );
    }
  });
  test('control: the same record with those steps answered reads "dropped"', () => {
    expect(judgeRecord({ judge: judgeListen }, silent('pgbouncer-transaction'), tx).outcome).toBe('dropped');
  });

  test.each([
    ['A.readback', 'pgbouncer-transaction', /A A\.readback: no answer within 3000 ms/],
    ['observe.release', 'pgbouncer-transaction', /O1 observe\.release: no answer/],
    ['A.wait', 'pgbouncer-transaction', /A A\.wait: no answer/],
    ['O1.wait', 'pgbouncer-transaction', /O1 O1\.wait: no answer/],
    ['A.readback', 'direct', /A A\.readback: no answer/],
  ])('%s timed out (%s): inconclusive, naming the step', (tag, fixture, reason) => {
    const j = judgeListen(stalledAt(silent(fixture), tag));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });

  test("an observer that reached A's old backend and then timed out (so never committed): inconclusive", () => {
    const steps = silent('pgbouncer-transaction').filter((s) => s.tag !== 'observe.release' && s.tag !== 'O1.wait');
    for (const s of steps)
      if (s.tag === 'observe.take') ((s.timedOut = true), (s.error = { message: 'no answer within 3000 ms' }));
    const j = judgeListen(steps);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/O1 observe\.release never ran/);
  });

  test('a step after the NOTIFY that failed with an error is no answer either', () => {
    const steps = silent('direct');
    for (const s of steps) if (s.tag === 'A.readback') s.error = { message: 'Connection terminated unexpectedly' };
    expect(judgeListen(steps).outcome).toBeNull();
  });

  test("A's wait missing from the record (cut short): inconclusive", () => {
    const j = judgeListen(silent('direct').filter((s) => s.tag !== 'A.wait'));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/A\.wait never ran/);
  });

  test('presence is proof: a notification that arrived stands whatever went unanswered afterwards', () => {
    const misrouted = stepsOf('pgbouncer-transaction', 'notify/listen');
    expect(judgeListen(stalledAt(misrouted, 'A.readback', 'A.wait')).outcome).toBe('misrouted');
    const delivered = stepsOf('direct', 'notify/listen');
    expect(judgeListen(stalledAt(delivered, 'A.wait', 'N.wait')).outcome).toBe('delivered');
  });

  test('cleanup steps after the wait carry nothing the judge needs: their failure leaves "dropped"', () => {
    const steps = silent('pgbouncer-transaction');
    for (const s of steps) if (s.tag === 'A.cleanup' || s.tag.startsWith('clean.')) stall(s);
    expect(judgeListen(steps).outcome).toBe('dropped');
  });
});

describe('session/set-local: "scoped" needs a value read where the leak would show', () => {
  const fresh = () => stepsOf('pgbouncer-transaction', 'session/set-local');
  test("the observer on A's old backend was cut short before it read the setting: inconclusive", () => {
    const b1 = fresh().find((s) => s.tag === 'A.create')!.pid;
    const steps = fresh();
    for (const s of steps)
      if (s.tag === 'observe.take' && s.pid === b1) {
        s.results = [s.results[0]!];
        s.error = { message: 'no answer within 3000 ms' };
      }
    const j = judgeSetLocal(steps);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/would read "scoped".*O\d+ observe\.take: no answer within 3000 ms on backend/);
  });
  test("A's next transaction failed with an SQLSTATE (no value read): inconclusive", () => {
    const steps = fresh();
    for (const s of steps)
      if (s.tag === 'A.readback')
        ((s.results = []), (s.error = { code: '25P02', message: 'current transaction is aborted' }));
    expect(judgeSetLocal(steps).outcome).toBeNull();
  });
  test('control: the recorded log, every reading present, is "scoped"', () => {
    expect(judgeSetLocal(fresh()).outcome).toBe('scoped');
  });
});

describe('capacity/multiplexing: "one-per-client" needs the served clients answered throughout', () => {
  const direct = () => trafficSteps('direct', 'capacity/multiplexing');
  const d = traffic('direct').discovery;
  test('a client served once, then unanswered (a stall mid-crowd): inconclusive, naming it', () => {
    const steps = direct();
    const last = steps.filter((s) => s.session === 'C1' && s.tag === 'mux.tx').at(-1)!;
    stall(last);
    const j = judgeMultiplexing(steps, d);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(
      /would read "one-per-client".*C1 mux\.tx: no answer within 3000 ms, after it had been served/,
    );
  });
  test('control: the recorded direct log is "one-per-client", and session pooling\'s clients that never got a backend still are', () => {
    expect(judgeMultiplexing(direct(), d).outcome).toBe('one-per-client');
    const session = trafficSteps('pgbouncer-session', 'capacity/multiplexing');
    expect(judgeMultiplexing(session, traffic('pgbouncer-session').discovery).outcome).toBe('one-per-client');
  });
});

describe('capacity/queueing: "queued" needs the late transactions to have waited for a backend', () => {
  test('direct Postgres with one transaction started late on its own backend (a stall, not a queue): inconclusive', () => {
    const steps = trafficSteps('direct', 'capacity/queueing');
    const late = steps.find((s) => s.tag === 'queue.tx')!;
    const began = numberOf(late, 'began')!;
    const ended = numberOf(late, 'ended')!;
    setColumn(late, 'began', began + 400);
    setColumn(late, 'ended', ended + 400);
    const j = judgeQueueing(steps, traffic('direct').discovery);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/which no earlier transaction had used/);
  });
  test('control: PgBouncer transaction mode, late transactions on backends used before, is "queued"', () => {
    const j = judgeQueueing(
      trafficSteps('pgbouncer-transaction', 'capacity/queueing'),
      traffic('pgbouncer-transaction').discovery,
    );
    expect(j.outcome).toBe('queued');
  });
});
