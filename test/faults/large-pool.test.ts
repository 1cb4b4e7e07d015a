/**
 * A pool larger than pooltest can steer. Holding P - 1 backends to leave exactly one free only
 * works while P is small; discovery counts up to --max-pool (default 8). Decided behaviour: a
 * transaction pool that gave more than the bound at once is refused before any check runs,
 * with POOL_TOO_LARGE and exit code 2 - the alternative, every check inconclusive after
 * minutes of trying, tells the user less, later. Raising --max-pool above the pool's size
 * steers it normally (slowly: the candidates for each landing grow with the pool).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { superuserView } from '../safety/trace-inspection.js';
import { runCli } from '../support/cli.js';

describe('a pool larger than the steering bound', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;

  beforeAll(async () => {
    pgFixture = await startPostgres({ maxConnections: 80 });
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction', poolSize: 50 });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await pgFixture?.stop();
  });

  test("PgBouncer with a pool of 50: POOL_TOO_LARGE, exit 2, fast, and discovery's holders leave nothing", async () => {
    const run = await runCli(['--target', bouncer.url(), '--direct', pgFixture.url()]);
    console.log(`large pool: exit ${run.code} in ${run.ms} ms`);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pooltest: POOL_TOO_LARGE: .*more than 8 at once.*--max-pool/);
    expect(run.ms).toBeLessThan(30_000);
    expect(await superuserView(pgFixture)).toMatchObject({ advisoryLocks: 0, tempTables: [], idleInTransaction: 0 });
  });

  test("the bound is the user's to raise: --max-pool 3 refuses the same pool, naming the bound", async () => {
    const run = await runCli(['--target', bouncer.url(), '--max-pool', '3']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/POOL_TOO_LARGE: .*more than 3 at once/);
  });
});
