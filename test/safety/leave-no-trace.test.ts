/**
 * Leave no trace: the whole catalogue against PgBouncer in transaction mode (where every piece
 * of session state a check plants stays on a shared backend), then proof from outside
 * pooltest's code that nothing remains. And the other direction: state pooltest did leave is
 * a failure of pooltest itself, named in the report, exit code 1, and removed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LOCK_NAMESPACE, markersFor } from '../../engine/record/markers.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli, type CliRun } from '../support/cli.js';
import { libraryRun } from './library-run.js';
import { cleanBackend, freshSettings, superuserView, visitPool } from './trace-inspection.js';

/**
 * One PostgreSQL and PgBouncer for both parts: the second plants its state only after the first
 * has proven the pool clean (its tests run first, in order), and ends with the pool clean again.
 */
let pgFixture: PostgresFixture;
let stack: Stack;
beforeAll(async () => {
  pgFixture = await startPostgres();
  stack = await startStack('pgbouncer-transaction', { postgresFixture: pgFixture });
});
afterAll(async () => {
  await stack?.stop();
  await pgFixture?.stop();
});

describe('leave no trace on PgBouncer transaction pooling', () => {
  let run: CliRun;

  beforeAll(async () => {
    run = await runCli(
      ['--target', stack.target.url(), '--direct', pgFixture.url(), '--profile', 'pgbouncer-transaction'],
      { json: true },
    );
  });

  test('the report carries the sweep: clean, every backend of the pool visited, through the target and directly', () => {
    expect(run.code, run.stderr).not.toBe(2);
    const sweep = run.report?.sweep;
    expect(sweep?.clean, sweep?.leftovers.join('; ')).toBe(true);
    expect(sweep?.via).toEqual(['target', 'direct']);
    expect(sweep?.backendsVisited).toHaveLength(2);
    expect(run.stdout).toMatch(/Sweep: clean/);
  });

  test('as the superuser: no advisory lock, temp table, schema, table or idle transaction of pooltest anywhere', async () => {
    const view = await superuserView(pgFixture);
    expect(view).toMatchObject({ advisoryLocks: 0, tempTables: [], schemas: [], tables: [], idleInTransaction: 0 });
  });

  test('on every backend of the pool, by our own holders: no prepared statement, LISTEN, cursor, setting or role left', async () => {
    const defaults = await freshSettings(stack.target.url());
    const { poolBackends } = await superuserView(pgFixture);
    expect(poolBackends.length).toBeGreaterThan(0);
    const views = await visitPool(stack.target.url(), stack.pooler!.poolSize, defaults);
    // Every backend the pool has was looked at (our holders may have caused the pool to grow
    // to its size, but never past it).
    expect(views.map((v) => v.pid).sort()).toEqual(expect.arrayContaining(poolBackends));
    for (const v of views) expect(v).toEqual(cleanBackend(v.pid));
  });
});

describe("a dirty sweep is pooltest's own failure", () => {
  test("state carrying the run's markers on a pooled backend: exit 1, sweep.clean false in the JSON, then removed", async () => {
    const runId = 'dec0de42';
    const m = markersFor(runId, 'session/set-leak');
    // lock_timeout carries a marker of its own (session/lock-timeout-leak's): the sweep must know it too.
    const lockTimeout = markersFor(runId, 'session/lock-timeout-leak').lockTimeout;
    // Planted through the pooler and left there: in transaction pooling a session-level lock
    // and SET stay on the server connection after the client goes.
    const planter = new pg.Client({ connectionString: stack.target.url() });
    planter.on('error', () => undefined);
    await planter.connect();
    await planter.query(
      `SELECT pg_advisory_lock(${LOCK_NAMESPACE}, ${m.lockKey}); SET statement_timeout = '${m.statementTimeout}'; SET lock_timeout = '${lockTimeout}'`,
    );
    await planter.end();
    // The independent looks see it (a control: an inspection that cannot fail proves nothing).
    expect((await superuserView(pgFixture)).advisoryLocks).toBe(1);
    const planted = await visitPool(
      stack.target.url(),
      stack.pooler!.poolSize,
      await freshSettings(stack.target.url()),
    );
    expect(
      planted.filter(
        (v) =>
          v.advisoryLocks === 1 &&
          v.changedSettings.some((s) => s.startsWith('statement_timeout=')) &&
          v.changedSettings.some((s) => s.startsWith('lock_timeout=')),
      ),
    ).toHaveLength(1);

    // One quick check that plants nothing: whatever the sweep finds is the planted state.
    const r = await libraryRun({
      target: stack.target.url(),
      direct: pgFixture.url(),
      runId,
      only: ['statement/transaction-block'],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.report?.summary.exitCode).toBe(1);
    expect(r.report?.sweep?.clean).toBe(false);
    expect(r.report?.sweep?.leftovers.join('; ')).toMatch(
      /locks = 1.*timeout_marker = 1|timeout_marker = 1.*locks = 1/,
    );

    // Found means removed: nothing of it is left.
    expect((await superuserView(pgFixture)).advisoryLocks).toBe(0);
    const views = await visitPool(stack.target.url(), stack.pooler!.poolSize, await freshSettings(stack.target.url()));
    for (const v of views) expect(v).toEqual(cleanBackend(v.pid));
  });
});
