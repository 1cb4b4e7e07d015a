/**
 * Ending a watch: without a command, Ctrl-C (SIGINT) stops the proxy and prints the report of
 * what it saw; with one, SIGTERM is forwarded to the command and the watch still reports, with
 * the command's death by signal passed through as 128 + its number. With --target, the checks
 * the findings depend on run against a real PgBouncer in transaction mode when the watch ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { WatchReport } from '../../watch/watch-types.js';
import { CLI } from '../support/cli.js';
import { watchSchemaErrors } from '../support/watch-schema.js';

let server: PostgresFixture;
let bouncer: PoolerFixture;
let dir: string;

beforeAll(async () => {
  server = await startPostgres();
  bouncer = await startPgBouncer(server, { poolMode: 'transaction' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-watch-sig-'));
  // The workload's table, made directly (not through the watch): an unqualified name that only
  // search_path resolves. A catalog such as pg_class would not do, since pg_catalog is searched
  // first whatever the path says (watch/setting-uses.ts leaves pg_* names out).
  const c = new pg.Client({ connectionString: server.url(), connectionTimeoutMillis: 10_000 });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.query('CREATE TABLE public.watched_orders (id int)');
  } finally {
    await c.end();
  }
});
afterAll(async () => {
  await bouncer?.stop();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts `pooltest watch ARGS`; resolves with the proxy port once it listens, and the exit. */
function startCli(args: string[]): Promise<{
  port: number;
  signal(s: NodeJS.Signals): void;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'watch', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
      child.on('close', (code) => {
        clearTimeout(kill);
        done({ code, stdout, stderr });
      }),
    );
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /proxy on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve({ port: Number(m[1]), signal: (s) => child.kill(s), exit });
    });
    void exit.then((r) => reject(new Error(`watch ended before listening: ${r.stderr}`)));
  });
}

async function searchPathWorkload(port: number): Promise<void> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port,
    user: server.user,
    password: server.password,
    database: server.database,
    connectionTimeoutMillis: 10_000,
  });
  c.on('error', () => undefined);
  await c.connect();
  await c.query('SET search_path = public');
  await c.query('SELECT count(*) FROM watched_orders');
  await c.end();
}

describe('ending a watch', () => {
  test('without a command, SIGINT ends it with the report of what it saw', async () => {
    const json = path.join(dir, 'sigint.json');
    const run = await startCli(['--upstream', server.url(), '--json', json]);
    await searchPathWorkload(run.port);
    run.signal('SIGINT');
    const { code, stdout } = await run.exit;
    // Typically breaks, no pooler given: 3, the audit's code for it (issue 40: it was 0).
    expect(code).toBe(3);
    expect(stdout).toContain('exit 3: findings typically break under transaction pooling, not confirmed on a pooler');
    expect(stdout).toContain('SET search_path = public');
    const report = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
    expect(watchSchemaErrors(report)).toEqual([]);
    expect(report.command).toBeNull();
    expect(report.findings.map((f) => f.check)).toEqual(['session/search-path-leak']);
  });

  test('with a command, SIGTERM is forwarded to it and its death by signal passes through', async () => {
    const json = path.join(dir, 'sigterm.json');
    const run = await startCli([
      '--upstream',
      server.url(),
      '--json',
      json,
      '--',
      process.execPath,
      '-e',
      'setInterval(() => {}, 1000)',
    ]);
    await new Promise((r) => setTimeout(r, 300));
    run.signal('SIGTERM');
    const { code } = await run.exit;
    expect(code).toBe(143);
    const report = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
    expect(report.command).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
  });

  test('--target runs the relevant check against PgBouncer (transaction mode) and joins it', async () => {
    const json = path.join(dir, 'target.json');
    const run = await startCli(['--upstream', server.url(), '--target', bouncer.url(), '--json', json]);
    await searchPathWorkload(run.port);
    run.signal('SIGINT');
    const { code, stderr } = await run.exit;
    const report = JSON.parse(readFileSync(json, 'utf8')) as WatchReport;
    expect(report.pooler.basis).toBe('target');
    // The real check ran now: PgBouncer in transaction mode leaks a session SET to the next client.
    expect(report.findings[0]).toMatchObject({
      check: 'session/search-path-leak',
      outcome: 'leaked',
      basis: 'target',
      breaks: true,
    });
    expect(code, stderr).toBe(1);
    expect(stderr + readFileSync(json, 'utf8')).not.toContain(bouncer.password);
    // The checks it runs speak as the watch (issue 40: they printed `pooltest audit:`).
    expect(stderr).toContain('pooltest watch: running 1 check(s) against --target');
    expect(stderr).toContain('pooltest watch: session/search-path-leak: leaked');
    expect(stderr).not.toContain('pooltest audit');
  });
});
