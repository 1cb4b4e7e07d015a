/**
 * More holes that other traffic (or a pooler that restarts) opens, closed: a pool that is not
 * the size discovery counted, a shared pool of unknown size, and a scenario cut short by an
 * interruption. Recorded logs and their mutations; the last test runs executeCheck itself
 * against a closed port (nothing to connect to: the record is all there is).
 */
import { describe, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext } from '../../engine/context/run-state.js';
import { judgeRecord } from '../../engine/judging/judge-record.js';
import { readLanding } from '../../engine/judging/landing.js';
import { freePort } from '../../fixtures/free-port.js';
import { judgeListen } from '../../suites/notify/listen.check.js';
import { setLeak } from '../../suites/session/set-leak.check.js';
import { recorded, stepsOf } from '../support/recorded.js';
import type { Scenario } from '../../engine/steering/scenario.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

const session = recorded('pgbouncer-session').discovery;
const tx = recorded('pgbouncer-transaction').discovery;

/**
 * The session-mode set-leak log with its queue and probes replaced by `n` candidates that all
 * got a backend other than A's: what a pool bigger than counted (or refilled with new server
 * connections) looks like. A still stays on b1 with its state.
 */
function allMissed(n: number): StepRecord[] {
  const steps = stepsOf('pgbouncer-session', 'session/set-leak');
  const b1 = steps[0]!.pid!;
  const first = steps.find((s) => s.tag === 'observe.take' && !s.timedOut)!;
  const kept = steps.filter((s) => !s.tag.startsWith('observe.'));
  const takes = Array.from({ length: n }, (_, i) => ({
    ...first,
    session: `O${i + 1}`,
    pid: b1 + 100 + i,
    results: [[{ pid: b1 + 100 + i }], [{ seen: '0' }]],
  }));
  return [kept[0]!, ...takes, ...kept.slice(1)].map((s, i) => ({ ...s, seq: i + 1 }));
}

describe('load: the pool is not what discovery counted', () => {
  test('P candidates all elsewhere, with a pool of P, means P + 1 backends: no "session"', () => {
    const steps = allMissed(2);
    const j = setLeak.judge(steps, session);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/came to 3 backends, more than the pool of 2/);
    expect(j.facts.backendsSeen).toBe(3);
  });

  test("a shared pool of unknown size: trying the bound's worth of candidates proves nothing", () => {
    const unknownShared: Discovery = { ...tx, poolSize: null };
    const j = setLeak.judge(allMissed(tx.poolBound), unknownShared);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/shared and the pool's size is unknown/);
  });

  test('a session pool of unknown size, every candidate of the bound elsewhere: "session" stands', () => {
    const unknownSession: Discovery = { ...session, poolSize: null };
    const steps = allMissed(session.poolBound);
    expect(readLanding(steps, unknownSession, steps[0]!.pid!).reservedBy).toBe('pool');
    expect(setLeak.judge(steps, unknownSession).outcome).toBe('session');
  });

  test('a connected client that changed backends counts as sharing, even when no holder reached its backend', () => {
    // Under traffic, discovery's holders may never get the idle client's backend; the client
    // moving is then the only sign of transaction pooling, and "session" would be wrong.
    const movedOnly: Discovery = { ...session, sharedAcrossClients: false, clientKeepsBackend: false, poolSize: null };
    expect(setLeak.judge(allMissed(session.poolBound), movedOnly).outcome).toBeNull();
  });
});

describe('load: an interrupted scenario proves nothing', () => {
  test('a record cut short by an interruption is inconclusive, whatever the judge would read', async () => {
    // The record up to A's wait, before any notification arrived, alone reads "dropped".
    const steps = stepsOf('pgbouncer-transaction', 'notify/listen')
      .filter((s) =>
        ['A.create', 'observe.take', 'N.notify', 'observe.release', 'A.readback', 'A.wait', 'O1.wait'].includes(s.tag),
      )
      .map((s) => ({ ...s, notifications: [] }));
    expect(judgeRecord({ judge: judgeListen }, steps, tx).outcome).toBe('dropped');
    const port = await freePort();
    const ctx = runContext({
      target: { host: '127.0.0.1', port, user: 'u', password: 'p', database: 'd', sslmode: 'disable' as const },
      direct: null,
      discovery: tx,
      runId: 'feedface',
      bounds: { connectMs: 500, stepMs: 500 },
    });
    const interrupted = new AbortController();
    interrupted.abort();
    const def = {
      ...setLeak,
      id: 'notify/listen',
      judge: judgeListen,
      scenario: async (scn: Scenario) => void steps.forEach((s) => scn.recorder.add(s)),
    };
    const r = await executeCheck(def, ctx, null, interrupted.signal);
    expect(r.outcome).toBeNull();
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason).toMatch(/^interrupted/);
    expect(r.facts.interrupted).toBe(true);
  });
});
