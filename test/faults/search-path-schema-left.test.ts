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
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';
import { runCli } from '../support/cli.js';

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
