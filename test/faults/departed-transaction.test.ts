/**
 * A pooler that keeps a departed client's server transaction open (pgagroal 1.6.0's
 * transaction pipeline once kept both its server connections `idle in transaction` for
 * minutes after pooltest's holders left, and answered nobody): played by the fault proxy in
 * front of a real PostgreSQL, which passes no Terminate on and keeps the server connection of a
 * client that leaves inside a transaction.
 *
 * - A session closed inside its transaction rolls back before it leaves (Session.close): the
 *   backend the proxy keeps is idle, not idle in transaction. Red before: `idle in transaction`.
 *   Control: the same session dropped without a word (destroy) stays idle in transaction, so
 *   the proxy does keep what it is given.
 * - The sweep with --direct ends this run's backends left so, and only this run's (another
 *   run's is left alone), and says so as a finding about the pooler; the sweep is clean. A
 *   nameless session whose last statement names the run (the sweep's nameless visitor) counts.
 *   Control without --direct: the same backend is a leftover, the sweep dirty.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { applicationNameFor, Session } from '../../engine/session/session.js';
import { Recorder } from '../../engine/session/recorder.js';
import { sweep } from '../../engine/sweep/sweep.js';
import { resolveTarget } from '../../engine/target/target.js';
import { sweepText } from '../../reporters/sweep-text.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { releaseRun } from '../support/discovered-run.js';

const RUN_ID = 'de9a77ed';
const OTHER_RUN = 'b0b0b0b0';
/** The sweep looks for these checks' markers too (none here). */
const CHECKS = ['session/set-leak'];
const bounds = { connectMs: 5_000, stepMs: 5_000 };
let env: ProxiedPostgres;

beforeAll(async () => {
  env = await startProxiedPostgres(RUN_ID, bounds);
  env.proxy.keepTransactionsOnLeave(true);
}, 120_000);

afterAll(async () => {
  await releaseRun(env?.ctx);
  await env?.stop();
});

/** pg_stat_activity on the server itself, for the sessions of one run. */
async function statesOf(runId: string): Promise<Array<{ pid: number; state: string }>> {
  const c = new pg.Client(env.pg.url());
  c.on('error', () => undefined);
  await c.connect();
  try {
    const r = await c.query<{ pid: number; state: string }>(
      `SELECT pid, state FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid() ORDER BY pid`,
      [`${applicationNameFor(runId)}%`],
    );
    return r.rows;
  } finally {
    await c.end();
  }
}

/** Waits (bounded) until the server shows what `done` wants of the run's sessions. */
async function settled(runId: string, done: (rows: Array<{ pid: number; state: string }>) => boolean) {
  let rows = await statesOf(runId);
  for (let i = 0; i < 50 && !done(rows); i++) {
    await new Promise((r) => setTimeout(r, 20));
    rows = await statesOf(runId);
  }
  return rows;
}

/** A session of `runId` through the proxy, inside a transaction; returns it and its backend. */
async function inTransaction(runId: string): Promise<{ session: Session; pid: number }> {
  const session = await Session.open('H', env.ctx.target, new Recorder(), {
    ...bounds,
    applicationName: applicationNameFor(runId),
  });
  const step = await session.run('H.take', 'BEGIN; SELECT pg_backend_pid() AS pid');
  expect(step.txStatus).toBe('T');
  return { session, pid: step.pid! };
}

/** Ends every backend of both runs through the server, between tests. */
afterEach(async () => {
  const c = new pg.Client(env.pg.url());
  c.on('error', () => undefined);
  await c.connect();
  await c.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE pid <> pg_backend_pid()
       AND (application_name ~ '^pooltest-(${RUN_ID}|${OTHER_RUN})' OR query LIKE '%pooltest-${OTHER_RUN}%')`,
  );
  await c.end();
  await settled(RUN_ID, (rows) => rows.length === 0);
});

describe('a pooler that keeps a departed client transaction open', () => {
  test('a session closed inside its transaction rolls it back first: nothing is kept idle in transaction', async () => {
    const { session, pid } = await inTransaction(RUN_ID);
    await session.close();
    // Left outside a transaction, its server connection is closed as usual (red before: kept,
    // idle in transaction).
    const rows = await settled(RUN_ID, (r) => !r.some((x) => x.pid === pid));
    expect(rows.filter((x) => x.pid === pid)).toEqual([]);
    expect(env.proxy.keptOpen()).toBe(0);
  });

  test('control: a session dropped without a word stays idle in transaction behind this pooler', async () => {
    const { session, pid } = await inTransaction(RUN_ID);
    session.destroy('test: the client vanishes');
    const rows = await settled(RUN_ID, (r) => r.some((x) => x.pid === pid && x.state === 'idle in transaction'));
    expect(rows).toContainEqual({ pid, state: 'idle in transaction' });
    expect(env.proxy.keptOpen()).toBe(1);
  });

  test('the sweep with --direct ends this run backend left idle in transaction, not another run, and says why', async () => {
    const mine = await inTransaction(RUN_ID);
    const other = await inTransaction(OTHER_RUN);
    mine.session.destroy('test: the client vanishes');
    other.session.destroy('test: the client vanishes');
    await settled(RUN_ID, (r) => r.some((x) => x.state === 'idle in transaction'));
    const direct = resolveTarget({ target: env.pg.url() }, {});
    const started = performance.now();
    const result = await sweep({ ...env.ctx, direct }, CHECKS);
    const ms = performance.now() - started;
    expect(result.state, JSON.stringify(result)).toBe('clean');
    expect(result.leftovers).toEqual([]);
    expect(result.ended).toHaveLength(1);
    expect(result.ended?.[0]).toMatch(
      new RegExp(
        `^backend ${mine.pid} \\(pooltest-${RUN_ID}\\): idle in transaction for \\d+ ms after its client left, ended through --direct$`,
      ),
    );
    expect(sweepText(result).text).toMatch(
      /^Sweep: clean .*the pooler kept 1 session\(s\) of this run idle in a transaction after their clients left/,
    );
    // Bounded: the settle second and a few statements.
    expect(ms).toBeLessThan(5_000);
    expect(await settled(RUN_ID, (r) => r.length === 0)).toEqual([]);
    // Another run's backend is none of this run's business.
    expect(await statesOf(OTHER_RUN)).toEqual([{ pid: other.pid, state: 'idle in transaction' }]);
  });

  test('a nameless session whose last statement names this run is this run too (a sweep visitor that gave up)', async () => {
    const visitor = await Session.open('V', env.ctx.target, new Recorder(), { ...bounds, applicationName: '' });
    const step = await visitor.run(
      'V.take',
      `BEGIN; SELECT pg_backend_pid() AS pid, 'pooltest-${RUN_ID}' AS looked_for`,
    );
    const stranger = await Session.open('S', env.ctx.target, new Recorder(), { ...bounds, applicationName: '' });
    await stranger.run('S.take', `BEGIN; SELECT 'pooltest-${OTHER_RUN}' AS looked_for`);
    visitor.destroy('test: the client vanishes');
    stranger.destroy('test: the client vanishes');
    await new Promise((r) => setTimeout(r, 200));
    const direct = resolveTarget({ target: env.pg.url() }, {});
    const result = await sweep({ ...env.ctx, direct }, CHECKS);
    expect(result.leftovers).toEqual([]);
    expect(result.ended).toHaveLength(1);
    expect(result.ended?.[0]).toMatch(
      new RegExp(
        `^backend ${step.pid} \\(no application_name\\): idle in transaction for \\d+ ms after its client left`,
      ),
    );
    // Control: the stranger names another run, and stays.
    expect(env.proxy.keptOpen()).toBe(1);
  });

  test('control: without --direct the same backend is reported left, and the sweep is dirty', async () => {
    const mine = await inTransaction(RUN_ID);
    mine.session.destroy('test: the client vanishes');
    await settled(RUN_ID, (r) => r.some((x) => x.state === 'idle in transaction'));
    const result = await sweep({ ...env.ctx, direct: null }, CHECKS);
    expect(result.state).toBe('dirty');
    expect(result.leftovers).toContain('target: 1 session(s) of this run idle in transaction');
    expect(result.ended).toBeUndefined();
    expect(await statesOf(RUN_ID)).toContainEqual({ pid: mine.pid, state: 'idle in transaction' });
  });
});
