/**
 * The CLI with psql's habits against a real PgBouncer and PostgreSQL (issue 20): -h/-p/-U/-d,
 * a libpq keyword/value string, a connection string given to -d, a Unix socket directory in
 * PGHOST and in a URL, and the OS user as the default user. Parsing itself is unit-tested in
 * test/engine/psql-habits.test.ts; this file proves the parsed target is the one connected to.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../../fixtures/free-port.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli } from '../support/cli.js';

/** The cheapest check that needs a real backend: the run discovers, checks and sweeps. */
const ONE = ['--only', 'session/set-local', '--no-store'];

describe('psql habits on the command line', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('-h -p -U -d connect to that pooler (password from PGPASSWORD)', async () => {
    const t = stack.target;
    const run = await runCli(['-h', '127.0.0.1', '-p', String(t.port), '-U', t.user, '-d', t.database, ...ONE], {
      json: true,
      env: { PGPASSWORD: t.password },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.target).toMatchObject({ host: '127.0.0.1', port: t.port, user: t.user, database: t.database });
    expect(run.report?.discovery.mode).toBe('transaction');
    // The user's target, never the embedded one (that prints "No --target: starting ...").
    expect(run.stderr).not.toMatch(/throwaway/);
  });

  // Issue 40: `--json -` wrote a file named "-". Now the report is all stdout carries, and the
  // terminal report goes to stderr beside the progress.
  test('--json - writes the JSON report to stdout alone, the terminal report to stderr', async () => {
    const t = stack.target;
    const run = await runCli(
      ['-h', '127.0.0.1', '-p', String(t.port), '-U', t.user, '-d', t.database, ...ONE, '--json', '-'],
      { env: { PGPASSWORD: t.password } },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { target: unknown; checks: { id: string }[] };
    expect(report.target).toMatchObject({ host: '127.0.0.1', port: t.port, user: t.user });
    expect(report.checks.map((c) => c.id)).toContain('session/set-local');
    expect(run.stderr).toMatch(/Summary/);
  });

  // The fixture's PostgreSQL trusts its superuser on its own Unix socket (fixtures/README.md).
  test('a Unix socket directory in PGHOST is connected to, not looked up', async () => {
    const pg = stack.postgres;
    const run = await runCli(ONE, {
      json: true,
      env: { PGHOST: pg.socketDir, PGPORT: String(pg.port), PGUSER: 'postgres' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.report?.target).toMatchObject({ host: pg.socketDir, port: pg.port, user: 'postgres' });
    expect(run.report?.discovery.mode).toBe('direct');
  });

  // The rest fail fast on purpose (a wrong password, a login pg_hba refuses, a closed port):
  // the message names the endpoint that was connected to, which is what is being tested, at a
  // fraction of a full run's cost.
  test('a libpq keyword/value string is the target connected to', async () => {
    const t = stack.target;
    const run = await runCli([
      '--target',
      `host=127.0.0.1 port=${t.port} user=${t.user} dbname='${t.database}' password=wrong-one`,
      ...ONE,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`AUTH_FAILED`);
    expect(run.stderr).toContain(`${t.user}@127.0.0.1:${t.port}/${t.database}`);
    expect(run.stderr).not.toContain('wrong-one');
  });

  test('a URL given to -d is the connection string, not a database name, and no fixture starts', async () => {
    // A closed port: the answer comes at once, and names the URL's endpoint.
    const port = await freePort();
    const run = await runCli(['-d', `postgres://u@127.0.0.1:${port}/appdb`, ...ONE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`TARGET_REFUSED`);
    expect(run.stderr).toContain(`u@127.0.0.1:${port}/appdb`);
    expect(run.stderr).not.toMatch(/throwaway/);
  });

  test('the default user is the operating-system user, not $USER and not postgres', async () => {
    const t = stack.target;
    const run = await runCli(['-h', '127.0.0.1', '-p', String(t.port), '-d', t.database, ...ONE], {
      env: { USER: 'someone-else', PGPASSWORD: 'wrong' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${os.userInfo().username}@127.0.0.1:${t.port}/${t.database}`);
  });

  test('a Unix socket directory in a URL (host=%2F...) is connected to', async () => {
    // pg_hba trusts only the superuser on the socket: another login there is refused by the
    // server itself, which it can only be if the socket was reached.
    const pg = stack.postgres;
    const url = `postgresql:///pooltest?host=${encodeURIComponent(pg.socketDir)}&port=${pg.port}&user=nobody`;
    const run = await runCli(['--target', url, ...ONE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/AUTH_FAILED.*pg_hba\.conf.*"\[local\]"/);
    expect(run.stderr).toContain(`nobody@${pg.socketDir}:${pg.port}/pooltest`);
  });

  test('a socket directory with no server says so, as psql does', async () => {
    const run = await runCli(['-h', os.tmpdir(), '-p', '1', '-U', 'u', ...ONE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`TARGET_REFUSED: no server listens on socket "${os.tmpdir()}/.s.PGSQL.1"`);
  });
});
