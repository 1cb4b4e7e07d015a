/**
 * Input that is valid but wrong for the run: a login without the rights a check needs (that
 * check is skipped, saying why, and the rest runs), and a session- or statement-mode pooler
 * asserted as if it pooled transactions (exit 1, the differing checks named, and the mode
 * discovery saw in the report, so the user sees why).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { withSuperuser } from '../safety/trace-inspection.js';
import { runCli } from '../support/cli.js';

/**
 * One PostgreSQL for the file: the login without rights and each pooler (started in turn, in
 * front of it) use it, instead of a server start per stack.
 */
let pgFixture: PostgresFixture;
beforeAll(async () => {
  pgFixture = await startPostgres();
});
afterAll(async () => {
  await pgFixture?.stop();
});

describe('a login without the rights a check needs', () => {
  const password = 'no-rights-pw';

  beforeAll(async () => {
    // May log in, and nothing else: no role granted to it, so SET ROLE has nowhere to go.
    await withSuperuser(pgFixture, (c) => c.query(`CREATE ROLE pooltest_norights LOGIN PASSWORD '${password}'`));
  });

  test('session/role-leak is skipped with the reason; the other checks still run', async () => {
    const target = `postgres://pooltest_norights:${password}@127.0.0.1:${pgFixture.port}/${pgFixture.database}`;
    const run = await runCli(['--target', target, '--only', 'session/role-leak,session/set-leak'], { json: true });
    expect(run.code, run.stderr).toBe(0);
    const role = run.report?.checks.find((c) => c.id === 'session/role-leak');
    expect(role).toMatchObject({ verdict: 'skipped', outcome: null });
    expect(role?.reason).toMatch(/may not SET ROLE to any role/);
    expect(run.report?.checks.find((c) => c.id === 'session/set-leak')?.outcome).toBe('session');
    expect(run.report?.summary.skipped).toBe(1);
  });
});

describe('a pooler asserted as transaction pooling when it is not', () => {
  const only = ['--only', 'session/set-leak,session/set-local,temp/temp-table,locks/advisory-session,notify'];
  const cases: Array<[string, 'pgbouncer-session' | 'pgbouncer-statement', string[]]> = [
    [
      'session mode',
      'pgbouncer-session',
      ['locks/advisory-session', 'notify/listen', 'session/set-leak', 'temp/temp-table'],
    ],
    ['statement mode', 'pgbouncer-statement', ['session/set-local']],
  ];
  const stacks: Stack[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.stop();
  });

  test.each(cases)(
    '%s given --profile pgbouncer-transaction: exit 1, the differing checks named, the real mode reported',
    async (_name, stackName, failing) => {
      const stack = await startStack(stackName, { postgresFixture: pgFixture });
      stacks.push(stack);
      const run = await runCli(['--target', stack.target.url(), '--profile', 'pgbouncer-transaction', ...only], {
        json: true,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.report?.discovery.mode).toBe(stackName.replace('pgbouncer-', ''));
      const failed = run
        .report!.checks.filter((c) => c.verdict === 'fail')
        .map((c) => c.id)
        .sort();
      expect(failed).toEqual(failing);
      for (const id of failed)
        expect(run.stdout).toMatch(new RegExp(`${id.replace('/', '\\/')}\\s+\\S+\\s+\\S+\\s+FAIL`));
      expect(run.stderr).toMatch(new RegExp(`mode ${stackName.replace('pgbouncer-', '')}`));
      // Said what it found: in session mode a SET and a temp table stay with their client
      // (test/catalogue/controls.test.ts held this control on its own, on a stack of its own).
      if (stackName === 'pgbouncer-session')
        expect(
          run
            .report!.checks.filter((c) => c.id === 'session/set-leak' || c.id === 'temp/temp-table')
            .map((c) => `${c.id}=${c.outcome}/${c.verdict}`)
            .sort(),
        ).toEqual(['session/set-leak=session/fail', 'temp/temp-table=session/fail']);
    },
  );
});
