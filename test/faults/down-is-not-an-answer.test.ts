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
import { killPooler, runWithFault, type FaultRun } from './fault-run.js';
import type { CheckResult } from '../../engine/types.js';

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
    // Under load the CLI can finish capacity/queueing before this process reads the line that
    // triggers the kill (issue 21): the record is then untouched by the fault and its label
    // says nothing about the fix. The CLI is frozen while the pooler dies, and a run the kill
    // did not reach is run again (bounded): the assertions below are never loosened for it.
    let run: FaultRun | undefined;
    let queueing: CheckResult | undefined;
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) await bouncer.restart(); // the last attempt killed it
      run = await runWithFault(
        ['--target', bouncer.url(), '--timeout', '2s', '--only', 'session/set-leak', '--only', 'capacity/queueing'],
        1,
        async () => killPooler(bouncer),
        150_000,
        true,
      );
      queueing = run.report?.checks.find((c) => c.id === 'capacity/queueing');
      const reached = queueing?.steps.some((s) => s.error !== null || s.timedOut) ?? true;
      console.log(`down-is-not-an-answer: attempt ${attempt}: the kill ${reached ? 'reached' : 'missed'} the check`);
      if (reached) break;
    }
    expect(run!.injected).toBe(true);
    expect(run!.signal, run!.stderr).toBeNull();
    expect([0, 1, 2]).toContain(run!.code);
    expect(queueing, run!.stderr).toBeDefined();
    expect(queueing!.outcome, queueing!.reason).toBeNull();
    expect(queueing!.verdict).toBe('inconclusive');
    expect(queueing!.reason).toMatch(/target was unavailable/);
    // The wait for the target is announced, bounded (connect + step bound: 4 s), and counted.
    // (No bound on the whole CLI's time: under load its start-up alone takes seconds; the
    // runner's 150 s kill is the hang guard, and a killed run fails on its signal above.)
    expect(run!.stderr).toMatch(
      /waiting up to 4 s for the target to answer again \(capacity\/queueing found it unavailable\)/,
    );
    expect(queueing!.durationMs).toBeGreaterThanOrEqual(4_000);
  }, 600_000);
});
