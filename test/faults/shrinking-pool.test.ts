/**
 * A pool that shrinks during the run. A lossy pooler loses a server slot for good when a
 * client dies mid-transaction: here PgBouncer talks to Postgres through a fault proxy that,
 * once PgBouncer closes a server connection (as it does when transactions/abandoned kills its
 * client), refuses PgBouncer's new ones - its pool of 2 is a pool of 1 from then on.
 * pooltest counts the pool again after each destructive check and reports the smaller pool as
 * that check's availability finding, with the counts; and the same build against the same
 * lossy pooler gives the same verdicts run after run (red before: the check order changed
 * between runs, and with it which checks ran on the damaged pool).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../fixtures/fault-proxy.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { outcomes, runCli, type CliRun } from '../support/cli.js';

const ARGS = [
  '--timeout',
  '2s',
  '--only',
  'transactions/abandoned',
  '--only',
  'session/set-leak',
  '--only',
  'locks/advisory-session',
  '--only',
  'session/custom-guc-leak',
];

describe('a pool that shrinks during the run (PgBouncer behind a lossy link)', () => {
  let pgFixture: PostgresFixture;
  let proxy: FaultProxy;
  let bouncer: PoolerFixture;

  beforeAll(async () => {
    pgFixture = await startPostgres();
    proxy = await startFaultProxy({ upstreamPort: pgFixture.port });
    // PgBouncer's server connections go through the proxy.
    bouncer = await startPgBouncer(
      { ...pgFixture, port: proxy.port },
      { poolMode: 'transaction', settings: { server_login_retry: '1' } },
    );
  });
  afterAll(async () => {
    await bouncer?.stop();
    await proxy?.close();
    await pgFixture?.stop();
  });

  const lost: boolean[] = [];
  async function lossyRun(): Promise<CliRun> {
    // A fresh pool of 2 each time, then the loss armed for the run.
    proxy.refuse(false);
    await bouncer.restart();
    proxy.loseSlotOnClose(true);
    const run = await runCli(['--target', bouncer.url(), ...ARGS], { json: true, timeoutMs: 90_000 });
    lost.push(proxy.lost());
    proxy.loseSlotOnClose(false);
    return run;
  }

  test("the smaller pool is transactions/abandoned's finding, with the counts, and two runs agree on every verdict", async () => {
    proxy.loseSlotOnClose(false);
    const quiet = await runCli(['--target', bouncer.url(), ...ARGS], { json: true, timeoutMs: 90_000 });
    expect(quiet.report, quiet.stderr).not.toBeNull();
    const runs = [await lossyRun(), await lossyRun()];
    const lines: string[] = [];
    for (const run of runs) {
      expect(run.signal, run.stderr).toBeNull();
      expect([0, 1], run.stderr).toContain(run.code);
      expect(run.report, run.stderr).not.toBeNull();
      const abandoned = run.report!.checks.find((c) => c.id === 'transactions/abandoned')!;
      expect(
        abandoned.facts,
        `${abandoned.reason}; lost ${lost.join(',')}; discovered pool ${run.report!.discovery.poolSize}`,
      ).toMatchObject({ poolShrank: true, poolBefore: 2, poolAfter: 1 });
      expect(abandoned.reason).toMatch(
        /availability finding: the pool was smaller after transactions\/abandoned: 2 backend\(s\) before, 1 after/,
      );
      // The damaging check ran last: every other check ran on the whole pool, as without the loss.
      for (const c of run.report!.checks)
        if (c.id !== 'transactions/abandoned') expect(c.outcome, c.reason).toBe(outcomes(quiet.report)[c.id]);
      lines.push(
        `exit ${run.code}, ${run.ms} ms, sweep ${JSON.stringify(run.report!.sweep)}: ${JSON.stringify(outcomes(run.report))}`,
      );
    }
    console.log(`shrinking pool:\n  quiet: ${JSON.stringify(outcomes(quiet.report))}\n  ${lines.join('\n  ')}`);
    expect(outcomes(runs[0]!.report)).toEqual(outcomes(runs[1]!.report));
  });
});
