/**
 * The pooler dies mid-run: the final sweep cannot look through it. With --direct it still looks
 * catalog-wide over --direct (advisory locks and temp tables of any session, the run's schemas
 * and regular tables), drops what the run left there, and says which parts could not be
 * verified through the pooler. Before, it only said "could not finish" and left the run's
 * schemas and tables on the server. Control: the same run without --direct cannot look, says
 * unknown, and the objects stay (so it is the fallback that removed them).
 *
 * What a run leaves when its pooler dies depends on the moment; to make it certain, the test
 * plants a schema and a table named after the run (as a check would) just before the kill.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';
import { expectEndedByItself, killPooler, runWithFault, type FaultRun } from './fault-run.js';

const ONLY = ['--only', 'session/set-leak,session/set-local,temp/temp-table,locks/advisory-session,sequences/lastval'];

describe('the pooler dies mid-run: the sweep falls back to --direct for the catalog', () => {
  let pgFixture: PostgresFixture;
  const bouncers: PoolerFixture[] = [];

  beforeAll(async () => {
    pgFixture = await startPostgres();
  });
  afterAll(async () => {
    for (const b of bouncers) await b.stop();
    await pgFixture?.stop();
  });

  /** Runs the CLI through a fresh PgBouncer that is killed once the first check reported. */
  async function killedMidRun(withDirect: boolean): Promise<{ run: FaultRun; planted: string | null }> {
    const bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction' });
    bouncers.push(bouncer);
    let planted: string | null = null;
    const args = ['--target', bouncer.url(), ...(withDirect ? ['--direct', pgFixture.url()] : []), '--timeout', '10s'];
    const run = await runWithFault([...args, ...ONLY], 1, async () => {
      planted = await plantLeftovers();
      // Killed outright, as a crash or `kill -9` would (the fixture's stop() cleans up after).
      killPooler(bouncer);
    });
    return { run, planted };
  }

  /** A schema and a table named after the running run, owned by its login; returns the run id. */
  async function plantLeftovers(): Promise<string | null> {
    return withSuperuser(pgFixture, async (c) => {
      const r = await c.query<{ app: string }>(
        `SELECT application_name AS app FROM pg_stat_activity WHERE application_name LIKE 'pooltest-%' LIMIT 1`,
      );
      const runId = /^pooltest-([0-9a-z]+)/.exec(r.rows[0]?.app ?? '')?.[1];
      if (!runId) return null;
      await c.query(`CREATE SCHEMA pooltest_${runId}_planted AUTHORIZATION ${pgFixture.user}`);
      await c.query(`CREATE TABLE public.pooltest_${runId}_planted_t (v int)`);
      await c.query(`ALTER TABLE public.pooltest_${runId}_planted_t OWNER TO ${pgFixture.user}`);
      return runId;
    });
  }

  test('with --direct: the planted schema and table are found and dropped over --direct, and the report says what the pooler could not show', async () => {
    const { run, planted } = await killedMidRun(true);
    expect(run.injected, run.stderr).toBe(true);
    expect(planted, 'the run was seen on the server').not.toBeNull();
    expectEndedByItself(run, [0, 1]);
    expect(run.report?.runId).toBe(planted);
    const sweep = run.report!.sweep!;
    // Found, hence dirty (pooltest's own failure), and removed on the spot.
    expect(sweep.state, sweep.reason).toBe('dirty');
    expect(sweep.leftovers).toEqual(expect.arrayContaining(['--direct: any_schemas = 1', '--direct: run_tables = 1']));
    expect(sweep.via).toContain('direct');
    expect(sweep.reason).toMatch(
      /not verified through the target \(it did not answer the sweep\): each pooled backend's own state .*; the catalog-wide look .* was made over --direct instead/,
    );
    const view = await superuserView(pgFixture);
    expect({ schemas: view.schemas, tables: view.tables }).toEqual({ schemas: [], tables: [] });
  });

  test('control: without --direct the sweep cannot look, says unknown, and the planted objects stay', async () => {
    const { run, planted } = await killedMidRun(false);
    expect(run.injected, run.stderr).toBe(true);
    expect(planted).not.toBeNull();
    expectEndedByItself(run, [0, 1]);
    const sweep = run.report!.sweep!;
    expect(sweep.state, sweep.reason).toBe('unknown');
    expect(sweep.leftovers.filter((l) => l.startsWith('--direct'))).toEqual([]);
    expect(sweep.reason).not.toMatch(/over --direct instead/);
    const view = await superuserView(pgFixture);
    expect(view.schemas).toContain(`pooltest_${planted}_planted`);
    expect(view.tables).toContain(`pooltest_${planted}_planted_t`);
    await withSuperuser(pgFixture, async (c) => {
      await c.query(`DROP SCHEMA pooltest_${planted}_planted CASCADE`);
      await c.query(`DROP TABLE public.pooltest_${planted}_planted_t`);
    });
  });
});
