/**
 * Down is not an answer. Red before: a pooler killed just before capacity/queueing gave
 * `rejected` (a FAIL with "raise max_client_conn"), read from connections that were refused
 * because nothing listened any more. A check whose every connection fails with a refusal or an
 * outage is inconclusive (target unavailable); the wait for the target to come back is said on
 * the progress line and counted in the check's duration.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { killPooler, runWithFault } from './fault-run.js';

describe('down is not an answer', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;

  beforeAll(async () => {
    pgFixture = await startPostgres();
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction' });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await pgFixture?.stop();
  });

  test('a pooler killed just before capacity/queueing makes it inconclusive (target unavailable), not rejected', async () => {
    const run = await runWithFault(
      ['--target', bouncer.url(), '--timeout', '2s', '--only', 'session/set-leak', '--only', 'capacity/queueing'],
      1,
      async () => killPooler(bouncer),
      60_000,
    );
    expect(run.injected).toBe(true);
    expect(run.signal, run.stderr).toBeNull();
    expect([0, 1, 2]).toContain(run.code);
    const queueing = run.report?.checks.find((c) => c.id === 'capacity/queueing');
    expect(queueing, run.stderr).toBeDefined();
    expect(queueing!.outcome, queueing!.reason).toBeNull();
    expect(queueing!.verdict).toBe('inconclusive');
    expect(queueing!.reason).toMatch(/target was unavailable/);
    // The wait for the target is announced, bounded (connect + step bound: 4 s), and counted.
    expect(run.stderr).toMatch(
      /waiting up to 4 s for the target to answer again \(capacity\/queueing found it unavailable\)/,
    );
    expect(queueing!.durationMs).toBeGreaterThanOrEqual(4_000);
    expect(run.ms).toBeLessThan(40_000);
  });
});
