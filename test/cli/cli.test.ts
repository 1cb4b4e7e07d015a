/**
 * The CLI as a user meets it: exit codes, the JSON report's shape, bad input with stable codes
 * within the timeout, and no password anywhere in what it prints or writes.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { freePort } from '../../fixtures/free-port.js';
import { REPO, runCli } from '../support/cli.js';
import { keyMismatchMessage } from '../../engine/discovery/direct-check.js';

describe('pooltest CLI', () => {
  let stack: Stack;
  /** A TCP listener that accepts and never answers: not a PostgreSQL server. */
  let silent: net.Server;
  let silentPort: number;
  const accepted = new Set<net.Socket>();

  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    silent = net.createServer((socket) => {
      accepted.add(socket);
      socket.on('close', () => accepted.delete(socket));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await stack?.stop();
    for (const socket of accepted) socket.destroy();
    await new Promise((r) => silent?.close(r));
  });

  test('--help, --list and --list-profiles exit 0 and print the catalogue and profiles', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--target');
    const list = await runCli(['--list']);
    expect(list.stdout).toMatch(/session\/set-leak\s+correctness/);
    const profiles = await runCli(['--list-profiles']);
    expect(profiles.stdout).toContain('pgbouncer-transaction');
    // References are pinned (issue 10): the feature map at the commit that documented 1.18.
    expect(profiles.stdout).toContain('pgbouncer/pgbouncer.github.io@1ce5540a:features.md');
  });

  // A password in argv is readable by every user of the machine (ps); the help and the README
  // said only "(or PGPASSWORD, or in the URL)", as if the three were equal.
  test('--help and the README recommend PGPASSWORD over a password in argv on a shared machine', async () => {
    const help = await runCli(['--help']);
    const flat = (text: string): string => text.replace(/\s+/g, ' ');
    expect(flat(help.stdout)).toContain('On a machine others log in to, set PGPASSWORD instead');
    expect(flat(help.stdout)).toContain('from the process list (ps)');
    const readme = flat(readFileSync(path.join(REPO, 'README.md'), 'utf8'));
    expect(readme).toContain('give the password in `PGPASSWORD` rather than in `--password` or the URL');
    // The password file is read once per target (engine/target/pass-file.ts, test/engine/pass-file.test.ts).
    expect(readme).toContain("pooltest reads libpq's password file (`~/.pgpass`, or the file `PGPASSFILE` names)");
  });

  test('the JSON report has the documented shape and never the password', async () => {
    const { target } = stack;
    const run = await runCli(
      [
        '--target',
        `127.0.0.1:${target.port}`,
        '--user',
        target.user,
        '--password',
        target.password,
        '--database',
        target.database,
        '--only',
        'session/set-leak,locks/advisory-session',
        '--verbose',
      ],
      { json: true },
    );
    expect(run.code).toBe(0);
    const r = run.report!;
    expect(r.schemaVersion).toBe(2);
    expect(r.tool.name).toBe('pooltest');
    expect(r.target).toEqual({
      host: '127.0.0.1',
      port: target.port,
      user: target.user,
      database: target.database,
      ssl: 'prefer',
    });
    expect(r.discovery).toMatchObject({ mode: 'transaction', poolSize: 2, sharedAcrossClients: true });
    expect(r.checks.map((c) => c.id)).toEqual(['session/set-leak', 'locks/advisory-session']);
    for (const c of r.checks) {
      expect(Object.keys(c).sort()).toEqual([
        'advice',
        'cleanup',
        'durationMs',
        'evidence',
        'expected',
        'expectedBasis',
        'expectedRef',
        'facts',
        'id',
        'outcome',
        'reason',
        'severity',
        'statements',
        'steps',
        'title',
        'verdict',
      ]);
      // Steps are numbered from 1; the scenario's markers, where it has any, are recorded first as facts.
      expect(c.steps[0]!.seq).toBe(1);
      expect(c.steps.find((s) => s.tag === 'A.create')).toMatchObject({ session: 'A', tag: 'A.create' });
    }
    // No profile: nothing asserted, so nothing passes; both outcomes are observations.
    expect(r.summary).toEqual({
      total: 2,
      pass: 0,
      fail: 0,
      observed: 2,
      inconclusive: 0,
      skipped: 0,
      strict: false,
      exitCode: 0,
    });
    expect(run.stdout).toMatch(/session\/set-leak\s+leaked\s+-\s+observed: BREAKS \(correctness\)/);
    const everything = run.stdout + run.stderr + JSON.stringify(r);
    expect(everything).not.toContain(target.password);
  });

  test('a password given in the URL is never printed, not even in errors', async () => {
    const secret = 'Sup3r-s3cret-in-url';
    const ok = await runCli(
      [
        '--target',
        `postgres://${stack.target.user}:${stack.target.password}@127.0.0.1:${stack.target.port}/${stack.target.database}`,
        '--only',
        'session/set-local',
      ],
      { json: true },
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr + JSON.stringify(ok.report)).not.toContain(stack.target.password);
    const bad = await runCli([
      '--target',
      `postgres://${stack.target.user}:${secret}@127.0.0.1:${stack.target.port}/${stack.target.database}`,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('AUTH_FAILED');
    expect(bad.stdout + bad.stderr).not.toContain(secret);
  });

  const badInputs: Array<[string, () => string[], string]> = [
    ['a refused port', () => ['--target', `127.0.0.1:${refusedPort}`], 'TARGET_REFUSED'],
    ['a mistyped URL', () => ['--target', 'postgress://host:5432/db'], 'BAD_TARGET_URL'],
    ['a port out of range', () => ['--target', '127.0.0.1:99999'], 'BAD_TARGET_URL'],
    [
      'a port that does not speak Postgres',
      () => ['--target', `127.0.0.1:${silentPort}`, '--timeout', '1s'],
      'STEP_TIMEOUT',
    ],
    [
      'a wrong password',
      () => [
        '--target',
        `127.0.0.1:${stack.target.port}`,
        '--user',
        stack.target.user,
        '--password',
        'wrong',
        '--database',
        stack.target.database,
      ],
      'AUTH_FAILED',
    ],
    [
      'an unknown database',
      () => ['--target', stack.postgres.url().replace(/\/pooltest$/, '/nosuchdb')],
      'DATABASE_NOT_FOUND',
    ],
    ['an unknown profile', () => ['--target', stack.target.url(), '--profile', 'nope'], 'UNKNOWN_PROFILE'],
    ['an unknown check', () => ['--target', stack.target.url(), '--only', 'session/nope'], 'BAD_ARGUMENTS'],
    ['an unknown flag', () => ['--targte', 'x'], 'BAD_ARGUMENTS'],
  ];
  let refusedPort = 0;
  beforeAll(async () => {
    refusedPort = await freePort();
  });

  test.each(badInputs)('%s exits 2 with a stable code, within the timeout', async (_name, args, code) => {
    const run = await runCli(args());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`pooltest: ${code}:`);
    // A bound, not a speed target: the run must end on its own, well inside --timeout plus startup.
    expect(run.ms).toBeLessThan(30_000);
  });

  test('a wrong password said only "SASL authentication failed" (PgBouncer) or the server\'s words: now both say what to check', async () => {
    for (const url of [stack.target.url(), stack.postgres.url()]) {
      const wrong = new URL(url);
      wrong.password = 'not-the-password-4712';
      const run = await runCli(['--target', wrong.href, '--only', 'session/set-leak']);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(
        /pooltest: AUTH_FAILED: .*; check the user and password \(--user, --password, PGPASSWORD/,
      );
      expect(run.stderr).not.toContain('not-the-password-4712');
    }
  });

  // The mistake of giving the pooler's address twice: the run went ahead, its presence lock
  // (a session advisory lock) stayed on PgBouncer's server connections, the sweep said clean,
  // and every later run straight at that PostgreSQL was inconclusive ("2 other pooltest
  // run(s) worked on this target") for as long as PgBouncer kept those connections.
  test('--direct given the pooler itself ran and left its presence lock on the server connections: now refused before the checks, exit 2', async () => {
    const run = await runCli([
      '--target',
      stack.target.url(),
      '--direct',
      stack.target.url(),
      '--only',
      'session/set-leak',
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pooltest: BAD_ARGUMENTS: --direct: .* is not PostgreSQL itself/);
    // The message says the pooler answered with a key of its own, and prints that key's
    // process id as the unsigned number it is (PgBouncer's random key read signed looked
    // like a broken pid about half the time).
    expect(run.stderr).toMatch(
      /the cancel key it sent at login names process \d+\. .*a pooler answers logins with a key of its own/,
    );
    expect(run.stdout).not.toContain('Summary');
    const client = new pg.Client({ connectionString: stack.postgres.url() });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const locks = await client.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`);
      expect(locks.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  test('a pooler cancel key with the top bit set was printed as a negative pid: now unsigned', () => {
    const message = keyMismatchMessage('127.0.0.1:6432', -123456789, 4242);
    expect(message).toContain('names process 4171510507.');
    expect(message).toContain('run on backend 4242');
    expect(message).not.toMatch(/-\d/);
  });

  // The advice was "Point it at a pool of 2", and a pool of 2 is what the fixture has: a bound
  // of 1 refuses it as well, so the advice has to be about --max-pool itself.
  test('--max-pool 1 against a pool of 2 advised a pool of 2: now it says to raise --max-pool', async () => {
    const run = await runCli(['--target', stack.target.url(), '--max-pool', '1', '--only', 'session/set-leak']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/pooltest: POOL_TOO_LARGE: .*more than 1 at once/);
    expect(run.stderr).not.toContain('Point it at a pool of 2');
    expect(run.stderr).toContain('--max-pool 1 refuses a pool of 2 as well');
    expect(run.stderr).toContain("give --max-pool at least the pool's size");
  });

  test('a plain PostgreSQL given as --target is not an error: discovery sees no pooling', async () => {
    const run = await runCli(['--target', stack.postgres.url(), '--only', 'session/set-leak,temp/temp-table'], {
      json: true,
    });
    expect(run.code).toBe(0);
    expect(run.report?.discovery.mode).toBe('direct');
    expect(run.report?.checks.map((c) => c.outcome)).toEqual(['session', 'session']);
  });
});
