/**
 * Holes other clients' traffic opens in judging, closed: a candidate for A's old backend that
 * queued behind someone else's transaction is no proof that the pooler kept that backend for
 * A. Each test takes a real PgBouncer transaction-mode log where the observer landed, and
 * rewrites it into what load produces: the observer lands elsewhere, the next candidate
 * queues while traffic holds b1, and A then runs on b1 again. The check's own judge reads a
 * conclusive - and wrong - label into that; the engine's judging (judgeRecord) must not.
 */
import { describe, expect, test } from 'vitest';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { readLanding } from '../../engine/judging/landing.js';
import { advisorySession, judgeAdvisory } from '../../suites/locks/advisory-session.check.js';
import { judgeListen, listen } from '../../suites/notify/listen.check.js';
import { setLeak } from '../../suites/session/set-leak.check.js';
import { recorded, stepsOf } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;

/** What the probe after a queue saw on b1. */
type Probe = { state: string | null; quiet: boolean; present?: number } | 'none';

/**
 * Rewrites a landed observer into a miss: O1 lands on `elsewhere` (its readings replaced by
 * `o1`), O2 queues, a probe looks at b1, and A's next step runs on b1 (its readings `a`).
 */
function missedByTraffic(
  steps: StepRecord[],
  probe: Probe,
  o1: Record<string, unknown>,
  a: Record<string, unknown>,
): StepRecord[] {
  const b1 = steps.find((s) => s.tag === 'A.create')!.pid!;
  const elsewhere = b1 + 1;
  const out: StepRecord[] = [];
  for (const s of steps) {
    if (s.tag === 'observe.take') {
      out.push({ ...s, pid: elsewhere, results: [[{ pid: elsewhere }], [o1]] });
      out.push(
        step({
          session: 'O2',
          tag: 'observe.take',
          sql: 'BEGIN; SELECT pg_backend_pid() AS pid',
          timedOut: true,
          error: { message: 'no answer within 250 ms' },
        }),
      );
      if (probe !== 'none') {
        out.push(
          step({
            session: 'O1',
            tag: 'observe.probe',
            results: [
              [{ pg_stat_clear_snapshot: '' }],
              [{ target_pid: b1, present: probe.present ?? 1, state: probe.state, quiet: probe.quiet }],
            ],
          }),
        );
      }
    } else if (s.tag === 'A.readback') {
      out.push({ ...s, pid: b1, results: [[{ pid: b1 }], [a]] });
    } else {
      out.push(s);
    }
  }
  return out.map((s, i) => ({ ...s, seq: i + 1 }));
}

function step(p: Partial<StepRecord> & Pick<StepRecord, 'session' | 'tag'>): StepRecord {
  return {
    seq: 0,
    sql: '',
    pid: null,
    results: [],
    error: null,
    notices: [],
    notifications: [],
    startMs: 0,
    durationMs: 0,
    timedOut: false,
    txStatus: null,
    ...p,
  };
}

const busy: Probe = { state: 'active', quiet: false };
const quiet: Probe = { state: 'idle', quiet: true };

describe('load: a queue behind other traffic proves nothing', () => {
  const marker = () =>
    /statement_timeout = '([^']+)'/.exec(stepsOf('pgbouncer-transaction', 'session/set-leak')[0]!.sql)![1]!;
  const setLeakSteps = (probe: Probe) =>
    missedByTraffic(stepsOf('pgbouncer-transaction', 'session/set-leak'), probe, { seen: '0' }, { mine: marker() });

  test('state judge: A back on b1 with its state after a queue behind traffic is not "pinned"', () => {
    // The hole, as the judge had it: a queue counted as "nobody else could get b1".
    const j = setLeak.judge(setLeakSteps(busy), tx);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/active by another client/);
    expect(judgeRecord(setLeak, setLeakSteps(busy), tx).outcome).toBeNull();
  });

  test('state judge: no probe at all (nothing could look at b1) is no proof either', () => {
    expect(setLeak.judge(setLeakSteps('none'), tx).reason).toMatch(/nothing could look at backend/);
  });

  test('state judge: b1 gone, or its state hidden from this login, is no proof', () => {
    expect(setLeak.judge(setLeakSteps({ state: null, quiet: false, present: 0 }), tx).reason).toMatch(
      /no longer exists/,
    );
    expect(setLeak.judge(setLeakSteps({ state: null, quiet: false }), tx).reason).toMatch(/may not see the state/);
  });

  test('state judge: b1 idle and untouched while the candidate queued is proof: "pinned" stands', () => {
    const j = setLeak.judge(setLeakSteps(quiet), tx);
    expect(j.outcome).toBe('pinned');
    expect(readLanding(setLeakSteps(quiet), tx, setLeakSteps(quiet)[0]!.pid!).reservedBy).toBe('queue');
  });

  test('locks/advisory-session: refused on another backend while b1 was busy is not "exclusive"', () => {
    const steps = missedByTraffic(
      stepsOf('pgbouncer-transaction', 'locks/advisory-session'),
      busy,
      { held_before: 0, got: false },
      { unlocked: true },
    );
    // The check's own judge still reads "exclusive" (wrong: PgBouncer shares the lock)...
    expect(judgeAdvisory(steps).outcome).toBe('exclusive');
    // ...and the engine's judging refuses it, saying why and what the record alone would say.
    const j = judgeRecord(advisorySession, steps, tx);
    expect(j.outcome).toBeNull();
    expect(j.facts.unprovenOutcome).toBe('exclusive');
    expect(j.reason).toMatch(/other traffic, not a reservation/);
  });

  test('notify/listen: A receiving its notification after the observer missed b1 is not "delivered"', () => {
    const steps = missedByTraffic(stepsOf('pgbouncer-transaction', 'notify/listen'), busy, {}, {});
    const received = steps.find((s) => s.notifications.length > 0)!;
    const moved = steps.map((s) =>
      s === received
        ? { ...s, notifications: [] }
        : s.tag === 'A.wait'
          ? { ...s, notifications: received.notifications }
          : s,
    );
    expect(judgeListen(moved).outcome).toBe('delivered');
    expect(judgeRecord(listen, moved, tx).outcome).toBeNull();
  });

  test('a landing that reached b1 needs no proof: the recorded outcomes stand', () => {
    for (const id of ['session/set-leak', 'locks/advisory-session', 'notify/listen']) {
      const steps = stepsOf('pgbouncer-transaction', id);
      expect(readLanding(steps, tx, steps[0]!.pid!).placed, id).toBe(true);
    }
    expect(judgeRecord(advisorySession, stepsOf('pgbouncer-transaction', 'locks/advisory-session'), tx).outcome).toBe(
      'shared',
    );
  });
});
