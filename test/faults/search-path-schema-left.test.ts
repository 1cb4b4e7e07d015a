/**
 * Regression: session/search-path-leak left its own schema (and the table in it) behind when a
 * setup step went unanswered. A loaded CI run with two pooltest runs on one pool of 2 found
 * `any_schemas = 1` and `run_tables = 1` of a run at its sweep: the check's two setup steps run
 * at once, and when the default search_path read was queued past its bound the check returned
 * before its DROP, although the CREATE SCHEMA beside it had committed.
 *
 * To make "unanswered" certain instead of load-dependent, the superuser locks the pg_settings
 * view (which only that read touches) until the read has timed out, then lets go. The check
 * must still drop its schema itself: the record says so (`schemaDropped`), the sweep finds
 * nothing, and the server holds no schema of the run. Before the fix the sweep reported both
 * objects as leftovers.
 *
 * The same CI check found them again later, for another path out: the default search_path read's
 * login failed (thrown, not a step) while the CREATE beside it committed, and the rejection of
 * the pair skipped the DROP. The second case makes that login fail: the fault proxy in front of
 * real PostgreSQL holds the first new connection past the connect bound and lets the next through.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';
import { runCli } from '../support/cli.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { Scenario } from '../../engine/steering/scenario.js';
import { searchPathLeak } from '../../suites/session/search-path-leak.check.js';

const STEP_MS = 2_000;

describe('session/search-path-leak drops its schema when a setup step goes unanswered', () => {
  let pgFixture: PostgresFixture;
  beforeAll(async () => {
    pgFixture = await startPostgres();
  });
  afterAll(async () => {
    await pgFixture?.stop();
  });

  test('the default search_path read times out: the schema is still dropped by the check, the sweep is clean', async () => {
    const locked = lockSettingsUntilWaitedOn(pgFixture);
    const run = await runCli(
      ['--target', pgFixture.url(), '--only', 'session/search-path-leak', '--timeout', `${STEP_MS}ms`],
      { json: true, timeoutMs: 120_000 },
    );
    // The lock really made the read wait (otherwise this test proves nothing).
    expect(await locked).toBe(true);
    expect(run.report, run.stderr).not.toBeNull();
    const check = run.report!.checks.find((c) => c.id === 'session/search-path-leak');
    const steps = check?.steps ?? [];
    expect(steps.find((s) => s.tag === 'setup.path')?.error?.message).toMatch(/no answer within/);
    expect(steps.find((s) => s.tag === 'setup.schema')?.error).toBeNull();
    expect(run.report?.sweep?.leftovers).toEqual([]);
    expect(check?.facts).toMatchObject({ schemaDropped: true });
    expect(await superuserView(pgFixture)).toMatchObject({ schemas: [], tables: [] });
  });
});

describe("session/search-path-leak drops its schema when the other setup step's login fails", () => {
  let stack: ProxiedPostgres | undefined;
  beforeAll(async () => {
    stack = await startProxiedPostgres('5ea2c41f', { connectMs: 1_000, stepMs: 5_000 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('the path read cannot log in, the CREATE commits: the scenario still throws, and the check drops its schema', async () => {
    const { proxy, ctx, pg } = stack!;
    // The first new connection (the path read's: it is opened first) is held for 5 s, past the
    // 1 s connect bound; the ones after it go through.
    proxy.holdNext(5_000);
    const scn = new Scenario(ctx);
    let thrown: unknown = null;
    try {
      await searchPathLeak.scenario.call(searchPathLeak, scn);
    } catch (err) {
      thrown = err;
    } finally {
      await scn.closeAll();
    }
    // The login that failed is thrown, as before: the engine records it, the judge is not asked.
    expect(String(thrown)).toMatch(/connect|login|within/i);
    const tags = scn.steps.map((s) => `${s.tag}:${s.error === null ? 'ok' : (s.error.code ?? 'no answer')}`);
    // The path read never ran (its login was the one held), and the CREATE did: what this test
    // is for. With the logins accepted the other way round it would prove nothing.
    expect(tags).not.toContain('setup.path:ok');
    expect(tags).toContain('setup.schema:ok');
    // The drop ran, on a new session the proxy let through once the pace was lifted.
    expect(tags).toContain('setup.cleanup:ok');
    expect(await superuserView(pg)).toMatchObject({ schemas: [], tables: [] });
  });

  test('the run is interrupted after the CREATE committed: the check still drops its schema, once', async () => {
    const { proxy, ctx, pg } = stack!;
    // The path read's login is held, so the scenario is waiting when the interruption comes.
    proxy.holdNext(5_000);
    const interrupt = new AbortController();
    const scn = new Scenario(ctx, interrupt.signal);
    const running = searchPathLeak.scenario.call(searchPathLeak, scn).then(
      () => null,
      (err: unknown) => err,
    );
    try {
      for (let i = 0; i < 200 && !scn.steps.some((s) => s.tag === 'setup.schema'); i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(scn.steps.find((s) => s.tag === 'setup.schema')?.error).toBeNull();
      interrupt.abort();
      // The held login ends at the interruption, not at its bound.
      expect(await running).toMatchObject({ code: 'INTERRUPTED' });
      expect(scn.interrupted).toBe(true);
    } finally {
      await scn.closeAll();
    }
    const drops = scn.steps.filter((s) => s.tag === 'setup.cleanup');
    expect(drops.map((s) => s.error?.message ?? 'ok')).toEqual(['ok']);
    expect(await superuserView(pg)).toMatchObject({ schemas: [], tables: [] });
  });
});

/**
 * Holds ACCESS EXCLUSIVE on pg_settings from before the run until some session has waited on
 * it for longer than the step bound, then commits. Resolves whether anyone waited.
 */
async function lockSettingsUntilWaitedOn(pgFixture: PostgresFixture): Promise<boolean> {
  return withSuperuser(pgFixture, async (c) => {
    await c.query('BEGIN; LOCK TABLE pg_catalog.pg_settings IN ACCESS EXCLUSIVE MODE');
    const deadline = Date.now() + 60_000;
    let waited = false;
    while (!waited && Date.now() < deadline) {
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'pg_catalog.pg_settings'::regclass AND NOT granted`,
      );
      waited = (r.rows[0]?.n ?? 0) > 0;
      if (!waited) await new Promise((r) => setTimeout(r, 50));
    }
    // Past the step's bound, so the read is recorded unanswered.
    if (waited) await new Promise((r) => setTimeout(r, STEP_MS + 1_000));
    await c.query('COMMIT');
    return waited;
  });
}
