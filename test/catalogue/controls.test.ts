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
  let session: Stack;

  beforeAll(async () => {
    pg = await startPostgres();
    bouncer = await startStack('pgbouncer-transaction', { postgresFixture: pg });
    session = await startStack('pgbouncer-session', { postgresFixture: pg });
  });
  afterAll(async () => {
    await bouncer?.stop();
    await session?.stop();
    await pg?.stop();
  });

  test('asserting pgbouncer-transaction against direct Postgres exits 1 and names the checks', async () => {
    const run = await runCli(['--target', pg.url(), '--profile', 'pgbouncer-transaction'], { json: true });
    expect(run.code).toBe(1);
    const failed = run.report!.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
    for (const id of [
      'session/set-leak',
      'temp/temp-table',
      'locks/advisory-session',
      'notify/listen',
      'prepared/sql-prepare',
      'session/search-path-leak',
      'session/role-leak',
    ]) {
      expect(failed).toContain(id);
      expect(run.stdout).toMatch(new RegExp(`${id.replace('/', '\\/')}\\s+\\S+\\s+\\S+\\s+FAIL`));
    }
    // What both document alike must still pass: the control fails for the right reasons only.
    for (const id of ['session/set-local', 'locks/advisory-xact', 'statement/transaction-block'])
      expect(failed).not.toContain(id);
  });

  test('asserting direct against PgBouncer in transaction mode exits 1', async () => {
    const run = await runCli(
      [
        '--target',
        bouncer.target.url(),
        '--profile',
        'direct',
        '--only',
        'session/set-leak,session/set-local,notify/listen',
      ],
      { json: true },
    );
    expect(run.code).toBe(1);
    const verdicts = Object.fromEntries(run.report!.checks.map((c) => [c.id, c.verdict]));
    expect(verdicts).toEqual({ 'session/set-leak': 'fail', 'session/set-local': 'pass', 'notify/listen': 'fail' });
  });

  test('a session-mode pooler given as if it were transaction mode exits 1 and says what it found', async () => {
    const run = await runCli(
      [
        '--target',
        session.target.url(),
        '--profile',
        'pgbouncer-transaction',
        '--only',
        'session/set-leak,temp/temp-table',
      ],
      { json: true },
    );
    expect(run.code).toBe(1);
    expect(run.report?.discovery.mode).toBe('session');
    expect(run.report?.checks.map((c) => `${c.id}=${c.outcome}/${c.verdict}`)).toEqual([
      'session/set-leak=session/fail',
      'temp/temp-table=session/fail',
    ]);
  });
});
