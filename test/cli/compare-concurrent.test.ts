/**
 * `--compare` runs its two targets at the same time only when they share neither a pool nor a
 * PostgreSQL server (cli/compare-plan.ts), and then both runs stay as conclusive as alone.
 * Controls: one endpoint spelled two ways and a pooler and its own server go one after the
 * other; a baseline that cannot be reached fails before any check runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { freePort } from '../../fixtures/free-port.js';
import { planCompare } from '../../cli/compare-plan.js';
import { resolveTarget } from '../../engine/target/target.js';
import { runCli } from '../support/cli.js';

describe('--compare: concurrent only without a shared pool or server', () => {
  let stack: Stack;
  let other: PostgresFixture;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    other = await startPostgres();
  });
  afterAll(async () => {
    await stack?.stop();
    await other?.stop();
  });

  test('a pooler and an unrelated server run at once, and both stay conclusive', async () => {
    const only = ['--only', 'session/set-leak,session/set-local,temp/temp-table'];
    const run = await runCli(['--target', stack.target.url(), '--compare', other.url(), ...only, '--no-store'], {
      json: true,
    });
    expect(run.stderr).toContain('--compare: different PostgreSQL servers behind different endpoints: both at once');
    expect(run.report?.checks.map((c) => c.outcome)).toEqual(['leaked', 'scoped', 'leaked']);
    expect(run.stdout).toMatch(/session\/set-leak\s+session\s+leaked\s+BREAKS/);
    // The change breaks the run: the process exits 1, and the Summary states that code, not the
    // target report's own (0: nothing was expected of it).
    expect(run.report?.summary.exitCode).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/Summary\s+3 checks: .*exit 1\b/);
  });

  test('a pooler and the server behind it share a server: one after the other', async () => {
    const plan = await planCompare(
      resolveTarget({ target: stack.target.url() }, {}),
      resolveTarget({ target: stack.postgres.url() }, {}),
      5_000,
    );
    expect(plan).toEqual({ concurrent: false, reason: expect.stringContaining('same PostgreSQL server') });
  });

  test('one endpoint spelled two ways is one pool; a baseline that cannot be reached is its coded error, named --compare', async () => {
    const url = new URL(stack.target.url());
    const viaName = new URL(stack.target.url());
    viaName.hostname = 'localhost';
    const same = await planCompare(
      resolveTarget({ target: url.toString() }, {}),
      resolveTarget({ target: viaName.toString() }, {}),
      5_000,
    );
    expect(same).toEqual({ concurrent: false, reason: expect.stringContaining('one endpoint, so one pool') });
    const dead = new URL(other.url());
    dead.port = String(await freePort());
    await expect(
      planCompare(
        resolveTarget({ target: stack.target.url() }, {}),
        resolveTarget({ target: dead.toString() }, {}),
        2_000,
      ),
    ).rejects.toMatchObject({ code: 'TARGET_REFUSED', message: expect.stringMatching(/^--compare: /) });
  });

  test('an unreachable --compare baseline fails before the checks (it ran every check of the target first)', async () => {
    const dead = `postgres://u:pw@127.0.0.1:${await freePort()}/db`;
    const run = await runCli(
      ['--target', stack.target.url(), '--compare', dead, '--only', 'session/set-leak', '--no-store'],
      {
        json: true,
      },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/TARGET_REFUSED: --compare: /);
    expect(run.stderr).not.toMatch(/\[1\/1\]|Discovery/);
    expect(run.stderr).not.toContain(':pw@');
  });
});
