/**
 * capacity/multiplexing, judged from real logs: twenty connected clients share two backends
 * (transaction and statement pooling) or each holds one of its own (direct Postgres; session
 * pooling and pgpool-II, where the clients beyond the pool wait in vain).
 */
import { describe, expect, test } from 'vitest';
import { judgeMultiplexing } from '../../suites/capacity/multiplexing.check.js';
import { mutate } from '../support/recorded.js';
import { traffic, trafficSteps, type TrafficFixture } from '../support/traffic.js';

const ID = 'capacity/multiplexing';
const judge = (fixture: TrafficFixture) => judgeMultiplexing(trafficSteps(fixture, ID), traffic(fixture).discovery);

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.

  test.each(['pgbouncer-transaction', 'pgbouncer-statement'] as const)(
    'multiplexed on %s: 20 clients on at most the 2 backends of the pool',
    (fixture) => {
      const j = judge(fixture);
      expect(j.outcome).toBe('multiplexed');
      expect(j.facts).toMatchObject({ clients: 20, served: 20, withinPool: true });
      expect(j.facts.backends).toBeLessThanOrEqual(2);
      expect(j.facts.sharedBackends).toBeGreaterThanOrEqual(1);
      expect(j.facts.serverConnections).toBeLessThanOrEqual(2);
    },
  );

  test('multiplexed with max_client_conn = 4: the refused clients are counted, the served ones share', () => {
    const j = judge('pgbouncer-small-max-client');
    expect(j.outcome).toBe('multiplexed');
    expect(j.facts.refused).toBeGreaterThan(0);
    expect(j.facts.refusedWith).toMatch(/max_client_conn/);
  });

  test('one-per-client on direct Postgres: 20 clients, 20 backends, 20 server connections', () => {
    const j = judge('direct');
    expect(j.outcome).toBe('one-per-client');
    expect(j.facts).toMatchObject({ served: 20, backends: 20, sharedBackends: 0, serverConnections: 20 });
  });

  test.each(['pgbouncer-session', 'pgpool'] as const)(
    'one-per-client on %s: 2 clients served, 18 left waiting',
    (fixture) => {
      const j = judge(fixture);
      expect(j.outcome).toBe('one-per-client');
      expect(j.facts).toMatchObject({ served: 2, waiting: 18, backends: 2, sharedBackends: 0 });
    },
  );
});

describe(`${ID}: inconclusive`, () => {
  test('fewer than two clients served', () => {
    const steps = mutate(trafficSteps('pgbouncer-transaction', ID), 'mux.tx', (s) => (s.timedOut = s.session !== 'C1'));
    const j = judgeMultiplexing(steps, traffic('pgbouncer-transaction').discovery);
    expect(j.outcome).toBeNull();
    // The reason says what became of the other 19 (a busy machine's logins run out of time
    // together; a refusal would name its error instead).
    expect(j.reason).toBe('only 1 of 20 clients were served; the others: no answer within the bound (19x)');
  });
});
