/**
 * capacity/queueing, judged from real logs: six 200 ms transactions on a pool of two run in
 * three rounds (queued), all at once without a pool (unlimited), or some are refused
 * (rejected: PgBouncer's max_client_conn).
 */
import { describe, expect, test } from 'vitest';
import { judgeQueueing } from '../../suites/capacity/queueing.check.js';
import { mutate, without } from '../support/recorded.js';
import { TRAFFIC_FIXTURES, fixturesWith, setColumn, traffic, trafficSteps } from '../support/traffic.js';

const ID = 'capacity/queueing';
const discovery = (f: (typeof TRAFFIC_FIXTURES)[number]) => traffic(f).discovery;

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.

  test('every pooler with room for six clients (PgBouncer in all three modes, pgpool-II) queues them', () => {
    expect(fixturesWith(ID, 'queued')).toEqual(
      expect.arrayContaining(['pgbouncer-transaction', 'pgbouncer-session', 'pgbouncer-statement', 'pgpool']),
    );
  });

  test('queued on PgBouncer transaction mode: three rounds of two, about one transaction apart', () => {
    const j = judgeQueueing(trafficSteps('pgbouncer-transaction', ID), discovery('pgbouncer-transaction'));
    expect(j.outcome).toBe('queued');
    expect(j.facts).toMatchObject({
      transactions: 6,
      poolSize: 2,
      backends: 2,
      peakConcurrent: 2,
      waited: 4,
      rounds: 3,
      expectedRounds: 3,
    });
    expect(j.facts.maxWaitMs).toBeGreaterThanOrEqual(380);
  });

  test('unlimited on direct Postgres: six backends, all at once', () => {
    const j = judgeQueueing(trafficSteps('direct', ID), discovery('direct'));
    expect(j.outcome).toBe('unlimited');
    expect(j.facts).toMatchObject({ noPool: true, backends: 6, peakConcurrent: 6, waited: 0, rounds: 1 });
  });

  test('rejected on PgBouncer with max_client_conn = 4: the FATAL verbatim, counted', () => {
    const j = judgeQueueing(trafficSteps('pgbouncer-small-max-client', ID), discovery('pgbouncer-small-max-client'));
    expect(j.outcome).toBe('rejected');
    expect(j.facts.failed).toBeGreaterThan(0);
    expect(j.facts.rejectedWith).toMatch(/^08P01 .*no more connections allowed \(max_client_conn\) \(\dx\)$/);
  });
});

describe(`${ID}: mutations`, () => {
  const tx = () => trafficSteps('pgbouncer-transaction', ID);
  test('inconclusive: a transaction got no answer within its bound (no answer is no refusal: a stall looks the same)', () => {
    let first = true;
    const steps = mutate(tx(), 'queue.tx', (s) => {
      if (first) ((s.timedOut = true), (s.error = { message: 'no answer within 3000 ms' }));
      first = false;
    });
    const j = judgeQueueing(steps, discovery('pgbouncer-transaction'));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(
      /1 of 6 transactions got no answer within the bound, and none was refused.*T\d+ queue\.tx: no answer within 3000 ms/,
    );
  });
  test('rejected: the pooler gave up on a waiting client (query_wait_timeout)', () => {
    let first = true;
    const steps = mutate(tx(), 'queue.tx', (s) => {
      if (first) s.error = { code: '08P01', severity: 'FATAL', message: 'query_wait_timeout' };
      first = false;
    });
    expect(judgeQueueing(steps, discovery('pgbouncer-transaction')).outcome).toBe('rejected');
  });
  test('inconclusive: nothing recorded', () => {
    const j = judgeQueueing(without(tx(), 'queue.tx'), discovery('pgbouncer-transaction'));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/no transaction was recorded/);
  });
  test('inconclusive: a transaction did not read the server clock', () => {
    const j = judgeQueueing(
      mutate(tx(), 'queue.tx', (s) => setColumn(s, 'ended', null)),
      discovery('pgbouncer-transaction'),
    );
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/start and end/);
  });
});
