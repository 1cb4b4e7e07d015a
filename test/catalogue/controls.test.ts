/**
 * Controls that must fail: asserting one pooler's documented behaviour against another must
 * exit 1 and name the checks that differ. A check that cannot fail proves nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli } from '../support/cli.js';

describe('controls', () => {
  let pg: PostgresFixture;
  let bouncer: Stack;

  beforeAll(async () => {
    pg = await startPostgres();
    bouncer = await startStack('pgbouncer-transaction', { postgresFixture: pg });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await pg?.stop();
  });

  test('asserting pgbouncer-transaction against direct Postgres exits 1 and names the checks', async () => {
    const run = await runCli(['--target', pg.url(), '--profile', 'pgbouncer-transaction'], { json: true });
    expect(run.code).toBe(1);
    const failed = run.report!.checks.filter((c) => c.verdict === 'fail').map((c) => c.id).sort();
    expect(failed).toEqual(['locks/advisory-session', 'notify/listen', 'prepared/sql-prepare', 'session/set-leak', 'session/tracked-parameter', 'temp/temp-table']);
    for (const id of failed) expect(run.stdout).toMatch(new RegExp(`${id.replace('/', '\\/')}\\s+\\S+\\s+\\S+\\s+FAIL`));
  });

  test('asserting direct against PgBouncer in transaction mode exits 1', async () => {
    const run = await runCli(['--target', bouncer.target.url(), '--profile', 'direct'], { json: true });
    expect(run.code).toBe(1);
    expect(run.report!.checks.find((c) => c.id === 'session/set-leak')?.verdict).toBe('fail');
    expect(run.report!.checks.find((c) => c.id === 'session/set-local')?.verdict).toBe('pass');
  });
});
