/**
 * Holes outages and other pooltest runs open in judging, closed in the engine's judging
 * (judgeRecord): a restarting server's errors read as a refusal, a link that broke read as a
 * refusal, and another run's session resets erasing this run's state on a shared backend.
 */
import { describe, expect, test } from 'vitest';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { OTHER_RUNS_TAG } from '../../engine/steering/other-runs.js';
import { judgeSetLocal } from '../../suites/session/set-local.check.js';
import { setLeak } from '../../suites/session/set-leak.check.js';
import { mutate, recorded, stepsOf } from '../support/recorded.js';
import type { StepRecord } from '../../engine/types.js';

const tx = recorded('pgbouncer-transaction').discovery;
const statement = recorded('pgbouncer-statement').discovery;

describe('load: an outage is not a refusal', () => {
  test('PgBouncer\'s "server login has been failing" (08P01, Postgres restarting) is no "rejected"', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'A.create', (s) => {
      s.results = [];
      s.pid = null;
      s.error = { code: '08P01', message: 'server login has been failing, try again later (server_login_retry)' };
    });
    // The hole: the judge reads any SQLSTATE on A's statement as the pooler refusing it.
    expect(setLeak.judge(steps, tx).outcome).toBe('rejected');
    const j = judgeRecord(setLeak, steps, tx);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/target was unavailable during the check/);
  });

  test('57P01 (a backend terminated by an administrator) marks an outage too', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'A.readback', (s) => {
      s.error = { code: '57P01', message: 'terminating connection due to administrator command' };
    });
    expect(judgeRecord(setLeak, steps, tx).outcome).toBeNull();
  });

  test('a connection closed without a word (a pooler killed) is no refusal of BEGIN', () => {
    const steps = mutate(stepsOf('pgbouncer-transaction', 'session/set-local'), 'A.begin', (s) => {
      s.error = { message: 'Connection terminated unexpectedly' };
      s.txStatus = null;
    });
    // The hole: set-local reads a closed connection on BEGIN as statement pooling refusing it.
    expect(judgeSetLocal(steps).outcome).toBe('rejected');
    expect(judgeRecord({ judge: judgeSetLocal }, steps, tx).outcome).toBeNull();
  });

  test('control: statement pooling refusing BEGIN (08P01 with its own words) is still "rejected"', () => {
    const steps = stepsOf('pgbouncer-statement', 'session/set-local');
    expect(judgeRecord({ judge: judgeSetLocal }, steps, statement).outcome).toBe('rejected');
  });
});

describe('load: another pooltest run on the same target', () => {
  const note = (others: number): StepRecord => ({
    seq: 99,
    session: 'engine',
    tag: OTHER_RUNS_TAG,
    sql: '(other runs)',
    pid: null,
    results: [[{ other_runs: others }]],
    error: null,
    notices: [],
    notifications: [],
    startMs: 0,
    durationMs: 0,
    timedOut: false,
    txStatus: null,
  });

  test('while another run is active, no conclusion stands, and the reason says why', () => {
    const steps = [...stepsOf('pgbouncer-transaction', 'session/set-leak'), note(1)];
    const j = judgeRecord(setLeak, steps, tx);
    expect(j.outcome).toBeNull();
    expect(j.facts).toMatchObject({ unprovenOutcome: 'leaked', otherPooltestRuns: 1 });
    expect(j.reason).toMatch(/other pooltest run\(s\) worked on this target.*DISCARD ALL/);
  });

  // Seen in a fresh-clone run: two runs at once, A's readback queued behind the other run's
  // holders for the whole step bound, and the judge's own "did not answer" was all the report
  // said: the veto names the other run only over a proposed outcome.
  test("inconclusive on its own while another run is active: the reason names that run first, and keeps the judge's", () => {
    const unanswered = mutate(stepsOf('pgbouncer-transaction', 'session/set-leak'), 'A.readback', (s) => {
      s.results = [];
      s.pid = null;
      s.timedOut = true;
      s.error = { message: 'no answer within 10000 ms' };
    });
    const alone = judgeRecord(setLeak, unanswered, tx);
    expect(alone.outcome).toBeNull();
    // The control: alone on the target, the judge's reason as it was, no other run named.
    expect(alone.reason).not.toMatch(/other pooltest run/);
    const j = judgeRecord(setLeak, [...unanswered, note(1)], tx);
    expect(j.outcome).toBeNull();
    expect(j.facts).toMatchObject({ otherPooltestRuns: 1 });
    expect(j.reason).toMatch(/^not conclusive: 1 other pooltest run\(s\) worked on this target during the check/);
    expect(j.reason).toContain(`(${alone.reason})`);
  });

  test('alone on the target, the recorded outcome stands', () => {
    expect(judgeRecord(setLeak, stepsOf('pgbouncer-transaction', 'session/set-leak'), tx).outcome).toBe('leaked');
  });
});
