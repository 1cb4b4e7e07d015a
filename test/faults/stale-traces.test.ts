/**
 * Stale traces are not other runs. A pooler that lost a client mid-transaction can leave a
 * server connection `idle in transaction` for good, carrying the dead run's application_name.
 * Red before: two such backends in front of the same Postgres made every check of a later run
 * through a (different) pooler inconclusive ("2 other pooltest run(s) worked on this target")
 * and doubled the pool discovery reported (4 instead of 2). Control: a live other run - a
 * client with another run's name that keeps running statements - still makes checks
 * inconclusive, so the detection did not simply go blind.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { runCli } from '../support/cli.js';

const ONLY = ['--only', 'session/set-leak', '--only', 'session/custom-guc-leak', '--only', 'locks/advisory-session'];
/**
 * --timeout 3s: at load 29 a 1 s bound let the login of a quiet run time out (issue 21). Another
 * run's backend is stale after three step bounds without a state change (stale-backends.ts).
 */
const STEP_MS = 3_000;
const ARGS = ['--timeout', `${STEP_MS / 1000}s`, ...ONLY];
const STALE_AFTER_MS = Math.max(3_000, 3 * STEP_MS);

describe('stale traces of a dead run', () => {
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  const clients: pg.Client[] = [];
  /** The dead run's two backends, idle in transaction since `staleSince`. */
  let stale: pg.Client[] = [];
  const pids: number[] = [];
  let staleSince = 0;

  /** A direct client posing as a pooltest run's server connection. */
  async function impostor(runId: string): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: pgFixture.url(), application_name: `pooltest-${runId}` });
    c.on('error', () => undefined);
    await c.connect();
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    pgFixture = await startPostgres();
    // The dead run's backends are left first, so that PgBouncer's start counts toward their age.
    stale = [await impostor('deadbeef'), await impostor('deadbeef')];
    for (const c of stale) {
      await c.query('BEGIN');
      pids.push((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
    }
    staleSince = Date.now();
    bouncer = await startPgBouncer(pgFixture, { poolMode: 'transaction' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await bouncer?.stop();
    await pgFixture?.stop();
  });

  test('two backends left idle in transaction by a dead run neither block the checks nor change the pool count', async () => {
    // Old enough to be stale: no state change for longer than three step bounds.
    await new Promise((r) => setTimeout(r, Math.max(0, staleSince + STALE_AFTER_MS + 500 - Date.now())));
    const run = await runCli(['--target', bouncer.url(), ...ARGS], { json: true });
    expect(run.report, run.stderr).not.toBeNull();
    const report = run.report!;
    expect(report.discovery.poolSize).toBe(2);
    // The dead run's backends are not counted in as busy elsewhere: a plain count, said so.
    expect(report.discovery.poolCount).toEqual({ held: 2, busyElsewhere: 0, end: 'queued' });
    const finding = report.discovery.notes.filter((n) => /stale backend/.test(n));
    expect(finding).toHaveLength(1);
    for (const pid of pids) expect(finding[0]).toContain(`pid ${pid} (pooltest-deadbeef, idle in transaction for`);
    // Reported once, on the terminal too (not only with --verbose).
    expect(run.stdout.match(/server finding: 2 stale backend\(s\)/g)).toHaveLength(1);
    // Never taken for a backend of this run (red before the fix: the finding's own query named
    // its column pid, so the sweep went looking for the stale backends and called them unvisited).
    for (const pid of pids) expect(JSON.stringify(report.sweep)).not.toContain(String(pid));
    expect(report.sweep?.clean, JSON.stringify(report.sweep)).toBe(true);
    for (const c of report.checks) expect(c.reason).not.toMatch(/other pooltest run/);
    expect(
      report.checks.filter((c) => c.outcome !== null).length,
      JSON.stringify(report.checks.map((c) => [c.id, c.reason])),
    ).toBeGreaterThan(0);
    for (const c of stale) await c.query('ROLLBACK');
  });

  test('control: a live other run, running statements during the checks, still makes them inconclusive', async () => {
    const live = await impostor('cafebabe');
    let going = true;
    const traffic = (async () => {
      while (going) await live.query('SELECT pg_sleep(0.02)').catch(() => undefined);
    })();
    try {
      const run = await runCli(['--target', bouncer.url(), ...ARGS], { json: true });
      expect(run.report, run.stderr).not.toBeNull();
      const others = run.report!.checks.filter((c) => /other pooltest run/.test(c.reason));
      expect(others.length, JSON.stringify(run.report!.checks.map((c) => [c.id, c.reason]))).toBeGreaterThan(0);
      expect(run.report!.checks.every((c) => c.outcome === null)).toBe(true);
    } finally {
      going = false;
      await traffic;
    }
  });
});
