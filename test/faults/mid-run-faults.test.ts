/**
 * Faults in the middle of a run, against PgBouncer in transaction mode: the pooler restarts,
 * backends are terminated, Postgres restarts, the network stalls, the --direct endpoint never
 * answers. Each must end the affected checks inconclusive (never with another label) or the
 * run with a coded error, within the run's bounds; checks after the fault go on once the
 * target is back; and nothing is left behind - no state on the server, no process, no hang.
 */
import { dirname } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { waitForLogin } from '../../fixtures/login.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { ProcessInfo } from '../../fixtures/proc-table.js';
import { expectFullyStopped, fixtureProcesses } from '../fixtures/fixture-test-helpers.js';
import { cleanBackend, freshSettings, superuserView, visitPool, withSuperuser } from '../safety/trace-inspection.js';
import { outcomes, runCli } from '../support/cli.js';
import { checkInFlight, expectEndedByItself, runWithFault, wrongAnswers, type FaultRun } from './fault-run.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import { MEASURED } from '../catalogue/expected-outcomes.js';

/** Steps time out after 3 s: a stalled or restarting target costs seconds, not minutes. */
const TIMEOUT = ['--timeout', '3s'];
/**
 * Ten quick checks that each steer a holder and an observer inside transactions (the moment
 * checkInFlight waits for): enough for the fault to land after the fourth and for checks after
 * it to conclude. The whole catalogue (its capacity checks take seconds each) made every run
 * several times longer and proved nothing more about the faults (issue 21).
 */
const ONLY = [
  '--only',
  'session/set-leak,session/search-path-leak,session/custom-guc-leak,session/set-local,temp/temp-table,locks/advisory-session,locks/advisory-xact,prepared/sql-prepare,sequences/lastval,statement/transaction-block',
];

describe('faults in the middle of a run (PgBouncer transaction mode)', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  let baseline: Record<string, string | null>;
  const tally: Array<{
    fault: string;
    survived: boolean;
    hit: string[];
    inconclusive: number;
    conclusiveAfter: number;
    ms: number;
  }> = [];
  const args = (target = bouncer.url(), direct = pgFixture.url(), bound = TIMEOUT): string[] => [
    '--target',
    target,
    '--direct',
    direct,
    ...bound,
    ...ONLY,
  ];

  beforeAll(async () => {
    pgFixture = await startPostgres();
    // server_login_retry 1 s: after Postgres comes back, PgBouncer logs in again promptly
    // (its default waits 15 s after a failed login).
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction', settings: { server_login_retry: '1' } });
    // The baseline runs with the default step bound: a label does not depend on the bound, and
    // with 3 s a quiet run beside another file at load 13-20 wrote no report (issue 21).
    const quiet = await runCli(args(bouncer.url(), pgFixture.url(), []), { json: true });
    expect(quiet.report, quiet.stderr).not.toBeNull();
    // Measurements (capacity/connect-churn, a latency ratio) are not compared: a fault may move them.
    baseline = outcomes({
      ...quiet.report!,
      checks: quiet.report!.checks.filter(
        (c) => c.verdict !== 'skipped' && !(MEASURED as readonly string[]).includes(c.id),
      ),
    });
    // A baseline without labels would make "no wrong answer" prove nothing.
    expect(Object.values(baseline).filter((o) => o !== null).length, quiet.stderr).toBeGreaterThan(5);
  });
  // Each fault starts from a target that answers: the one before may have left PgBouncer
  // waiting out server_login_retry.
  beforeEach(async () => {
    await waitForLogin(
      { port: bouncer.port, user: bouncer.user, password: bouncer.password, database: bouncer.database, caFile: null },
      { timeoutMs: 20_000, giveUpIf: () => null },
    );
  });
  afterAll(async () => {
    console.log(`faults: ${JSON.stringify(tally)}`);
    const bouncerProcesses: ProcessInfo[] = fixtureProcesses(bouncer);
    const pgProcesses: ProcessInfo[] = fixtureProcesses(pgFixture);
    await bouncer.stop();
    await pgFixture.stop();
    // No orphaned pooler or server process, port or folder, restarts included.
    await expectFullyStopped(bouncer.port, bouncerProcesses, dirname(bouncer.logFile));
    await expectFullyStopped(pgFixture.port, pgProcesses, dirname(pgFixture.dataDir));
  });

  /** The run survived: it ended by itself, nothing wrong, later checks conclusive, nothing left. */
  async function expectSurvived(
    fault: string,
    run: FaultRun,
    opts: { codes?: number[]; needLater?: boolean } = {},
  ): Promise<void> {
    tally.push({
      fault,
      survived: false,
      hit: hitChecks(run),
      inconclusive: run.report?.checks.filter((c) => c.verdict === 'inconclusive').length ?? -1,
      conclusiveAfter: run.conclusiveAfter.length,
      ms: run.ms,
    });
    expect(run.injected, 'the fault was injected mid-run').toBe(true);
    expectEndedByItself(run, opts.codes);
    expect(wrongAnswers(run.report, baseline)).toEqual([]);
    if (opts.needLater !== false)
      expect(run.conclusiveAfter.length, 'checks after the fault ran conclusively').toBeGreaterThan(0);
    await expectNothingLeft();
    tally[tally.length - 1]!.survived = true;
  }

  async function expectNothingLeft(): Promise<void> {
    expect(await superuserView(pgFixture)).toMatchObject({
      advisoryLocks: 0,
      tempTables: [],
      schemas: [],
      tables: [],
      idleInTransaction: 0,
    });
    const views = await visitPool(bouncer.url(), bouncer.poolSize, await freshSettings(bouncer.url()));
    for (const v of views) expect(v).toEqual(cleanBackend(v.pid));
  }

  // The faults land inside a check: once a few checks have reported, the next moment a pooltest
  // session holds a backend inside a transaction (a holder or an observer mid-steering).
  test('the pooler restarts mid-check', async () => {
    const run = await runWithFault(args(), 3, async () => {
      await checkInFlight(pgFixture);
      await bouncer.restart();
    });
    await expectSurvived('pooler restart', run);
  });

  test('a backend is terminated mid-check (pg_terminate_backend from a direct connection)', async () => {
    const run = await runWithFault(args(), 3, async () => {
      // Up to five times, each time the backend a check's holder or observer sits on right
      // then (they hold it for milliseconds, so some rounds land after the check moved on).
      for (let i = 0; i < 5; i++) {
        const pid = await checkInFlight(pgFixture, 3_000);
        if (pid === null) break;
        await terminate(pgFixture, pid);
        await new Promise((r) => setTimeout(r, 30));
      }
    });
    await expectSurvived('backend terminated', run);
  });

  test('Postgres restarts mid-check', async () => {
    const run = await runWithFault(args(), 3, async () => {
      await checkInFlight(pgFixture);
      await pgFixture.restart();
    });
    await expectSurvived('postgres restart', run);
  });

  test('the network to the pooler stalls mid-run: connections accepted, nothing answered', async () => {
    const proxy = await startFaultProxy({ upstreamPort: bouncer.port });
    try {
      const run = await runWithFault(
        args(
          `postgres://${bouncer.user}:${encodeURIComponent(bouncer.password)}@127.0.0.1:${proxy.port}/${bouncer.database}`,
        ),
        4,
        async () => {
          proxy.stall(10_000);
          await new Promise((r) => setTimeout(r, 4_000));
          proxy.resume();
        },
      );
      await expectSurvived('network stall', run);
    } finally {
      await proxy.close();
    }
  });

  test('--direct accepts TCP and never answers: refused before the checks start, STEP_TIMEOUT naming --direct, exit 2', async () => {
    const silent = await startFaultProxy({ upstreamPort: pgFixture.port });
    // Accepts TCP and moves no byte, for longer than the run may take.
    silent.stall(150_000);
    try {
      const run = await runCli(args(bouncer.url(), `127.0.0.1:${silent.port}`), { json: true, timeoutMs: 120_000 });
      tally.push({
        fault: 'silent --direct',
        survived: false,
        hit: [],
        inconclusive: 0,
        conclusiveAfter: 0,
        ms: run.ms,
      });
      expect(run.signal, run.stderr).toBeNull();
      // Found at the start (it would otherwise cost the whole run and end as a sweep that could not look).
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/STEP_TIMEOUT: --direct: .*did not complete the connection/);
      expect(run.stderr).not.toMatch(/\[\s*1\/\d+\]/);
      expect(run.report).toBeNull();
      await expectNothingLeft();
      tally[tally.length - 1]!.survived = true;
    } finally {
      await silent.close();
    }
  });
});

/** Checks the fault made inconclusive, with the start of their reason: where it landed. */
function hitChecks(run: FaultRun): string[] {
  return (run.report?.checks ?? [])
    .filter((c) => c.verdict === 'inconclusive')
    .map((c) => `${c.id}: ${c.reason.slice(0, 90)}`);
}

async function terminate(pgFixture: PostgresFixture, pid: number): Promise<void> {
  await withSuperuser(pgFixture, (c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
}
