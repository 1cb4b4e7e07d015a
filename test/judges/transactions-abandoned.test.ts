/**
 * transactions/abandoned, judged from real logs: what happens to a transaction whose client
 * died, and to the next client on that backend. Every real fixture closes the backend (or
 * refuses BEGIN); a pooler that hands the open transaction on is simulated by mutation.
 */
import { describe, expect, test } from 'vitest';
import { judgeAbandoned } from '../../suites/transactions/abandoned.check.js';
import { mutate, without } from '../support/recorded.js';
import { setColumn, trafficSteps } from '../support/traffic.js';
import { valueOf } from '../../engine/record/step-reading.js';
import type { StepRecord } from '../../engine/types.js';

const ID = 'transactions/abandoned';
const bouncer = (): StepRecord[] => trafficSteps('pgbouncer-transaction', ID);

/** A's backend, transaction id and start, as the recorded INSERT read them. */
function aOf(steps: StepRecord[]): { pid: number; xid: unknown; started: unknown } {
  const insert = steps.find((s) => s.tag === 'A.insert')!;
  return { pid: insert.pid!, xid: valueOf(insert, 'xid'), started: valueOf(insert, 'started') };
}

/** Puts the first candidate on A's old backend, with `reading` applied to its take. */
function observerOnB1(
  steps: StepRecord[],
  reading: (take: StepRecord, a: ReturnType<typeof aOf>) => void,
): StepRecord[] {
  const a = aOf(steps);
  const take = steps.find((s) => s.tag === 'observe.take')!;
  take.pid = a.pid;
  reading(take, a);
  return steps;
}

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.

  test.each(['direct', 'pgbouncer-transaction', 'pgbouncer-session', 'pgpool'] as const)(
    "rolled-back on %s: nothing committed, and A's backend is gone from pg_stat_activity",
    (fixture) => {
      const j = judgeAbandoned(trafficSteps(fixture, ID));
      expect(j.outcome).toBe('rolled-back');
      expect(j.facts).toMatchObject({
        backendClosed: true,
        rowCommitted: false,
        nextClientOnOldBackend: false,
        nextClientInATransaction: false,
      });
    },
  );

  test('rejected on PgBouncer statement mode: BEGIN is answered with a FATAL', () => {
    const j = judgeAbandoned(trafficSteps('pgbouncer-statement', ID));
    expect(j.outcome).toBe('rejected');
    expect(j.facts.rejectedWith).toMatch(/^08P01 transaction blocks not allowed in statement pooling mode/);
  });
});

describe(`${ID}: a pooler that keeps A's backend`, () => {
  test("rolled-back: the next client on A's backend started a transaction of its own", () => {
    const steps = observerOnB1(bouncer(), (take) => {
      setColumn(take, 'xid', null);
      setColumn(take, 'seen', 0);
    });
    const j = judgeAbandoned(steps);
    expect(j.outcome).toBe('rolled-back');
    expect(j.facts).toMatchObject({ nextClientOnOldBackend: true, nextClientInATransaction: false });
  });

  test("rolled-back: nobody reached A's backend, but it is idle outside any transaction", () => {
    const steps = mutate(bouncer(), 'verify', (s) => {
      setColumn(s, 'old_alive', 1);
      setColumn(s, 'old_state', 'idle');
    });
    const j = judgeAbandoned(steps);
    expect(j.outcome).toBe('rolled-back');
    expect(j.facts).toMatchObject({ backendClosed: false, oldBackendState: 'idle' });
  });

  const inherited: Array<[string, (take: StepRecord, a: ReturnType<typeof aOf>) => void]> = [
    ["its transaction id is A's", (take, a) => setColumn(take, 'xid', a.xid)],
    ["its transaction started when A's did", (take, a) => setColumn(take, 'started', a.started)],
    [
      'its BEGIN warned 25001 "there is already a transaction in progress"',
      (take) =>
        take.notices.push({
          severity: 'WARNING',
          code: '25001',
          message: 'there is already a transaction in progress',
        }),
    ],
  ];
  test.each(inherited)("inherited: the next client on A's backend is inside A's transaction (%s)", (_, reading) => {
    const j = judgeAbandoned(observerOnB1(bouncer(), reading));
    expect(j.outcome).toBe('inherited');
    expect(j.facts).toMatchObject({ nextClientOnOldBackend: true, nextClientInATransaction: true });
  });

  test("inherited: read from outside, A's row is committed although A never sent COMMIT", () => {
    const j = judgeAbandoned(mutate(bouncer(), 'verify', (s) => setColumn(s, 'committed', 1)));
    expect(j.outcome).toBe('inherited');
    expect(j.facts.rowCommitted).toBe(true);
  });

  test('a verifier that itself landed inside A\'s transaction is not trusted for "committed"', () => {
    const steps = mutate(bouncer(), 'verify', (s) => {
      const a = aOf(bouncer());
      s.pid = a.pid;
      setColumn(s, 'xid', a.xid);
      setColumn(s, 'committed', 1);
    });
    const j = judgeAbandoned(steps);
    expect(j.outcome).toBe('inherited');
    expect(j.reason).toMatch(/found itself inside A's transaction/);
  });
});

describe(`${ID}: inconclusive paths`, () => {
  const cases: Array<[string, () => StepRecord[], RegExp]> = [
    [
      'the table could not be created',
      () =>
        mutate(
          bouncer(),
          'A.setup',
          (s) => (s.error = { code: '42501', message: 'permission denied for schema public' }),
        ),
      /needs CREATE.*42501/,
    ],
    ['no setup step', () => without(bouncer(), 'A.setup'), /could not be created/],
    [
      'BEGIN timed out (not refused)',
      () =>
        without(
          mutate(bouncer(), 'A.begin', (s) => (s.timedOut = true)),
          'A.insert',
        ),
      /did not run inside a transaction/,
    ],
    [
      'the INSERT failed',
      () => mutate(bouncer(), 'A.insert', (s) => (s.error = { code: '23505', message: 'duplicate key' })),
      /did not run inside a transaction/,
    ],
    [
      'the INSERT read no transaction id',
      () => mutate(bouncer(), 'A.insert', (s) => setColumn(s, 'xid', null)),
      /no pid or transaction id/,
    ],
    ["A's socket was never destroyed", () => without(bouncer(), 'A.abandon'), /never destroyed/],
    ['nobody read what was committed', () => without(bouncer(), 'verify'), /nobody could read what was committed/],
    [
      'the verifier failed',
      () => mutate(bouncer(), 'verify', (s) => (s.error = { code: '57014', message: 'canceling statement' })),
      /nobody could read/,
    ],
    [
      "A's backend is still idle in transaction and nobody reached it",
      () =>
        mutate(bouncer(), 'verify', (s) => {
          setColumn(s, 'old_alive', 1);
          setColumn(s, 'old_state', 'idle in transaction');
        }),
      /still idle in transaction/,
    ],
  ];
  test.each(cases)('%s', (_, steps, reason) => {
    const j = judgeAbandoned(steps());
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(reason);
  });
});
