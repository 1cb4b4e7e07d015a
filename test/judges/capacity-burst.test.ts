/**
 * capacity/burst, judged from real logs recorded on a Postgres with max_connections = 25:
 * direct, most of 100 clients are refused with 53300; PgBouncer queues and serves them all.
 * Also the gate: the check runs only against a throwaway fixture.
 */
import { describe, expect, test } from 'vitest';
import { burst, judgeBurst, mostAtOnce } from '../../suites/capacity/burst.check.js';
import { unmetRequirement } from '../../engine/execute/check.js';
import { mutate, without } from '../support/recorded.js';
import { setColumn, trafficSteps } from '../support/traffic.js';
import type { RunContext } from '../../engine/steering/scenario.js';

const ID = 'capacity/burst';

describe(`${ID}: recorded logs`, () => {
  // Every recorded log's outcome is checked against the hand-written table in golden.test.ts.
  test('absorbed requires the served-at-once count to exceed max_connections, read from the record', () => {
    const j = judgeBurst(trafficSteps('pgbouncer-transaction', ID));
    expect(j.facts).toMatchObject({ servedAtOnce: 100, maxConnections: 25, maxConnectionsVia: 'target' });
    expect(mostAtOnce(trafficSteps('pgbouncer-transaction', ID).filter((s) => s.tag === 'burst.client'))).toBe(100);
  });

  test.each(['pgbouncer-transaction', 'pgbouncer-session', 'pgbouncer-statement'] as const)(
    'absorbed on %s: all 100 served by at most the 2 backends of the pool',
    (fixture) => {
      const j = judgeBurst(trafficSteps(fixture, ID));
      expect(j.outcome).toBe('absorbed');
      expect(j.facts).toMatchObject({ clients: 100, served: 100, refused: 0, maxConnections: 25 });
      expect(j.facts.backends).toBeLessThanOrEqual(2);
    },
  );

  test('overflowed on direct Postgres: the clients beyond max_connections refused with 53300', () => {
    const j = judgeBurst(trafficSteps('direct', ID));
    expect(j.outcome).toBe('overflowed');
    expect(j.facts.refused).toBeGreaterThan(50);
    expect(j.facts.refusedWith).toMatch(/^53300 .*sorry, too many clients already \(\d+x\)/);
  });

  test('overflowed on PgBouncer with max_client_conn = 4: refused by the pooler itself', () => {
    const j = judgeBurst(trafficSteps('pgbouncer-small-max-client', ID));
    expect(j.outcome).toBe('overflowed');
    expect(j.facts.refusedWith).toMatch(/no more connections allowed \(max_client_conn\)/);
  });

  test('overflowed on pgpool-II: nobody is refused, but clients beyond its listen queue wait past the bound', () => {
    const j = judgeBurst(trafficSteps('pgpool', ID));
    expect(j.outcome).toBe('overflowed');
    expect(j.facts).toMatchObject({ refused: 0 });
    expect(j.facts.waitedPastBound).toBeGreaterThan(0);
  });
});

describe(`${ID}: mutations and the gate`, () => {
  const absorbed = () => trafficSteps('pgbouncer-transaction', ID);
  test('overflowed: one client got no answer within its bound', () => {
    let first = true;
    const steps = mutate(absorbed(), 'burst.client', (s) => {
      if (first) s.timedOut = true;
      first = false;
    });
    expect(judgeBurst(steps).outcome).toBe('overflowed');
  });
  test('inconclusive: no client recorded', () => {
    expect(judgeBurst(without(absorbed(), 'burst.client')).outcome).toBeNull();
  });
  test('inconclusive: every client waited and none was served or refused', () => {
    const j = judgeBurst(mutate(absorbed(), 'burst.client', (s) => (s.timedOut = true)));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/no client of the burst got an answer/);
  });
  test('inconclusive: max_connections was never read, so nothing shows the burst exceeded it', () => {
    const j = judgeBurst(without(absorbed(), 'burst.limits'));
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/max_connections could not be read/);
  });
  test('inconclusive: every client served, but never more at once than max_connections', () => {
    // The same clients against a server that would have taken them all: proves nothing.
    const steps = mutate(absorbed(), 'burst.limits', (s) => setColumn(s, 'max_connections', 200));
    const j = judgeBurst(steps);
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/at most 100 at once, not more than max_connections = 200/);
  });
  test('inconclusive: clients served one after the other never exceed the limit together', () => {
    let t = 0;
    const steps = mutate(absorbed(), 'burst.client', (s) => {
      s.startMs = t;
      s.durationMs = 1;
      t += 1;
    });
    expect(judgeBurst(steps)).toMatchObject({ outcome: null, facts: { servedAtOnce: 1 } });
  });
  test('max_connections read directly wins over what the target says', () => {
    const steps = absorbed();
    const limits = steps.find((s) => s.tag === 'burst.limits')!;
    steps.push({
      ...structuredClone(limits),
      tag: 'burst.limits.direct',
      session: 'D',
      results: [[{ max_connections: 500 }]],
    });
    expect(judgeBurst(steps)).toMatchObject({
      outcome: null,
      facts: { maxConnections: 500, maxConnectionsVia: 'direct' },
    });
  });
  test('skipped unless the run says the target is a throwaway fixture', () => {
    const ctx = { fixture: false } as RunContext;
    expect(unmetRequirement(burst, ctx)).toMatch(/fixtures only/);
    expect(unmetRequirement(burst, { ...ctx, fixture: true })).toBeNull();
  });
});
