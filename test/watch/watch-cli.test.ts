/**
 * `pooltest watch -- <real command>` as a user runs it: the built CLI, a real PostgreSQL with
 * SCRAM, and real client code under the watch (node-pg-migrate's runner, a LISTEN job queue,
 * named statements with node-postgres, and a control that keeps its state transaction-scoped).
 * Both statements of each dependency are printed; the JSON matches the published schema; the
 * password is never printed; exit codes follow the documented precedence.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { REPO, runCli, type CliRun } from '../support/cli.js';
import { watchSchemaErrors } from '../support/watch-schema.js';

let server: PostgresFixture;
let dir: string;
const client = (name: string): string => path.join(REPO, 'test/watch/clients', name);

beforeAll(async () => {
  server = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-watch-'));
  // Two migrations in a folder of their own, as a project keeps them (CommonJS migration files).
  mkdirSync(path.join(dir, 'migrations'));
  writeFileSync(
    path.join(dir, 'migrations', '1700000000000_items.js'),
    "exports.up = (pgm) => { pgm.createTable('items', { id: 'id', name: { type: 'text' } }); };\n",
  );
  writeFileSync(
    path.join(dir, 'migrations', '1700000000001_index.js'),
    "exports.up = (pgm) => { pgm.createIndex('items', 'name'); };\n",
  );
  writeFileSync(
    path.join(dir, 'pooler.json'),
    JSON.stringify({
      checks: [
        { id: 'locks/advisory-session', outcome: 'shared' },
        { id: 'session/search-path-leak', outcome: 'leaked' },
      ],
      target: null,
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface WatchRun extends CliRun {
  watch: WatchReport;
}

async function watch(args: string[], command: string[], name: string): Promise<WatchRun> {
  const json = path.join(dir, `${name}.json`);
  const run = await runCli(
    [
      'watch',
      '--upstream',
      server.url(),
      '--json',
      json,
      '--markdown',
      path.join(dir, `${name}.md`),
      '--html',
      path.join(dir, `${name}.html`),
      ...args,
      '--',
      ...command,
    ],
    { timeoutMs: 90_000 },
  );
  const report = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
  expect(watchSchemaErrors(report)).toEqual([]);
  // The password is in the child's environment only, never in what the watch prints.
  expect(run.stdout + run.stderr).not.toContain(server.password);
  expect(readFileSync(json, 'utf8')).not.toContain(server.password);
  return { ...run, watch: report };
}

describe('pooltest watch -- <real command>', () => {
  test("node-pg-migrate's session advisory lock spans its transactions: lock and unlock both shown", async () => {
    const run = await watch([], ['node', client('migrate.mjs'), path.join(dir, 'migrations'), 'watch_mig'], 'migrate');
    expect(run.stderr).toContain('PGPASSWORD=***');
    // The lock typically breaks and no pooler was given: 3, as the audit (issue 40: it was 0).
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('typically (transaction pooling): shared -> BREAKS');
    expect(run.stdout.trimEnd().split('\n').pop()).toBe(
      'exit 3: findings typically break under transaction pooling, not confirmed on a pooler (give --report or --target; --fail-on-findings exits 1)',
    );
    const lock = run.watch.findings.find((f) => f.check === 'locks/advisory-session');
    expect(lock).toBeDefined();
    expect(lock!.created.sql).toMatch(/^SELECT pg_try_advisory_lock\(\d+\) AS "lockObtained"$/);
    expect(lock!.used!.sql).toMatch(/^SELECT pg_advisory_unlock\(\d+\) AS "lockReleased"$/);
    expect(lock!.use).toBe('explicit');
    // Matched by the lock's key (a bigint literal), not by chance.
    expect(lock!.state).toBe('advisory lock 7241865325823964');
    expect(lock!.used!.transaction).toBeGreaterThan(lock!.created.transaction + 1);
    // With a schema option it also sets search_path for the session and relies on it later.
    // Exactly these two: node-pg-migrate's other statements keep nothing across transactions.
    expect(run.watch.findings.map((f) => f.check)).toEqual(['session/search-path-leak', 'locks/advisory-session']);
    const searchPath = run.watch.findings.find((f) => f.check === 'session/search-path-leak');
    expect(searchPath?.created.sql).toBe('SET search_path TO "watch_mig"');
    expect(run.stdout).toContain(lock!.created.sql);
    expect(run.stdout).toContain(lock!.used!.sql);
    expect(run.watch.command).toEqual({
      argv: ['node', client('migrate.mjs'), path.join(dir, 'migrations'), 'watch_mig'],
      exitCode: 0,
      signal: null,
    });
    expect(readFileSync(path.join(dir, 'migrate.md'), 'utf8')).toContain('pg_advisory_unlock');
    expect(readFileSync(path.join(dir, 'migrate.html'), 'utf8')).toContain('pg_try_advisory_lock');
  });

  test('joined with a pooler report where the lock is shared, the watch exits 1', async () => {
    const run = await watch(
      ['--report', path.join(dir, 'pooler.json')],
      ['node', client('migrate.mjs'), path.join(dir, 'migrations'), 'watch_mig2'],
      'migrate-report',
    );
    expect(run.code).toBe(1);
    const lock = run.watch.findings.find((f) => f.check === 'locks/advisory-session')!;
    expect(lock).toMatchObject({ outcome: 'shared', basis: 'report', breaks: true });
  });

  test('--fail-on-findings makes a typically breaking finding exit 1, as in the audit', async () => {
    const run = await watch(
      ['--fail-on-findings'],
      ['node', client('migrate.mjs'), path.join(dir, 'migrations'), 'watch_mig3'],
      'migrate-fail',
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('exit 1: findings typically break under transaction pooling (--fail-on-findings)');
    // Control: a pooler given decides alone, the flag changes only the typical case. On a
    // pooler that keeps both the lock and the path with their session, nothing breaks: 0.
    const keeps = path.join(dir, 'keeps.json');
    writeFileSync(
      keeps,
      JSON.stringify({
        checks: [
          { id: 'locks/advisory-session', outcome: 'exclusive' },
          { id: 'session/search-path-leak', outcome: 'session' },
        ],
        target: null,
      }),
    );
    const joined = await watch(
      ['--fail-on-findings', '--report', keeps],
      ['node', client('migrate.mjs'), path.join(dir, 'migrations'), 'watch_mig4'],
      'migrate-fail-report',
    );
    expect(joined.watch.findings.map((f) => f.breaks)).toEqual([false, false]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain('exit 0: nothing breaks on this pooler');
  });

  test('a LISTEN job queue: the notifications arriving in later transactions are the use', async () => {
    const run = await watch([], ['node', client('job-queue.mjs'), '4'], 'queue');
    expect(run.code).toBe(3);
    const listen = run.watch.findings.filter((f) => f.check === 'notify/listen');
    expect(listen).toHaveLength(1);
    expect(listen[0]).toMatchObject({
      state: 'LISTEN queue_jobs',
      created: { sql: 'LISTEN queue_jobs' },
      use: 'explicit',
      connection: { applicationName: 'queue-worker' },
    });
    expect(listen[0]!.used?.what).toBe('notification on queue_jobs');
    expect(run.watch.findings.map((f) => f.check)).toEqual(['notify/listen']);
  });

  test('node-postgres named statements: parsed once, bound in later transactions', async () => {
    const run = await watch([], ['node', client('repository.mjs')], 'repository');
    expect(run.watch.findings.map((f) => f.check)).toEqual(['prepared/protocol-named']);
    const f = run.watch.findings[0]!;
    expect(f).toMatchObject({
      state: 'prepared statement find-user',
      created: { sql: 'SELECT $1::int AS id, $2::text AS name' },
    });
    expect(run.stdout).toContain('Bind to named statement "find-user"');
  });

  test('the control workload keeps its state in transactions: no finding, and not blind', async () => {
    const run = await watch([], ['node', client('control.mjs')], 'control');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('exit 0: no statement relies on session state');
    expect(run.watch.findings).toEqual([]);
    expect(run.watch.summary.statements).toBeGreaterThan(40);
    expect(run.stdout).toContain('No statement relied on session state');
  });

  test("the command's failing exit code passes through", async () => {
    const run = await watch([], ['node', '-e', 'process.exit(3)'], 'exit3');
    expect(run.code).toBe(3);
    expect(run.watch.command?.exitCode).toBe(3);
  });

  test('bad arguments are refused with code 2 before anything starts', async () => {
    const missing = await runCli(['watch', '--', 'true']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('BAD_ARGUMENTS');
    const both = await runCli(['watch', '--upstream', server.url(), '--report', 'a.json', '--target', 'b:1']);
    expect(both.code).toBe(2);
    expect(both.stderr).not.toContain(server.password);
  });

  test('a --target that cannot be reached is TARGET_REFUSED before the workload runs (it ran it, then exited with no report)', async () => {
    const marker = path.join(dir, 'workload-ran');
    const dead = await runCli([
      'watch',
      '--upstream',
      server.url(),
      '--target',
      'postgres://u:pw@127.0.0.1:1/db',
      '--',
      'node',
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`,
    ]);
    expect(dead.code, dead.stderr).toBe(2);
    expect(dead.stderr).toMatch(/TARGET_REFUSED: --target: /);
    expect(existsSync(marker)).toBe(false);
  });

  test('a report path that is a directory is OUTPUT_FAILED before the workload runs', async () => {
    const marker = path.join(dir, 'workload-ran-2');
    const bad = await runCli([
      'watch',
      '--upstream',
      server.url(),
      '--json',
      dir,
      '--',
      'node',
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`,
    ]);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toMatch(/OUTPUT_FAILED: --json .*is a directory/);
    expect(existsSync(marker)).toBe(false);
  });
});
