/**
 * Regressions: the paths by which a check's schema or table outlived it while another run
 * held the pool, each made certain with the fault proxy in front of a transaction-mode
 * PgBouncer (the run has --direct, as the load test's runs do). A fresh-clone CI run with two
 * pooltest runs on one pool of 2 found `any_schemas = 1` and `run_tables = 1` at a sweep.
 *
 * 1. Every drop through the pool goes unanswered (another run holds both backends for longer
 *    than the drop's attempts): the check left its objects to the sweep. Now an attempt after
 *    an unanswered one goes over --direct. Red before: the schema and its table were left.
 * 2. The CREATE committed, and the answer was a pooler's class 08 error (PgBouncer's `server
 *    conn crashed?` for a server connection lost mid-query): read as the server's refusal, so
 *    search-path-leak dropped nothing. Red before: the schema and its table were left.
 * 3. search-path-leak's drop was refused for a passing reason (a lock wait past a lock_timeout,
 *    55P03): that ended its attempts. Red before: the schema and its table were left.
 *    (transactions/abandoned already tried again: its verifier's drop is followed by dropOwn.)
 * 4. search-path-leak's drop landed on a backend another run's session/role-leak had left in
 *    `SET ROLE` a lesser role (a leak that check reports): refused, 42501, and the attempts
 *    ended (test/load/honest-under-load.test.ts, two runs at once, 1 of 6). Now the drop runs
 *    as the login within its own transaction. Red before: the schema and its table were left.
 * 5. search-path-leak's drop landed on a backend another run's session/tracked-parameter had
 *    left with default_transaction_read_only on (PgBouncer does not track it): refused, 25006,
 *    and the attempts ended. Now a refusal through the pool is tried again over --direct.
 *    Red before: the schema and its table were left.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { discover } from '../../engine/discovery/discovery.js';
import { executeCheck } from '../../engine/execute/execute.js';
import { runContext } from '../../engine/context/run-state.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import { resolveTarget } from '../../engine/target/target.js';
import type { CheckDefinition } from '../../engine/execute/check.js';
import type { Discovery } from '../../engine/types.js';
import type { Direction, FaultProxy } from '../../fixtures/fault-proxy.js';
import { cstr, errorResponse, msg, ready } from '../../fixtures/misbehaving-bytes.js';
import { READER_ROLE } from '../../fixtures/fixture-roles.js';
import { abandoned } from '../../suites/transactions/abandoned.check.js';
import { searchPathLeak } from '../../suites/session/search-path-leak.check.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';
import { startProxiedBouncer, type ProxiedBouncer } from './proxied-bouncer.js';

const BOUNDS = { connectMs: 2_000, stepMs: 2_000 };
let stack: ProxiedBouncer;
let discovery: Discovery;

beforeAll(async () => {
  stack = await startProxiedBouncer();
  discovery = await discover(resolveTarget({ target: stack.bouncer.url() }, {}), {
    bounds: BOUNDS,
    poolBound: 8,
    runId: 'd0d0cafe',
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const carries = (text: string) => (chunk: Buffer) => chunk.toString('utf8').includes(text);

/** The run's schemas and tables the server holds, as the superuser sees them; removed once read. */
async function leftOf(runId: string): Promise<string[]> {
  const view = await superuserView(stack.pg);
  const left = [...view.schemas, ...view.tables].filter((n) => n.includes(runId));
  await withSuperuser(stack.pg, async (c) => {
    for (const n of view.schemas) await c.query(`DROP SCHEMA IF EXISTS "${n}" CASCADE`);
    for (const n of view.tables) await c.query(`DROP TABLE IF EXISTS "${n}"`);
  });
  return left;
}

/** One run of `check` through the proxy with --direct; `left()`: what it left on the server. */
async function runOnce(check: CheckDefinition) {
  const runId = randomBytes(4).toString('hex');
  const target = resolveTarget({ target: stack.url() }, {});
  const direct = resolveTarget({ target: stack.pg.url() }, {});
  const ctx = runContext({ target, direct, discovery, runId, bounds: BOUNDS });
  try {
    const result = await executeCheck(check, ctx, null);
    const tags = result.steps.map((s) => `${s.session}:${s.tag}:${s.error?.code ?? (s.error ? 'no answer' : 'ok')}`);
    return { result, tags, left: () => leftOf(runId) };
  } finally {
    stack.proxy.afterChunk(
      'toServer',
      () => false,
      () => undefined,
    );
    await Promise.all([closeSpares(ctx.state), closeKeptSessions('all', ctx.state)]);
  }
}

/**
 * Each chunk travelling `dir` that `isIt` recognises is replaced by what `replace` makes of it
 * (the first only, unless `every`); other chunks (other sessions' logins and statements) pass
 * unchanged. `stop()` ends it (a rewrite still queued then passes its chunk on).
 */
function rewriteMatching(
  proxy: FaultProxy,
  dir: Direction,
  isIt: (chunk: Buffer) => boolean,
  replace: (chunk: Buffer) => Array<{ bytes: Buffer; afterMs?: number }>,
  every = false,
): { replaced(): number; stop(): void } {
  let replaced = 0;
  let stopped = false;
  const arm = (): void =>
    proxy.rewriteNext(dir, (chunk) => {
      if (stopped) return [{ bytes: chunk }];
      if (!isIt(chunk)) {
        arm();
        return [{ bytes: chunk }];
      }
      replaced++;
      if (every) arm();
      return replace(chunk);
    });
  arm();
  return { replaced: () => replaced, stop: () => (stopped = true) };
}

test.for([searchPathLeak, abandoned])(
  '$id: every drop through the pool unanswered, the run has --direct: its objects are dropped over it',
  { timeout: 120_000 },
  async (check) => {
    // Held before the pooler, as a query queued there is: its client gives up, closes, and the
    // drop never reaches a server.
    const held = rewriteMatching(
      stack.proxy,
      'toServer',
      (c) => /DROP (SCHEMA|TABLE)/.test(c.toString('utf8')),
      (bytes) => [{ bytes, afterMs: 5 * BOUNDS.stepMs }],
      true,
    );
    const { tags, left } = await runOnce(check);
    held.stop();
    // The fault really held the drop through the pool (otherwise this proves nothing).
    expect(held.replaced(), tags.join(' ')).toBeGreaterThanOrEqual(1);
    expect(await left()).toEqual([]);
  },
);

test("session/search-path-leak: the CREATE committed and the pooler answered 08P01 'server conn crashed?': the schema is still dropped", async () => {
  // The answer to U's CREATE SCHEMA becomes the error PgBouncer sends when the server
  // connection is lost mid-query.
  const crashed = rewriteMatching(
    stack.proxy,
    'toClient',
    (chunk) => chunk.includes(cstr('CREATE SCHEMA')),
    () => [{ bytes: Buffer.concat([errorResponse('08P01', 'server conn crashed?'), ready()]) }],
  );
  const { tags, left } = await runOnce(searchPathLeak);
  crashed.stop();
  expect(tags).toContain('U:setup.schema:08P01');
  expect(await left()).toEqual([]);
}, 120_000);

test('session/search-path-leak: its drop refused once for a lock wait (55P03) is tried again: nothing is left', async () => {
  // The first drop never reaches the server: it is replaced by a statement refused as a lock
  // wait past lock_timeout is.
  const refusal = `DO $t$ BEGIN RAISE EXCEPTION 'canceling statement due to lock timeout' USING ERRCODE = '55P03'; END $t$`;
  const refused = rewriteMatching(stack.proxy, 'toServer', carries('DROP TABLE'), () => [
    { bytes: msg('Q', cstr(refusal)) },
  ]);
  const { tags, left } = await runOnce(searchPathLeak);
  refused.stop();
  expect(tags.filter((t) => t.includes('setup.cleanup'))[0], tags.join(' ')).toMatch(/55P03/);
  expect(await left()).toEqual([]);
}, 120_000);

test('session/search-path-leak: its drop lands on a backend another run left read-only (tracked-parameter): nothing is left', async () => {
  // Another run's session/tracked-parameter leaves default_transaction_read_only = on on a
  // pooled backend (PgBouncer does not track it): a transaction begun there is read-only,
  // modelled by the first drop beginning with SET TRANSACTION READ ONLY. Refused, 25006.
  const readOnly = rewriteMatching(stack.proxy, 'toServer', carries('DROP SCHEMA'), (chunk) => [
    { bytes: msg('Q', cstr(`SET TRANSACTION READ ONLY; ${chunk.subarray(5, chunk.length - 1).toString('utf8')}`)) },
  ]);
  const { tags, left } = await runOnce(searchPathLeak);
  readOnly.stop();
  expect(readOnly.replaced(), tags.join(' ')).toBe(1);
  // The fault really refused the drop (otherwise this proves nothing).
  expect(tags.filter((t) => t.includes('setup.cleanup'))[0], tags.join(' ')).toMatch(/25006/);
  expect(await left()).toEqual([]);
}, 120_000);

// Last in this file: it leaves a role on one of the pool's server connections, as another run's
// session/role-leak does (the superuser then ends them, so the pooler opens fresh ones).
test('session/search-path-leak: its drop lands on a backend another run left in SET ROLE (role-leak): nothing is left', async () => {
  // The first drop arrives on a backend whose session runs as a lesser role: modelled by
  // the statement setting it first, as the leaked SET did. The drop must still run as the login.
  const leaked = rewriteMatching(stack.proxy, 'toServer', carries('DROP SCHEMA'), (chunk) => [
    { bytes: msg('Q', cstr(`SET ROLE ${READER_ROLE}; ${chunk.subarray(5, chunk.length - 1).toString('utf8')}`)) },
  ]);
  try {
    const { tags, left } = await runOnce(searchPathLeak);
    leaked.stop();
    expect(leaked.replaced(), tags.join(' ')).toBe(1);
    expect(await left()).toEqual([]);
  } finally {
    leaked.stop();
    await withSuperuser(stack.pg, (c) =>
      c.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend'`,
        [stack.pg.user],
      ),
    );
  }
}, 120_000);
